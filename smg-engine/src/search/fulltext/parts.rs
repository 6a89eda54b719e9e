//! An index's segments in the order of the document numbers they hold, and how the
//! documents an append adds join them. A build lays every document out in one
//! segment; an append adds its documents as a segment of their own after the others,
//! which keep their bytes, then merges the newest segments while the newest holds at
//! least a quarter of the documents of the one before it: sizes fall by a factor of
//! four or more from the oldest segment to the newest, so a memory of `n` turns has
//! at most about log₄ `n` segments, and a document is merged again only as often.

use tantivy::directory::{Directory, RamDirectory};
use tantivy::index::SegmentId;
use tantivy::indexer::NoMergePolicy;
use tantivy::{DocId, Index, IndexWriter, Searcher};

use super::values::{Doc, Fields, Values};
use super::{damaged, in_order, FullText, NUMBER, WRITER_BUDGET};
use crate::error::Result;

/// Merged with the segments after it once they hold a quarter of its documents.
const MERGE_RATIO: u64 = 4;

/// A segment: the documents numbered `base..base + len`, in number order.
#[derive(Clone)]
pub(super) struct Part {
    pub(super) base: u32,
    pub(super) len: u32,
    /// Its place among the searcher's segments.
    pub(super) ord: u32,
    pub(super) id: SegmentId,
    /// What it keeps beside the terms, opened once (opening a column costs more
    /// than reading thousands of values).
    pub(super) values: Values,
}

/// The segments of `searcher` that hold documents, by the first number each holds.
pub(super) fn of(searcher: &Searcher, fields: &Fields) -> tantivy::Result<Vec<Part>> {
    let mut parts = Vec::new();
    for (ord, r) in searcher.segment_readers().iter().enumerate() {
        if r.max_doc() == 0 {
            continue;
        }
        let first = r.fast_fields().u64(NUMBER)?.min_value();
        let bad = || tantivy::TantivyError::InvalidArgument("a number past u32".into());
        parts.push(Part {
            base: u32::try_from(first).map_err(|_| bad())?,
            len: r.max_doc(),
            ord: u32::try_from(ord).map_err(|_| bad())?,
            id: r.segment_id(),
            values: Values::open(r, fields)?,
        });
    }
    parts.sort_unstable_by_key(|p| p.base);
    Ok(parts)
}

/// Whether `parts` number their documents from 0 on without a gap or an overlap.
pub(super) fn contiguous(parts: &[Part]) -> bool {
    let mut next = 0u64;
    parts.iter().all(|p| {
        let fits = u64::from(p.base) == next;
        next += u64::from(p.len);
        fits
    })
}

/// The segment that holds document `n`, and `n`'s place in it.
pub(super) fn find(parts: &[Part], n: u32) -> Option<(&Part, DocId)> {
    let i = parts.partition_point(|p| p.base <= n).checked_sub(1)?;
    let p = &parts[i];
    let doc = n - p.base;
    (doc < p.len).then_some((p, doc))
}

/// How many of the newest segments to merge into one, of segments holding `sizes`
/// documents in number order (one means none).
fn to_merge(sizes: &[u32]) -> usize {
    let Some((&newest, older)) = sizes.split_last() else {
        return 0;
    };
    let mut held = u64::from(newest);
    let mut k = 1;
    for &before in older.iter().rev() {
        if held * MERGE_RATIO < u64::from(before) {
            break;
        }
        held += u64::from(before);
        k += 1;
    }
    k
}

impl FullText {
    /// This index with `docs` added after its documents (numbered from its count
    /// on), as [`FullText::build`] numbers them: its segments are kept as they are
    /// and the new documents join as a segment of their own, merged as this
    /// module's policy says. The same index and documents give the same index.
    pub(crate) fn appended<D: Into<Doc>>(&self, docs: impl IntoIterator<Item = D>) -> Result<Self> {
        let Some(inner) = &self.0 else {
            return Self::build(docs);
        };
        let copy = RamDirectory::create();
        for (name, bytes) in super::blob::files(&inner.index).map_err(damaged)? {
            copy.atomic_write(std::path::Path::new(&name), &bytes)
                .map_err(damaged)?;
        }
        let index = Index::open(copy).map_err(damaged)?;
        let mut writer: IndexWriter = index
            .writer_with_num_threads(1, WRITER_BUDGET)
            .map_err(damaged)?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        super::add_all(&index, &mut writer, docs, inner.len as u64, usize::MAX)?;
        let segments = in_order(&index).map_err(damaged)?;
        let sizes: Vec<u32> = {
            let metas = index.searchable_segment_metas().map_err(damaged)?;
            segments
                .iter()
                .map(|id| {
                    metas
                        .iter()
                        .find(|m| m.id() == *id)
                        .map_or(0, |m| m.max_doc())
                })
                .collect()
        };
        let k = to_merge(&sizes);
        if k > 1 {
            writer
                .merge(&segments[segments.len() - k..])
                .wait()
                .map_err(damaged)?;
        }
        writer.wait_merging_threads().map_err(damaged)?;
        Self::open_index(index).map_err(damaged)
    }

    /// How many segments the index has.
    #[cfg(test)]
    pub(crate) fn segments(&self) -> usize {
        self.0.as_ref().map_or(0, |i| i.parts.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_segments_merge_once_they_hold_a_quarter_of_the_one_before() {
        assert_eq!(to_merge(&[]), 0);
        assert_eq!(to_merge(&[10]), 1);
        assert_eq!(to_merge(&[1_000_000, 50]), 1);
        assert_eq!(to_merge(&[1_000_000, 50, 50]), 2);
        assert_eq!(to_merge(&[1_000_000, 150, 50]), 2);
        assert_eq!(to_merge(&[1_000_000, 200_000, 50_000]), 3);
        assert_eq!(to_merge(&[1_000_001, 200_000, 50_000]), 2);
        assert_eq!(to_merge(&[1_000_000, 200_000, 49_999]), 1);
        assert_eq!(to_merge(&[100, 30, 10]), 3);
    }

    #[test]
    fn appends_keep_segments_few_and_in_number_order() {
        let mut ix = FullText::build((0..400).map(|i| vec![format!("w{}", i % 7)])).unwrap();
        let mut most = 0;
        for round in 0..40u32 {
            let at = ix.len() as u32;
            ix = ix
                .appended((0..10).map(|i| vec![format!("new{round}"), format!("w{i}")]))
                .unwrap();
            most = most.max(ix.segments());
            let found = ix.top(&[(format!("new{round}"), 1.0)], 20, None).unwrap();
            let mut found: Vec<u32> = found.into_iter().map(|h| h.0).collect();
            found.sort_unstable();
            assert_eq!(found, (at..at + 10).collect::<Vec<u32>>(), "round {round}");
        }
        assert_eq!(ix.len(), 800);
        assert!((2..=4).contains(&most), "{most} segments");
    }
}
