//! A query of the documents whose instant falls in a range, made for intersecting
//! with a query of words. tantivy's own range over a fast field reads the column a
//! block at a time wherever the words' matches send it, and tells the intersection
//! it holds a tenth of the documents whatever the range; here the column is read once
//! per range into a set of the documents inside, whose exact size lets the
//! intersection start from whichever side is smaller, and whose look-ups cost a bit
//! each. The set is kept for the next query of the same range (a search asks several).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TantivyError};

use super::values::Values;

/// The documents of an index's one segment in a set; they score nothing.
#[derive(Clone, Debug)]
pub(super) struct Within(Arc<BitSet>);

/// A range and the documents inside it.
type Kept = (Range<i64>, Arc<BitSet>);

/// The last range asked for and the documents inside it.
#[derive(Clone, Default)]
pub(super) struct Last(Arc<Mutex<Option<Kept>>>);

impl Within {
    /// The documents below `max_doc` whose instant in `values` is in `within`, read
    /// from `last` when it holds that range.
    pub(super) fn of(values: &Values, within: &Range<i64>, max_doc: DocId, last: &Last) -> Self {
        let lock = || last.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((range, set)) = lock().as_ref() {
            if range == within && set.max_value() == max_doc {
                return Within(Arc::clone(set));
            }
        }
        // Made without the lock held: searches of other ranges need not wait for it.
        let set = Arc::new(values.inside(within, max_doc));
        *lock() = Some((within.clone(), Arc::clone(&set)));
        Within(set)
    }
}

impl Query for Within {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for Within {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        // The set is of the one segment: another (never in an index smg wrote) has
        // nothing inside.
        if reader.max_doc() != self.0.max_value() {
            return Ok(Box::new(EmptyScorer));
        }
        let docs = BitSetDocSet::from(BitSet::clone(&self.0));
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
