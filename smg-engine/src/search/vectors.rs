//! The file's embeddings (SMG §9.2), for a caller that brings the query's embedding
//! from the same model: cosine similarity over every embedded turn and node.

use std::collections::HashMap;

use smg_format::Document;

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

/// Embedded turns and nodes, unit length.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Vectors {
    model: Option<String>,
    dimensions: usize,
    rows: Vec<(Key, Vec<f32>)>,
}

fn unit(v: &[f64]) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| v.iter().map(|x| (x / norm) as f32).collect())
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
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
        let rows = index
            .embeddings
            .iter()
            .flatten()
            .filter(|e| e.vector.len() == dimensions)
            .filter_map(|e| {
                let key = match (e.turn, e.node_id.as_deref()) {
                    (Some(t), _) => Key::Turn(*turns.get(&t.get())? as u32),
                    (None, Some(id)) => Key::Node(*nodes.get(id)?),
                    (None, None) => return None,
                };
                Some((key, unit(&e.vector)?))
            })
            .collect();
        Some(Vectors {
            model: index.model.clone(),
            dimensions,
            rows,
        })
    }

    /// Whether every row names a turn below `turns` or a node below `nodes`.
    pub(crate) fn keys_below(&self, turns: usize, nodes: usize) -> bool {
        self.rows.iter().all(|(k, v)| {
            v.len() == self.dimensions
                && match *k {
                    Key::Turn(i) => (i as usize) < turns,
                    Key::Node(i) => (i as usize) < nodes,
                }
        })
    }

    /// `query` as a unit vector, when it is of the file's model and size
    /// (`SMG-E230` otherwise).
    fn checked(&self, query: &QueryVector) -> Result<Vec<f32>> {
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
        unit(&query.values).ok_or_else(|| Error::Vector("the query vector has no direction".into()))
    }

    /// The cosine similarity of `query` to every embedded turn, by turn position.
    pub(crate) fn turn_similarities(&self, query: &QueryVector) -> Result<Vec<(u32, f64)>> {
        let q = self.checked(query)?;
        Ok(self
            .rows
            .iter()
            .filter_map(|(k, v)| match *k {
                Key::Turn(i) => Some((i, f64::from(dot(v, &q)))),
                Key::Node(_) => None,
            })
            .collect())
    }

    /// The `n` rows most similar to `query` (cosine), best first; ties to the
    /// earlier row. A query of another model or size is `SMG-E230`.
    pub(crate) fn rank(&self, query: &QueryVector, n: usize) -> Result<Vec<(Key, f64)>> {
        let q = self.checked(query)?;
        let mut scored: Vec<(usize, f64)> = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, (_, v))| (i, f64::from(dot(v, &q))))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(scored
            .into_iter()
            .take(n)
            .map(|(i, s)| (self.rows[i].0, s))
            .collect())
    }
}
