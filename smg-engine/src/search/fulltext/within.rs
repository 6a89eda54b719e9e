//! A query of the documents whose instant falls in a range, made for intersecting
//! with a query of words. tantivy's own range over a fast field reads the column a
//! block at a time wherever the words' matches send it, and tells the intersection
//! it holds a tenth of the documents whatever the range; here the column is read once
//! per range into a set of the documents inside, whose exact size lets the
//! intersection start from whichever side is smaller, and whose look-ups cost a bit
//! each. The set is kept for the next query of the same range (a search asks several,
//! and its search by meaning looks its rows up in the same set).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use tantivy::index::SegmentId;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TantivyError};

use super::parts::Part;

/// The documents of each of an index's segments in a set; they score nothing.
#[derive(Clone, Debug)]
pub(super) struct Within(Arc<Sets>);

/// Each segment's set.
type Sets = Vec<(SegmentId, BitSet)>;

/// A range and the documents inside it.
type Kept = (Range<i64>, Arc<Sets>);

/// The last range asked for and the documents inside it.
#[derive(Clone, Default)]
pub(super) struct Last(Arc<Mutex<Option<Kept>>>);

/// The documents inside a range, by number: each segment's set beside its first
/// number.
#[derive(Clone, Debug)]
pub(crate) struct Inside {
    sets: Arc<Sets>,
    bases: Vec<u32>,
}

impl Inside {
    /// The documents of `parts` whose instant is in `within` ([`Within::of`]).
    pub(super) fn of(parts: &[Part], within: &Range<i64>, last: &Last) -> Self {
        let Within(sets) = Within::of(parts, within, last);
        let bases = parts.iter().map(|p| p.base).collect();
        Inside { sets, bases }
    }

    /// Whether document `n` is inside.
    pub(crate) fn contains(&self, n: u32) -> bool {
        let Some(k) = self.bases.partition_point(|&b| b <= n).checked_sub(1) else {
            return false;
        };
        let (doc, set) = (n - self.bases[k], &self.sets[k].1);
        doc < set.max_value() && set.contains(doc)
    }

    /// How many documents are inside.
    pub(crate) fn len(&self) -> usize {
        self.sets.iter().map(|(_, set)| set.len()).sum()
    }

    /// The documents `inside` of one segment of `count`.
    #[cfg(test)]
    pub(crate) fn of_numbers(inside: &[u32], count: u32) -> Self {
        let mut set = BitSet::with_max_value(count);
        inside.iter().for_each(|&n| {
            set.insert(n);
        });
        let sets = vec![(SegmentId::generate_random(), set)];
        Inside {
            sets: Arc::new(sets),
            bases: vec![0],
        }
    }
}

impl Within {
    /// The documents of `parts` whose instant is in `within`, read from `last` when
    /// it holds that range (of the same segments).
    pub(super) fn of(parts: &[Part], within: &Range<i64>, last: &Last) -> Self {
        let lock = || last.0.lock().unwrap_or_else(|e| e.into_inner());
        let same = |sets: &Sets| {
            sets.len() == parts.len()
                && sets
                    .iter()
                    .zip(parts)
                    .all(|((id, set), p)| *id == p.id && set.max_value() == p.len)
        };
        if let Some((range, sets)) = lock().as_ref() {
            if range == within && same(sets) {
                return Within(Arc::clone(sets));
            }
        }
        // Made without the lock held: searches of other ranges need not wait for it.
        let sets: Sets = parts
            .iter()
            .map(|p| (p.id, p.values.inside(within, p.len)))
            .collect();
        let sets = Arc::new(sets);
        *lock() = Some((within.clone(), Arc::clone(&sets)));
        Within(sets)
    }
}

impl Query for Within {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for Within {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        // A segment without a set (one that holds no documents) has nothing inside.
        let id = reader.segment_id();
        let Some((_, set)) = self.0.iter().find(|(s, _)| *s == id) else {
            return Ok(Box::new(EmptyScorer));
        };
        if reader.max_doc() != set.max_value() {
            return Ok(Box::new(EmptyScorer));
        }
        let docs = BitSetDocSet::from(BitSet::clone(set));
        Ok(Box::new(ConstScorer::new(docs, 0.0)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} is not inside the range"
            )));
        }
        Ok(Explanation::new("inside the range", 0.0))
    }
}
