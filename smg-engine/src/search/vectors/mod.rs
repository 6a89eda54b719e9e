//! The file's embeddings (SMG §9.2), for a caller that brings the query's embedding
//! from the same model: cosine similarity over every embedded turn and node, or, in
//! a file of many, over those its sign bits put nearest ([`narrow`]).

mod narrow;

use std::collections::HashMap;

use rayon::prelude::*;
use smg_format::Document;
use tantivy::directory::OwnedBytes;

use super::period::Inside;
use super::Key;
use crate::error::{Error, Result};

/// A query's embedding, and the model that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryVector {
    /// The embedding model's name, as the file's vector index names it.
    pub model: String,
    /// The embedding.
    pub values: Vec<f64>,
}

impl QueryVector {
    /// Read `{"model": NAME, "vector": [numbers]}`; anything else is `SMG-E230`.
    ///
    /// ```
    /// use smg_engine::search::QueryVector;
    /// let q = QueryVector::from_json(br#"{"model": "m", "vector": [0.5, 1]}"#).unwrap();
    /// assert_eq!(q.values, [0.5, 1.0]);
    /// assert_eq!(QueryVector::from_json(b"[1]").unwrap_err().code(), "SMG-E230");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Shape {
            model: String,
            vector: Vec<f64>,
        }
        let s: Shape = serde_json::from_slice(bytes).map_err(|e| {
            Error::Vector(format!(
                "not {{\"model\": NAME, \"vector\": [numbers]}}: {e}"
            ))
        })?;
        Ok(QueryVector {
            model: s.model,
            values: s.vector,
        })
    }
}

/// Embedded turns and nodes, stored as a stored index keeps them (its own part, read
/// in place from the mapped file, so that opening does not grow with the vectors):
/// for each of `count` rows its key (u32, little-endian: a turn's position, or a
/// node's number with the top bit set), then each row's length (f32), then each row's
/// components as signed bytes (`dimensions` a row), scaled so that the largest is
/// ±127, then each row's sign bits about `center`, the rows' mean
/// ([`narrow::push_signs`]). Embeddings that `smg embed` wrote (int8) are kept
/// exactly; others within 1/254 of their largest component.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Vectors {
    model: Option<String>,
    dimensions: usize,
    count: usize,
    center: Vec<f32>,
    #[serde(skip, default = "no_rows")]
    rows: OwnedBytes,
}

fn no_rows() -> OwnedBytes {
    OwnedBytes::empty()
}

/// A row and its similarity to a query.
type Scored = (usize, f32);
/// Turns or nodes, best first, each with its cosine.
type Ranked = Vec<(Key, f64)>;

/// The key of a node's row.
const NODE: u32 = 1 << 31;
/// Rows scored by one task.
const ROWS_A_TASK: usize = 4096;

/// `a` · `b`, `b` a row of signed bytes: whole numbers, so that the sum vectorises
/// (a float sum keeps its order) and is the same in every run.
fn dot(a: &[i16], b: &[u8]) -> i64 {
    // Sixteen lanes a step: a vector unit works on them at once (one lane would
    // make every product wait for the one before).
    let mut lanes = [0i32; 16];
    let (xs, ys) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = (xs.remainder().iter().zip(ys.remainder()))
        .map(|(&x, &y)| i32::from(x) * i32::from(y as i8))
        .sum();
    for (x, y) in xs.zip(ys) {
        for k in 0..16 {
            lanes[k] += i32::from(x[k]) * i32::from(y[k] as i8);
        }
    }
    i64::from(lanes.iter().sum::<i32>() + tail)
}

/// The query's components as whole numbers, scaled so that a row's dot product
/// cannot overflow an `i32` (|q| ≤ 2³¹ / (128 × dimensions), at most `i16::MAX`), and
/// their length.
fn query_ints(q: &[f64]) -> Option<(Vec<i16>, f32)> {
    let max = q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(max > 0.0 && max.is_finite()) {
        return None;
    }
    // 128: a stored row's byte can be −128, whatever smg writes.
    let room = (f64::from(i32::MAX) / (128.0 * q.len().max(1) as f64)).floor();
    let top = room.min(f64::from(i16::MAX));
    if top < 1.0 {
        return None;
    }
    let ints: Vec<i16> = q.iter().map(|x| (x / max * top).round() as i16).collect();
    let norm = ints
        .iter()
        .map(|&x| f64::from(x).powi(2))
        .sum::<f64>()
        .sqrt();
    (norm > 0.0).then_some((ints, norm as f32))
}

/// `v` as signed bytes scaled so that its largest component is ±127, and their
/// length; `None` for a vector of no direction.
fn quantised(v: &[f64]) -> Option<(Vec<i8>, f32)> {
    let max = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(max > 0.0 && max.is_finite()) {
        return None;
    }
    let q: Vec<i8> = v.iter().map(|x| (x / max * 127.0).round() as i8).collect();
    let norm = q.iter().map(|&x| f32::from(x).powi(2)).sum::<f32>().sqrt();
    (norm > 0.0).then_some((q, norm))
}

impl Vectors {
    /// The enabled vector index of `doc`, its entries resolved to turn positions
    /// (`turns`: archive turn number → position) and node numbers (`nodes`: id → number); `None` without one.
    pub(crate) fn new(
        doc: &Document,
        turns: &HashMap<u64, usize>,
        nodes: &HashMap<&str, u32>,
    ) -> Option<Self> {
        let index = doc.deep_archive.as_ref()?.vector_index.as_ref()?;
        if !index.enabled {
            return None;
        }
        let dimensions = index.dimensions.map_or(0, |d| d.get() as usize);
        let rows: Vec<(u32, Vec<i8>, f32)> = index
            .embeddings
            .iter()
            .flatten()
            .filter(|e| e.vector.len() == dimensions)
            .filter_map(|e| {
                let key = match (e.turn, e.node_id.as_deref()) {
                    (Some(t), _) => {
                        let at = u32::try_from(*turns.get(&t.get())?).ok()?;
                        (at & NODE == 0).then_some(at)?
                    }
                    (None, Some(id)) => *nodes.get(id)? | NODE,
                    (None, None) => return None,
                };
                let (q, norm) = quantised(&e.vector)?;
                Some((key, q, norm))
            })
            .collect();
        let center = mean(rows.iter().map(|r| r.1.as_slice()), dimensions);
        let words = narrow::words(dimensions);
        let mut bytes = Vec::with_capacity(rows.len() * (8 + dimensions + 8 * words));
        bytes.extend(rows.iter().flat_map(|r| r.0.to_le_bytes()));
        bytes.extend(rows.iter().flat_map(|r| r.2.to_le_bytes()));
        bytes.extend(rows.iter().flat_map(|r| r.1.iter().map(|&x| x as u8)));
        for r in &rows {
            narrow::push_signs(&r.1, &center, &mut bytes);
        }
        Some(Vectors {
            model: index.model.clone(),
            dimensions,
            count: rows.len(),
            center,
            rows: OwnedBytes::new(bytes),
        })
    }

    /// The rows' bytes, to store as a part of their own.
    pub(crate) fn row_bytes(&self) -> &[u8] {
        self.rows.as_slice()
    }

    /// These vectors with the rows read back from a stored index.
    pub(crate) fn with_rows(mut self, rows: OwnedBytes) -> Self {
        self.rows = rows;
        self
    }

    fn key(&self, i: usize) -> Key {
        let at = 4 * i;
        let raw = u32::from_le_bytes(self.rows[at..at + 4].try_into().unwrap_or_default());
        match raw & NODE {
            0 => Key::Turn(raw),
            _ => Key::Node(raw & !NODE),
        }
    }

    fn norm(&self, i: usize) -> f32 {
        let at = 4 * (self.count + i);
        f32::from_le_bytes(self.rows[at..at + 4].try_into().unwrap_or_default())
    }

    /// Every row's components, row after row (signed bytes).
    fn components(&self) -> &[u8] {
        &self.rows[8 * self.count..(8 + self.dimensions) * self.count]
    }

    /// Every row's sign bits, row after row.
    fn signs(&self) -> &[u8] {
        &self.rows[(8 + self.dimensions) * self.count..]
    }

    /// Whether the rows are as many and as long as said, every length a positive
    /// number and every row naming a turn below `turns` or a node below `nodes`.
    pub(crate) fn keys_below(&self, turns: usize, nodes: usize) -> bool {
        let size = (8 * narrow::words(self.dimensions))
            .checked_add(self.dimensions)
            .and_then(|r| r.checked_add(8))
            .and_then(|r| r.checked_mul(self.count));
        if size != Some(self.rows.len()) || self.center.len() != self.dimensions {
            return false;
        }
        (0..self.count).all(|i| {
            let norm = self.norm(i);
            norm > 0.0
                && norm.is_finite()
                && match self.key(i) {
                    Key::Turn(t) => (t as usize) < turns,
                    Key::Node(n) => (n as usize) < nodes,
                }
        })
    }

    /// `query` as whole numbers and their length ([`query_ints`]), when it is of the
    /// file's model and size (`SMG-E230` otherwise).
    fn checked(&self, query: &QueryVector) -> Result<(Vec<i16>, f32)> {
        if self.model.as_deref() != Some(query.model.as_str()) {
            return Err(Error::Vector(format!(
                "the query was embedded by `{}`, the file's embeddings by `{}`",
                query.model,
                self.model.as_deref().unwrap_or("an unnamed model")
            )));
        }
        if query.values.len() != self.dimensions {
            return Err(Error::Vector(format!(
                "the query vector has {} dimensions, the file's embeddings {}",
                query.values.len(),
                self.dimensions
            )));
        }
        query_ints(&query.values)
            .ok_or_else(|| Error::Vector("the query vector has no direction".into()))
    }

    /// Whether row `i` is a node's, when a search kept to `inside` (every row
    /// without) keeps it; `None` when it does not.
    fn kind(&self, i: usize, inside: Option<&Inside>) -> Option<bool> {
        let key = self.key(i);
        inside
            .is_none_or(|s| s.holds(key))
            .then_some(matches!(key, Key::Node(_)))
    }

    /// `f(i, similarity)` for every row `i` kept to `inside` of a task's few thousand
    /// rows, the tasks on every core; what each task gives back, in row order.
    fn scan<T: Send>(
        &self,
        query: &QueryVector,
        inside: Option<&Inside>,
        f: impl Fn(&mut dyn Iterator<Item = Scored>) -> T + Sync,
    ) -> Result<Vec<T>> {
        let (q, q_norm) = self.checked(query)?;
        let d = self.dimensions.max(1);
        Ok(self
            .components()
            .par_chunks(ROWS_A_TASK * d)
            .enumerate()
            .map(|(task, rows)| {
                let mut sims = (rows.chunks_exact(d).enumerate())
                    .map(|(j, row)| (task * ROWS_A_TASK + j, row))
                    .filter(|&(i, _)| self.kind(i, inside).is_some())
                    .map(|(i, row)| (i, self.similarity(&q, q_norm, i, row)));
                f(&mut sims)
            })
            .collect())
    }

    /// The cosine of the query (`q`, of length `q_norm`) and row `i` (`row`).
    fn similarity(&self, q: &[i16], q_norm: f32, i: usize, row: &[u8]) -> f32 {
        let norm = f64::from(q_norm * self.norm(i));
        (dot(q, row) as f64 / norm) as f32
    }

    /// Among many rows kept to `inside`, the rows worth scoring for the `n` best of
    /// each kind and their similarities, in row order ([`narrow::candidates`]);
    /// `None` when every row kept is scored.
    fn narrowed(
        &self,
        query: &QueryVector,
        n: usize,
        inside: Option<&Inside>,
    ) -> Result<Option<Vec<Scored>>> {
        let (q, q_norm) = self.checked(query)?;
        let kept = inside.map_or(self.count, Inside::len);
        if kept.min(self.count) < narrow::NARROW_FROM {
            return Ok(None);
        }
        // The query quantised as a row is: its bits are taken as the rows' were.
        let (as_row, _) = quantised(&query.values)
            .ok_or_else(|| Error::Vector("the query vector has no direction".into()))?;
        let signs = narrow::signs(&as_row, &self.center);
        let kind = |i: usize| self.kind(i, inside);
        let rows = narrow::candidates(self.signs(), &signs, kind, n);
        let d = self.dimensions;
        let all = self.components();
        Ok(Some(
            rows.par_iter()
                .map(|&i| (i, self.similarity(&q, q_norm, i, &all[i * d..(i + 1) * d])))
                .collect(),
        ))
    }

    /// The cosine similarity of `query` to the embedded turns (those `inside`, when
    /// given), by turn position: to every turn, or among many rows to those worth
    /// scoring for the `n` best.
    pub(crate) fn turn_similarities(
        &self,
        query: &QueryVector,
        n: usize,
        inside: Option<&Inside>,
    ) -> Result<Vec<(u32, f64)>> {
        let turns = |sims: &mut dyn Iterator<Item = Scored>| {
            sims.filter_map(|(i, s)| match self.key(i) {
                Key::Turn(t) => Some((t, f64::from(s))),
                Key::Node(_) => None,
            })
            .collect::<Vec<_>>()
        };
        if let Some(rows) = self.narrowed(query, n, inside)? {
            return Ok(turns(&mut rows.into_iter()));
        }
        Ok(self.scan(query, inside, turns)?.concat())
    }

    /// The `n` turns and the `n` nodes most similar to `query` (cosine), each best
    /// first, of those `inside` when given; ties to the earlier row. A query of
    /// another model or size is `SMG-E230`. Each task keeps its own best `n` of each,
    /// so that no list of every row is made; among many rows only those worth scoring
    /// are scored.
    pub(crate) fn best(
        &self,
        query: &QueryVector,
        n: usize,
        inside: Option<&Inside>,
    ) -> Result<(Ranked, Ranked)> {
        if let Some(rows) = self.narrowed(query, n, inside)? {
            let (nodes, turns): (Vec<Scored>, Vec<Scored>) = rows
                .into_iter()
                .partition(|&(i, _)| matches!(self.key(i), Key::Node(_)));
            let keys = |l: Vec<Scored>| {
                let best = top(l, n);
                best.iter()
                    .map(|&(i, s)| (self.key(i), f64::from(s)))
                    .collect()
            };
            return Ok((keys(turns), keys(nodes)));
        }
        self.best_of_all(query, n, inside)
    }

    /// [`Vectors::best`] with every row kept scored.
    pub(crate) fn best_of_all(
        &self,
        query: &QueryVector,
        n: usize,
        inside: Option<&Inside>,
    ) -> Result<(Ranked, Ranked)> {
        let tasks = self.scan(query, inside, |sims| {
            let (mut turns, mut nodes) = (Vec::new(), Vec::new());
            for (i, s) in sims {
                match self.key(i) {
                    Key::Turn(_) => turns.push((i, s)),
                    Key::Node(_) => nodes.push((i, s)),
                }
            }
            (top(turns, n), top(nodes, n))
        })?;
        let (turns, nodes): (Vec<Vec<Scored>>, Vec<Vec<Scored>>) = tasks.into_iter().unzip();
        let keys = |list: Vec<Vec<Scored>>| -> Ranked {
            let best = top(list.concat(), n);
            best.iter()
                .map(|&(i, s)| (self.key(i), f64::from(s)))
                .collect()
        };
        Ok((keys(turns), keys(nodes)))
    }
}

/// The mean of `rows` of `dimensions` components each, component by component.
fn mean<'a>(rows: impl Iterator<Item = &'a [i8]>, dimensions: usize) -> Vec<f32> {
    let mut sum = vec![0i64; dimensions];
    let mut count = 0i64;
    for row in rows {
        count += 1;
        for (s, &x) in sum.iter_mut().zip(row) {
            *s += i64::from(x);
        }
    }
    sum.iter()
        .map(|&s| (s as f64 / count.max(1) as f64) as f32)
        .collect()
}

/// The `n` best of `list`, best first; ties to the earlier row.
fn top(mut list: Vec<Scored>, n: usize) -> Vec<Scored> {
    let order = |a: &Scored, b: &Scored| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if list.len() > n {
        list.select_nth_unstable_by(n, order);
        list.truncate(n);
    }
    list.sort_unstable_by(order);
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fulltext;

    fn keys(scored: &[(Key, f64)]) -> Vec<Key> {
        scored.iter().map(|k| k.0).collect()
    }

    fn vectors(rows: &[(Key, Vec<f64>)]) -> Vectors {
        let mut bytes = Vec::new();
        let quantised: Vec<(Vec<i8>, f32)> =
            rows.iter().map(|r| quantised(&r.1).unwrap()).collect();
        for (k, _) in rows {
            let raw = match *k {
                Key::Turn(t) => t,
                Key::Node(n) => n | NODE,
            };
            bytes.extend(raw.to_le_bytes());
        }
        bytes.extend(quantised.iter().flat_map(|q| q.1.to_le_bytes()));
        bytes.extend(quantised.iter().flat_map(|q| q.0.iter().map(|&x| x as u8)));
        let dimensions = rows.first().map_or(0, |r| r.1.len());
        let center = mean(quantised.iter().map(|q| q.0.as_slice()), dimensions);
        for q in &quantised {
            narrow::push_signs(&q.0, &center, &mut bytes);
        }
        Vectors {
            model: Some("m".into()),
            dimensions,
            count: rows.len(),
            center,
            rows: OwnedBytes::new(bytes),
        }
    }

    fn query(v: [f64; 2]) -> QueryVector {
        QueryVector {
            model: "m".into(),
            values: v.to_vec(),
        }
    }

    #[test]
    fn the_most_similar_turns_and_nodes_come_first() {
        let v = vectors(&[
            (Key::Turn(0), vec![1.0, 0.0]),
            (Key::Node(0), vec![0.0, 1.0]),
            (Key::Turn(1), vec![0.7, 0.7]),
            (Key::Node(1), vec![1.0, 0.1]),
            (Key::Turn(2), vec![-1.0, 0.0]),
        ]);
        assert!(v.keys_below(3, 2));
        assert!(!v.keys_below(2, 2));
        let (turns, nodes) = v.best(&query([1.0, 0.0]), 2, None).unwrap();
        assert_eq!(keys(&turns), [Key::Turn(0), Key::Turn(1)]);
        assert_eq!(keys(&nodes), [Key::Node(1), Key::Node(0)]);
        assert!((turns[0].1 - 1.0).abs() < 1e-6, "{turns:?}");
        let sims = v.turn_similarities(&query([2.0, 0.0]), 2, None).unwrap();
        assert_eq!(sims.len(), 3);
        assert!((sims[0].1 - 1.0).abs() < 1e-6 && (sims[2].1 + 1.0).abs() < 1e-6);
        assert_eq!(
            v.best(&query([0.0, 0.0]), 2, None).unwrap_err().code(),
            "SMG-E230"
        );
    }

    #[test]
    fn rows_that_do_not_add_up_are_not_used() {
        let v = vectors(&[(Key::Turn(0), vec![1.0, 0.0])]);
        let short = Vectors {
            rows: OwnedBytes::new(v.row_bytes()[1..].to_vec()),
            ..v
        };
        assert!(!short.keys_below(1, 0));
    }

    #[test]
    fn no_row_overflows_the_sum() {
        for d in [2, 384, 4096] {
            let (ints, _) = query_ints(&vec![1.0; d]).unwrap();
            let row = vec![0x80u8; d];
            assert_eq!(dot(&ints, &row), -128 * i64::from(ints[0]) * d as i64);
        }
    }

    /// Components in −127..=127, drawn from `seed` on.
    fn components(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            f64::from((seed >> 33) as u32 % 255) - 127.0
        }
    }

    #[test]
    fn a_file_of_many_rows_finds_nearly_what_scoring_every_row_finds() {
        let mut draw = components(7);
        let rows: Vec<(Key, Vec<f64>)> = (0..narrow::NARROW_FROM as u32 + 4000)
            .map(|i| {
                let key = if i % 8 == 0 {
                    Key::Node(i)
                } else {
                    Key::Turn(i)
                };
                (key, (0..64).map(|_| draw()).collect())
            })
            .collect();
        let v = vectors(&rows);
        assert!(v.keys_below(rows.len(), rows.len()));
        let (mut found, mut wanted) = (0, 0);
        for q in 0..20 {
            let near: Vec<f64> = rows[q * 997].1.iter().map(|x| x + draw() / 3.0).collect();
            let q = QueryVector {
                model: "m".into(),
                values: near,
            };
            let (turns, nodes) = v.best(&q, 10, None).unwrap();
            let (all_turns, all_nodes) = v.best_of_all(&q, 10, None).unwrap();
            let (turns, nodes, all_turns, all_nodes) = (
                keys(&turns),
                keys(&nodes),
                keys(&all_turns),
                keys(&all_nodes),
            );
            assert_eq!(turns.len(), 10);
            wanted += 20;
            found += turns.iter().filter(|k| all_turns.contains(k)).count();
            found += nodes.iter().filter(|k| all_nodes.contains(k)).count();
            let sims = v.turn_similarities(&q, 10, None).unwrap();
            assert!((1024..10_000).contains(&sims.len()), "{}", sims.len());
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.9, "{recall}");
    }

    #[test]
    fn a_period_s_best_are_the_best_of_the_rows_inside_it() {
        let mut draw = components(11);
        let rows = |count: u32, draw: &mut dyn FnMut() -> f64| -> Vec<(Key, Vec<f64>)> {
            (0..count)
                .map(|i| {
                    let key = if i % 4 == 0 {
                        Key::Node(i / 4)
                    } else {
                        Key::Turn(i)
                    };
                    (key, (0..32).map(|_| draw()).collect())
                })
                .collect()
        };
        // Few rows inside (every row scored), then most rows inside (narrowed).
        for (count, out_every) in [(3000u32, 1usize), (narrow::NARROW_FROM as u32 + 6000, 40)] {
            let rows = rows(count, &mut draw);
            let v = vectors(&rows);
            let inside_at = |i: usize| match out_every {
                1 => i % 7 == 3 || i.is_multiple_of(28),
                every => i % every != 1,
            };
            let inside_keys: Vec<Key> = (0..rows.len())
                .filter(|&i| inside_at(i))
                .map(|i| rows[i].0)
                .collect();
            let numbers = |node: bool| -> Vec<u32> {
                (inside_keys.iter())
                    .filter_map(|k| match (*k, node) {
                        (Key::Turn(t), false) => Some(t),
                        (Key::Node(n), true) => Some(n),
                        _ => None,
                    })
                    .collect()
            };
            let set = |node| Some(fulltext::Inside::of_numbers(&numbers(node), count));
            let inside = Inside {
                turns: set(false),
                nodes: set(true),
            };
            let (mut found, mut wanted) = (0, 0);
            for q in 0..10 {
                // Near a turn's row outside: the period's best are not the best overall.
                let outside = (q * 131..).find(|&i| !inside_at(i) && i % 4 != 0).unwrap();
                let near: Vec<f64> = rows[outside].1.iter().map(|x| x + draw() / 4.0).collect();
                let q = QueryVector {
                    model: "m".into(),
                    values: near,
                };
                let (turns, nodes) = v.best(&q, 10, Some(&inside)).unwrap();
                let (all_turns, all_nodes) = v.best_of_all(&q, 10, Some(&inside)).unwrap();
                let (free_turns, _) = v.best_of_all(&q, 10, None).unwrap();
                let (turns, nodes, all_turns, all_nodes, free_turns) = (
                    keys(&turns),
                    keys(&nodes),
                    keys(&all_turns),
                    keys(&all_nodes),
                    keys(&free_turns),
                );
                assert!(turns.iter().chain(&nodes).all(|&k| inside.holds(k)));
                assert_eq!((all_turns.len(), all_nodes.len()), (10, 10));
                assert_ne!(all_turns, free_turns);
                // The exact best inside, by the cosine of every row inside.
                let (best_turn, _) = (0..rows.len())
                    .filter(|&i| inside_at(i) && matches!(rows[i].0, Key::Turn(_)))
                    .map(|i| (rows[i].0, cosine(&rows[i].1, &q.values)))
                    .fold((Key::Turn(u32::MAX), f64::MIN), |b, x| {
                        if x.1 > b.1 {
                            x
                        } else {
                            b
                        }
                    });
                assert_eq!(all_turns[0], best_turn);
                let sims = v.turn_similarities(&q, 10, Some(&inside)).unwrap();
                assert!(sims.iter().all(|&(t, _)| inside.holds(Key::Turn(t))));
                wanted += 20;
                found += turns.iter().filter(|k| all_turns.contains(k)).count();
                found += nodes.iter().filter(|k| all_nodes.contains(k)).count();
            }
            let recall = found as f64 / wanted as f64;
            assert!(recall >= 0.9, "{count} rows: {recall}");
        }
    }

    fn cosine(a: &[f64], b: &[f64]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let len = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        dot / (len(a) * len(b))
    }

    #[test]
    fn int8_embeddings_are_kept_exactly() {
        let v = [127.0, -64.0, 3.0, 0.0];
        let (q, norm) = quantised(&v).unwrap();
        assert_eq!(q, [127, -64, 3, 0]);
        assert!((norm - (127f32 * 127.0 + 64.0 * 64.0 + 9.0).sqrt()).abs() < 1e-3);
        assert!(quantised(&[0.0, 0.0]).is_none());
    }
}
