//! The best documents for a query without scoring every posting: MaxScore (Turtle and
//! Flood, 1995) over the skip blocks. Documents are visited in order. Terms whose most
//! together cannot lift a document into the results are "non-essential": their lists
//! are not walked, only looked up, a block jump at a time, for the documents the other
//! terms found, and a document is dropped as soon as what it could still gain cannot
//! lift it. The results are those of scoring every posting, to the last bit: each
//! document's sum is taken in the query's order, as scoring everything takes it.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{take, Bm25};

/// Headroom on bounds, which are summed in another order than scores are.
const SLACK: f64 = 1.0 + 1e-9;
/// The document of a cursor past its last posting.
const DONE: u32 = u32::MAX;

/// A place in one query term's postings.
struct Cursor<'a> {
    ix: &'a Bm25,
    /// The term's weight in the query times its idf.
    weight: f64,
    /// The most the term adds to any document.
    most: f64,
    /// Where the next posting begins in `ix.postings`, and where the term's end.
    at: usize,
    end: usize,
    /// The block of the current posting, and the end of the term's blocks.
    block: usize,
    blocks_end: usize,
    /// The current posting, `DONE` past the last.
    doc: u32,
    tf: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor on the first posting of term `t`.
    fn new(ix: &'a Bm25, t: usize, weight: f64) -> Self {
        let blocks = ix.block_starts[t]..ix.block_starts[t + 1];
        let most = ix.block_max[blocks.clone()]
            .iter()
            .fold(0.0f64, |m, &b| m.max(f64::from(b)));
        let mut c = Cursor {
            ix,
            weight,
            most: weight * most,
            at: ix.starts[t],
            end: ix.starts[t + 1],
            block: blocks.start,
            blocks_end: blocks.end,
            doc: 0,
            tf: 0,
        };
        c.advance();
        c
    }

    /// Move to the next posting.
    fn advance(&mut self) {
        let ix = self.ix;
        if self.at >= self.end {
            self.doc = DONE;
            return;
        }
        while self.block < self.blocks_end && self.at >= ix.block_end[self.block] {
            self.block += 1;
        }
        let bytes = ix.postings.get(..self.end).unwrap_or_default();
        let mut next = || take(bytes, &mut self.at);
        match (next(), next()) {
            (Some(gap), Some(tf)) if (self.doc as usize + gap as usize) < ix.lengths.len() => {
                self.doc += gap;
                self.tf = tf;
            }
            // A damaged stored index reads as fewer postings.
            _ => self.doc = DONE,
        }
    }

    /// Move to the first posting at or after document `target`, jumping over the
    /// blocks that end before it.
    fn seek(&mut self, target: u32) {
        if self.doc >= target {
            return;
        }
        let ix = self.ix;
        let rest = &ix.block_last[self.block..self.blocks_end];
        let b = self.block + rest.partition_point(|&last| last < target);
        if b == self.blocks_end {
            self.doc = DONE;
            return;
        }
        if b > self.block {
            self.at = ix.block_end[b - 1];
            self.doc = ix.block_last[b - 1];
            self.block = b;
        }
        while self.doc < target {
            self.advance();
        }
    }

    /// What the current posting adds to its document's score.
    fn score(&self) -> f64 {
        self.weight * self.ix.norm(self.tf, self.ix.lengths[self.doc as usize])
    }
}

/// A scored document, greater when better: a higher score, then the lower document.
#[derive(Clone, Copy, PartialEq)]
struct Ranked(f64, u32);

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl Bm25 {
    /// The `k` best documents for `query` (weighted terms), best first, ties to the
    /// lower document. A document's score is `scale(document, its BM25)`, which must
    /// be at most `most_scale` times its BM25.
    pub(crate) fn top(
        &self,
        query: &[(String, f64)],
        k: usize,
        scale: impl Fn(u32, f64) -> f64,
        most_scale: f64,
    ) -> Vec<(u32, f64)> {
        let mut cursors: Vec<Cursor> = query
            .iter()
            .filter_map(|(term, weight)| {
                let t = self.term(term)?;
                Some(Cursor::new(self, t, weight * self.idf(term)))
            })
            .collect();
        if k == 0 || cursors.is_empty() {
            return Vec::new();
        }
        // Terms from the least they can add to the most, and what the first i add at most.
        let mut order: Vec<usize> = (0..cursors.len()).collect();
        order.sort_by(|&a, &b| cursors[a].most.total_cmp(&cursors[b].most));
        let mut most = vec![0.0];
        for &c in &order {
            most.push(most.last().copied().unwrap_or(0.0) + cursors[c].most);
        }
        let cannot_reach =
            |bound: f64, worst: Option<f64>| worst.is_some_and(|w| bound * most_scale * SLACK < w);
        let mut best: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(k.min(1 << 16));
        let mut worst: Option<f64> = None;
        // order[..lookups] are the non-essential terms.
        let mut lookups = 0;
        let mut parts: Vec<Option<f64>> = vec![None; cursors.len()];
        loop {
            let d = order[lookups..]
                .iter()
                .map(|&c| cursors[c].doc)
                .min()
                .unwrap_or(DONE);
            if d == DONE {
                break;
            }
            parts.fill(None);
            let mut partial = 0.0;
            for &c in &order[lookups..] {
                if cursors[c].doc == d {
                    let v = cursors[c].score();
                    parts[c] = Some(v);
                    partial += v;
                    cursors[c].advance();
                }
            }
            let mut dropped = false;
            for j in (0..lookups).rev() {
                if cannot_reach(partial + most[j + 1], worst) {
                    dropped = true;
                    break;
                }
                let c = &mut cursors[order[j]];
                c.seek(d);
                if c.doc == d {
                    let v = c.score();
                    parts[order[j]] = Some(v);
                    partial += v;
                }
            }
            if dropped {
                continue;
            }
            let s = scale(d, parts.iter().flatten().fold(0.0, |sum, v| sum + v));
            if best.len() < k {
                best.push(Reverse(Ranked(s, d)));
            } else if worst.is_some_and(|w| s > w) {
                best.pop();
                best.push(Reverse(Ranked(s, d)));
            } else {
                continue;
            }
            if best.len() == k {
                worst = best.peek().map(|r| r.0 .0);
                while lookups < order.len() && cannot_reach(most[lookups + 1], worst) {
                    lookups += 1;
                }
                if lookups == order.len() {
                    break;
                }
            }
        }
        let mut out: Vec<(u32, f64)> = best
            .into_iter()
            .map(|Reverse(Ranked(s, d))| (d, s))
            .collect();
        out.sort_by_key(|&(d, s)| Reverse(Ranked(s, d)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::BLOCK;
    use super::*;
    use proptest::prelude::*;

    /// What scoring every posting gives: the `k` best, ties to the lower document.
    fn everything(
        ix: &Bm25,
        query: &[(String, f64)],
        k: usize,
        scale: impl Fn(u32, f64) -> f64,
    ) -> Vec<(u32, f64)> {
        let mut scores = ix.scores(query);
        scores.update(|d, s| *s = scale(d, *s));
        scores
            .top(k)
            .into_iter()
            .map(|(d, s)| (d as u32, s))
            .collect()
    }

    fn weighted(terms: &[&str], weights: &[f64]) -> Vec<(String, f64)> {
        terms
            .iter()
            .zip(weights.iter().cycle())
            .map(|(t, &w)| (t.to_string(), w))
            .collect()
    }

    /// Documents of words from a small vocabulary, the first words far more common
    /// than the last (as in text), long enough for several skip blocks per term.
    fn corpus() -> impl Strategy<Value = Vec<Vec<String>>> {
        let word = (0u32..400).prop_map(|r| format!("w{}", r * r / 4000));
        proptest::collection::vec(proptest::collection::vec(word, 0..12), 0..700)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn the_best_are_those_of_scoring_everything(
            docs in corpus(),
            query in proptest::collection::vec(0u32..45, 1..7),
            weights in proptest::collection::vec(0.05f64..2.0, 1..4),
            k in 1usize..40,
            scales in proptest::collection::vec(0.0f64..1.0, 1..50),
        ) {
            let ix = Bm25::new(docs);
            let names: Vec<String> = query.iter().map(|w| format!("w{w}")).collect();
            let terms: Vec<&str> = names.iter().map(String::as_str).collect();
            let q = weighted(&terms, &weights);
            prop_assert_eq!(ix.top(&q, k, |_, s| s, 1.0), everything(&ix, &q, k, |_, s| s));
            let scale = |d: u32, s: f64| s * scales[d as usize % scales.len()];
            prop_assert_eq!(ix.top(&q, k, scale, 1.0), everything(&ix, &q, k, scale));
        }
    }

    #[test]
    fn skips_blocks_and_reads_a_damaged_index_as_fewer_postings() {
        // One rare word among many common ones: its documents are found by jumps.
        let docs: Vec<Vec<String>> = (0..5000)
            .map(|d| {
                let mut words = vec!["common".to_string()];
                if d % 997 == 0 {
                    words.push("rare".into());
                }
                words
            })
            .collect();
        let mut ix = Bm25::new(docs);
        assert!(ix.block_last.len() > 5000 / BLOCK);
        let q = weighted(&["common", "rare"], &[1.0]);
        let top = ix.top(&q, 3, |_, s| s, 1.0);
        assert_eq!(top, everything(&ix, &q, 3, |_, s| s));
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 997, 1994]);
        assert!(ix.top(&q, 0, |_, s| s, 1.0).is_empty());
        assert!(ix
            .top(&weighted(&["absent"], &[1.0]), 3, |_, s| s, 1.0)
            .is_empty());
        ix.postings.truncate(ix.postings.len() / 2);
        assert!(ix.top(&q, 10, |_, s| s, 1.0).len() <= 10);
    }
}
