//! Reads of what an index keeps beside the terms, by document number, whichever
//! segment holds the document.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, Term};

use super::parts::Part;
use super::values::{Column64, Values};

/// Reads of what is kept beside the terms, by document number. A value of a number
/// past the documents, or of a damaged index, is `None` (never a panic).
impl super::FullText {
    /// The segment of document `n` and its place there: documents are laid out in
    /// number order (one writer thread, segments merged in order).
    fn at(&self, n: u32) -> Option<(&super::Inner, &Part, DocId)> {
        let inner = self.0.as_ref()?;
        let (part, doc) = super::parts::find(&inner.parts, n)?;
        Some((inner, part, doc))
    }

    fn read<T>(&self, n: u32, f: impl FnOnce(&Values, DocId) -> Option<T>) -> Option<T> {
        let read = || {
            let (_, part, doc) = self.at(n)?;
            f(&part.values, doc)
        };
        catch_unwind(AssertUnwindSafe(read)).ok().flatten()
    }

    /// Document `n`'s number in column `c`.
    pub(crate) fn number(&self, c: Column64, n: u32) -> Option<u64> {
        self.read(n, |v, d| v.number(c, d))
    }

    /// Column `c` of documents `ns`, each `None` past the documents: a pass over
    /// each segment's.
    pub(crate) fn numbers(&self, c: Column64, ns: &[u32]) -> Vec<Option<u64>> {
        let read = || {
            let inner = self.0.as_ref()?;
            let mut out = vec![None; ns.len()];
            for part in &inner.parts {
                let (at, docs): (Vec<usize>, Vec<DocId>) = ns
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &n)| Some((i, n.checked_sub(part.base)?)))
                    .filter(|&(_, d)| d < part.len)
                    .unzip();
                for (i, v) in at.into_iter().zip(part.values.numbers(c, &docs)) {
                    out[i] = v;
                }
            }
            Some(out)
        };
        catch_unwind(AssertUnwindSafe(read))
            .ok()
            .flatten()
            .unwrap_or_else(|| vec![None; ns.len()])
    }

    /// Whether document `n` has `flag` ([`super::FLAG_TIMED`], [`super::FLAG_HIT`]).
    pub(crate) fn flag(&self, flag: u64, n: u32) -> bool {
        self.number(Column64::Flags, n)
            .is_some_and(|f| f & flag != 0)
    }

    /// Document `n`'s instant (ms).
    pub(crate) fn time(&self, n: u32) -> Option<i64> {
        self.read(n, |v, d| v.time(d))
    }

    /// Document `n`'s weight.
    pub(crate) fn weight(&self, n: u32) -> Option<f64> {
        self.read(n, |v, d| v.weight(d))
    }

    /// The documents document `n` links to, with the links' strengths.
    pub(crate) fn links(&self, n: u32) -> Vec<(u32, f64)> {
        self.read(n, |v, d| Some(v.links(d))).unwrap_or_default()
    }

    /// How many links document `n` has.
    pub(crate) fn link_count(&self, n: u32) -> usize {
        self.read(n, |v, d| Some(v.link_count(d))).unwrap_or(0)
    }

    /// The document whose key is `key`, if any.
    pub(crate) fn find(&self, key: &str) -> crate::error::Result<Option<u32>> {
        let Some(inner) = self.0.as_ref() else {
            return Ok(None);
        };
        let term = Term::from_field_text(inner.key, key);
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        let found = super::guarded(|| {
            inner
                .searcher
                .search(&query, &TopDocs::with_limit(1).order_by_score())
        })?;
        Ok(found.first().and_then(|&(_, at)| inner.number_of(at)))
    }

    /// The latest instant of the documents.
    pub(crate) fn latest(&self) -> Option<i64> {
        let parts = &self.0.as_ref()?.parts;
        let latest = || parts.iter().filter_map(|p| p.values.latest()).max();
        catch_unwind(AssertUnwindSafe(latest)).ok().flatten()
    }

    /// The documents whose instant is in `within` (ms, end excluded), as a set: the
    /// one a search of words in that range uses, made once for both.
    pub(crate) fn inside(&self, within: &Range<i64>) -> Option<super::within::Inside> {
        let inner = self.0.as_ref()?;
        let of = || super::within::Inside::of(&inner.parts, within, &inner.last_within);
        catch_unwind(AssertUnwindSafe(of)).ok()
    }

    /// The documents whose instant is in `within` (ms, end excluded), in number
    /// order: a scan of the time column, nothing else read.
    pub(crate) fn timed_within(&self, within: Range<i64>) -> Vec<u32> {
        self.scan(|values, docs| values.timed_within(within.clone(), docs))
    }

    /// What `f` finds among each segment's documents, by number in order; none in a
    /// damaged index.
    fn scan(&self, f: impl Fn(&Values, Range<DocId>) -> Vec<DocId>) -> Vec<u32> {
        let Some(inner) = self.0.as_ref() else {
            return Vec::new();
        };
        let all = || {
            let found = inner.parts.iter().map(|p| {
                let docs = f(&p.values, 0..p.len);
                docs.into_iter().map(move |d| p.base + d)
            });
            found.flatten().collect()
        };
        catch_unwind(AssertUnwindSafe(all)).unwrap_or_default()
    }

    /// Document `n`'s record (empty when it has none); a number past the documents
    /// or a record that cannot be read is `SMG-E006`.
    pub(crate) fn record(&self, n: u32) -> crate::error::Result<Vec<u8>> {
        let (inner, part, doc) = self
            .at(n)
            .ok_or_else(|| super::damaged(format!("no document {n} in the index")))?;
        super::guarded(|| {
            part.values
                .record(&inner.searcher, DocAddress::new(part.ord, doc))
        })
    }
}
