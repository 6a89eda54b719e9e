//! Full-text search over documents numbered from 0 (the archive's turns, the graph's
//! nodes): a tantivy index of their terms (smg's own, [`super::words`]), BM25 over
//! compressed postings — block-max WAND for a few results, every match scored for
//! many. Built in memory with one writer
//! thread into one segment, stored as one blob ([`blob`]) that is read in place: from
//! a memory-mapped packed file, nothing is copied or unpacked to open it. An append
//! adds a segment ([`parts`]).

mod blob;
mod parts;
mod reads;
mod stats;
mod values;
mod within;

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use tantivy::collector::TopDocs;
use tantivy::columnar::ColumnValues;
use tantivy::directory::{Directory, FileSlice, MmapDirectory};
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{
    BooleanQuery, BoostQuery, EnableScoring, Occur, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{
    Field, FieldType, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST,
};
use tantivy::{
    DocAddress, DocId, DocSet, HasLen, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher,
    SegmentReader, TantivyDocument, Term, TERMINATED,
};

use crate::error::Result;
pub(crate) use stats::Stats;
pub(crate) use values::{in_range, Column64, Doc, FLAG_HIT, FLAG_TIMED};
pub(crate) use within::Inside;

/// The field of a document's terms.
const TEXT: &str = "text";
/// The field of a document's number (a fast field: a hit's number without a lookup).
const NUMBER: &str = "n";
/// Bytes the writer buffers before it writes a segment (segments are then merged into
/// one, so the budget bounds memory, not the result).
const WRITER_BUDGET: usize = 128 << 20;
/// The most results a query finds by pruning (block-max WAND); for more, the bar a
/// result must pass stays so low that scoring every match is faster.
const PRUNED_MOST: usize = 100;
/// Documents from which a segment's matches are scored in two halves side by side.
const SPLIT_FROM: u32 = 1 << 16;

/// A full-text index; empty (no documents) by default.
#[derive(Default, Clone)]
pub(crate) struct FullText(Option<Inner>);

#[derive(Clone)]
struct Inner {
    index: Index,
    searcher: Searcher,
    text: Field,
    /// Per segment: each document's number (opened once: opening a column costs
    /// more than reading thousands of values).
    numbers: Vec<Arc<dyn ColumnValues<u64>>>,
    /// The segments that hold documents, in number order, with what each keeps
    /// beside the terms.
    parts: Vec<parts::Part>,
    /// The documents inside the last time range a query kept to.
    last_within: within::Last,
    /// The field of the documents' keys.
    key: Field,
    len: usize,
}

impl std::fmt::Debug for FullText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FullText({} documents)", self.len())
    }
}

fn schema() -> Schema {
    let mut b = Schema::builder();
    // Terms arrive made (stemmed, stopwords out; never a space in one), joined by
    // spaces for tantivy's whitespace tokenizer to split again — cheaper than its
    // pre-tokenized text, which goes to the indexing thread as JSON. Positions are not
    // kept (no query here asks for a phrase).
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("whitespace")
        .set_index_option(IndexRecordOption::WithFreqs);
    b.add_text_field(TEXT, TextOptions::default().set_indexing_options(indexing));
    b.add_u64_field(NUMBER, FAST);
    values::add_fields(&mut b);
    b.build()
}

/// A tantivy failure as the engine's error: the index is the engine's own, so one
/// that cannot be written or read is damaged (`SMG-E006`).
fn damaged(e: impl std::fmt::Display) -> crate::Error {
    super::frames::damaged(e.to_string())
}

impl FullText {
    /// Index `docs` (each its terms, or a [`Doc`] with what is kept beside them);
    /// the same documents give the same index, byte for byte ([`FullText::to_bytes`]).
    pub(crate) fn build<D: Into<Doc>>(docs: impl IntoIterator<Item = D>) -> Result<Self> {
        Self::build_committing(docs, usize::MAX)
    }

    /// [`FullText::build`], committing after every `every` documents (a segment each,
    /// merged into one at the end as the segments the writer's budget makes are).
    fn build_committing<D: Into<Doc>>(
        docs: impl IntoIterator<Item = D>,
        every: usize,
    ) -> Result<Self> {
        let index = Index::create_in_ram(schema());
        let mut writer: IndexWriter = index
            .writer_with_num_threads(1, WRITER_BUDGET)
            .map_err(damaged)?;
        // Merges only when asked, so that what is written does not depend on timing.
        writer.set_merge_policy(Box::new(NoMergePolicy));
        add_all(&index, &mut writer, docs, 0, every)?;
        let segments = in_order(&index).map_err(damaged)?;
        if segments.len() > 1 {
            writer.merge(&segments).wait().map_err(damaged)?;
        }
        writer.wait_merging_threads().map_err(damaged)?;
        Self::open_index(index).map_err(damaged)
    }

    /// Read an index [`FullText::to_bytes`] made, in place; `None` when the bytes are
    /// not one.
    pub(crate) fn open(bytes: FileSlice) -> Option<Self> {
        let dir = blob::BlobDirectory::open(bytes).ok()?;
        let open = || Self::open_index(Index::open(dir)?);
        let text = catch_unwind(AssertUnwindSafe(open)).ok()?.ok()?;
        text.holds_together().then_some(text)
    }

    /// [`FullText::open`] over bytes in memory.
    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        Self::open(FileSlice::from(bytes.to_vec()))
    }

    fn open_index(index: Index) -> tantivy::Result<Self> {
        let schema = index.schema();
        let not_smg = || tantivy::TantivyError::SchemaError("not smg's schema".into());
        let (text, _) = fields(&schema).ok_or_else(not_smg)?;
        let kept = values::Fields::of(&schema).ok_or_else(not_smg)?;
        let reader: IndexReader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let searcher = reader.searcher();
        let len = usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX);
        let numbers = searcher
            .segment_readers()
            .iter()
            .map(|r| Ok(r.fast_fields().u64(NUMBER)?.first_or_default_col(0)))
            .collect::<tantivy::Result<_>>()?;
        let parts = parts::of(&searcher, &kept)?;
        Ok(FullText(Some(Inner {
            index,
            searcher,
            text,
            numbers,
            parts,
            key: kept.key,
            last_within: within::Last::default(),
            len,
        })))
    }

    /// The index as one blob, to store.
    pub(crate) fn to_bytes(&self) -> Result<Vec<u8>> {
        match &self.0 {
            Some(inner) => blob::pack(&inner.index).map_err(damaged),
            None => blob::pack(&Index::create_in_ram(schema())).map_err(damaged),
        }
    }

    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |i| i.len)
    }

    /// Whether a stored index holds together: segments that number their documents
    /// from 0 on, one after another, every document once, each numbered below
    /// their count.
    fn holds_together(&self) -> bool {
        let Some(inner) = &self.0 else {
            return true;
        };
        let readers = inner.searcher.segment_readers();
        let numbered = |(r, c): (&tantivy::SegmentReader, &Arc<dyn ColumnValues<u64>>)| {
            let below = || c.num_vals() == r.max_doc() && c.max_value() < inner.len as u64;
            r.max_doc() == 0 || catch_unwind(AssertUnwindSafe(below)).unwrap_or(false)
        };
        let laid_out = |p: &parts::Part| {
            let last = || inner.numbers.get(p.ord as usize).map(|c| c.max_value());
            let last = catch_unwind(AssertUnwindSafe(last)).ok().flatten();
            last == Some(u64::from(p.base) + u64::from(p.len) - 1)
        };
        parts::contiguous(&inner.parts)
            && inner.parts.iter().all(laid_out)
            && readers.iter().all(|r| !r.has_deletes())
            && readers.iter().map(|r| r.max_doc() as usize).sum::<usize>() == inner.len
            && readers.iter().zip(&inner.numbers).all(numbered)
    }

    /// How many documents hold `term` (none, in a damaged index that cannot tell).
    pub(crate) fn df(&self, term: &str) -> usize {
        self.0.as_ref().map_or(0, |i| {
            let term = Term::from_field_text(i.text, term);
            guarded(|| i.searcher.doc_freq(&term))
                .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    /// The `k` best documents for `query` (weighted terms) by BM25, best first, ties
    /// to the lower number; with `within`, among those whose instant is in it (ms, end
    /// excluded) alone.
    pub(crate) fn top(
        &self,
        query: &[(String, f64)],
        k: usize,
        within: Option<&Range<i64>>,
    ) -> Result<Vec<(u32, f64)>> {
        self.top_with(query, k, within, None)
    }

    /// [`FullText::top`], each term weighed by `stats` (those of a network of
    /// indexes) when given rather than by this index's own.
    pub(crate) fn top_with(
        &self,
        query: &[(String, f64)],
        k: usize,
        within: Option<&Range<i64>>,
        stats: Option<&Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        let Some((inner, q)) = self.query(query, within).filter(|_| k > 0) else {
            return Ok(Vec::new());
        };
        if k > PRUNED_MOST {
            return Ok(distinct(inner.selected(&q, k, stats)?));
        }
        let best: Vec<(u32, f64)> = guarded(|| {
            let collector = TopDocs::with_limit(k).order_by_score();
            let found = match stats {
                Some(stats) => inner.searcher.search_with_statistics_provider(
                    &q,
                    &collector,
                    &stats.provider(inner.text),
                )?,
                None => inner.searcher.search(&q, &collector)?,
            };
            Ok(found
                .into_iter()
                .filter_map(|(score, at)| Some((inner.number_of(at)?, f64::from(score))))
                .collect())
        })?;
        Ok(distinct(best))
    }

    /// The `k` best matches of [`FullText::top_with`], each number once, in
    /// ascending order of number rather than best first: the candidates a search's
    /// turn rules run on (which go in turn order), without sorting them twice.
    pub(crate) fn candidates(
        &self,
        query: &[(String, f64)],
        k: usize,
        within: Option<&Range<i64>>,
        stats: Option<&Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        let mut best = if k > PRUNED_MOST {
            let Some((inner, q)) = self.query(query, within) else {
                return Ok(Vec::new());
            };
            inner.selected(&q, k, stats)?
        } else {
            self.top_with(query, k, within, stats)?
        };
        // By number, the best of a number first, that one kept.
        best.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        best.dedup_by_key(|h| h.0);
        Ok(best)
    }

    /// Every document that matches `query` (and whose instant is in `within`, when
    /// given), scored `scale(number, BM25)`, and the `k` best of them, best first, ties
    /// to the lower number: for a ranking that weighs each document (the graph's
    /// nodes), where pruning by BM25 alone would be wrong. `stats`, when given, weigh
    /// the terms (those of several indexes, as [`FullText::top_with`]).
    pub(crate) fn top_scaled(
        &self,
        query: &[(String, f64)],
        k: usize,
        within: Option<&Range<i64>>,
        stats: Option<&Stats>,
        scale: impl Fn(u32, f64) -> f64,
    ) -> Result<Vec<(u32, f64)>> {
        let Some((inner, q)) = self.query(query, within) else {
            return Ok(Vec::new());
        };
        let all = inner.matches(&q, usize::MAX, stats)?;
        let all = all
            .into_iter()
            .filter_map(|(d, s)| inner.number(d).map(|n| (n, scale(n, s))))
            .collect();
        Ok(distinct(best_of(all, k)))
    }

    /// The query of `terms`, each term once with the sum of its weights, and with
    /// `within` a document's instant in it (a range over the time column, which adds
    /// nothing to the score); `None` when no term can match.
    fn query(
        &self,
        terms: &[(String, f64)],
        within: Option<&Range<i64>>,
    ) -> Option<(&Inner, BooleanQuery)> {
        let inner = self.0.as_ref()?;
        let mut weights: Vec<(&str, f64)> = Vec::new();
        for (t, w) in terms {
            match weights.iter_mut().find(|(x, _)| x == t) {
                Some(e) => e.1 += w,
                None => weights.push((t, *w)),
            }
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = weights
            .into_iter()
            .filter(|&(_, w)| w > 0.0)
            .map(|(t, w)| {
                let term = TermQuery::new(
                    Term::from_field_text(inner.text, t),
                    IndexRecordOption::WithFreqs,
                );
                let q: Box<dyn Query> = Box::new(BoostQuery::new(Box::new(term), w as f32));
                (Occur::Should, q)
            })
            .collect();
        if clauses.is_empty() {
            return None;
        }
        let words = BooleanQuery::new(clauses);
        let Some(within) = within else {
            return Some((inner, words));
        };
        if within.start >= within.end {
            return None;
        }
        let range: Box<dyn Query> =
            Box::new(within::Within::of(&inner.parts, within, &inner.last_within));
        let both = vec![
            (Occur::Must, Box::new(words) as Box<dyn Query>),
            (Occur::Must, range),
        ];
        Some((inner, BooleanQuery::new(both)))
    }
}

impl Inner {
    /// The `k` best of every match of `q` (scored by `stats` when given), by
    /// number, in no order: what a query for more than [`PRUNED_MOST`] finds.
    fn selected(
        &self,
        q: &BooleanQuery,
        k: usize,
        stats: Option<&Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        let mut all = self.matches(q, k, stats)?;
        if k < all.len() {
            all.select_nth_unstable_by(k, better);
            all.truncate(k);
        }
        Ok(all
            .into_iter()
            .filter_map(|(d, s)| Some((self.number(d)?, s)))
            .collect())
    }

    /// The documents that match `q` (their places in the index: see
    /// [`Inner::number`]), with their scores, in no order: every one, or at least the
    /// `keep` best; each term weighed by `stats` when given.
    fn matches(
        &self,
        q: &BooleanQuery,
        keep: usize,
        stats: Option<&Stats>,
    ) -> Result<Vec<(u32, f64)>> {
        guarded(|| {
            let provider = stats.map(|s| s.provider(self.text));
            let scoring = match &provider {
                Some(p) => EnableScoring::enabled_from_statistics_provider(p, &self.searcher),
                None => EnableScoring::enabled_from_searcher(&self.searcher),
            };
            let weight = q.weight(scoring)?;
            let mut all = Vec::new();
            let mut base = 0u32;
            for reader in self.searcher.segment_readers() {
                // Two halves of a large segment side by side: a query of common
                // words matches much of a large archive.
                if reader.max_doc() < SPLIT_FROM {
                    all.extend(scored(
                        weight.as_ref(),
                        reader,
                        (0, TERMINATED),
                        base,
                        keep,
                    )?);
                } else {
                    let mid = reader.max_doc() / 2;
                    let (low, high) = rayon::join(
                        || scored(weight.as_ref(), reader, (0, mid), base, keep),
                        || scored(weight.as_ref(), reader, (mid, TERMINATED), base, keep),
                    );
                    all.extend(low?);
                    all.extend(high?);
                }
                base += reader.max_doc();
            }
            Ok(all)
        })
    }

    /// The number of the document at place `at` in the index, segment after segment;
    /// `None` for one past the documents or numbered past them (a damaged index).
    fn number(&self, mut at: u32) -> Option<u32> {
        for (segment, reader) in self.searcher.segment_readers().iter().enumerate() {
            if at < reader.max_doc() {
                return self.number_of(DocAddress::new(segment as u32, at));
            }
            at -= reader.max_doc();
        }
        None
    }

    /// The number of the document at `at`; `None` for one numbered past the documents
    /// or in a damaged column.
    fn number_of(&self, at: DocAddress) -> Option<u32> {
        let column = self.numbers.get(at.segment_ord as usize)?;
        let n = catch_unwind(AssertUnwindSafe(|| column.get_val(at.doc_id))).ok()?;
        u32::try_from(n).ok().filter(|&n| (n as usize) < self.len)
    }
}

/// `docs` added to `index` by `writer`, numbered from `first` on, committed after
/// every `every` of them and at the end.
fn add_all<D: Into<Doc>>(
    index: &Index,
    writer: &mut IndexWriter,
    docs: impl IntoIterator<Item = D>,
    first: u64,
    every: usize,
) -> Result<()> {
    let schema = index.schema();
    let (text, number) = fields(&schema).ok_or_else(|| damaged("schema"))?;
    let kept = values::Fields::of(&schema).ok_or_else(|| damaged("schema"))?;
    for (n, given) in docs.into_iter().enumerate() {
        let given: Doc = given.into();
        let mut doc = TantivyDocument::default();
        kept.add(&given, &mut doc);
        doc.add_text(text, given.terms.join(" "));
        doc.add_u64(number, first + n as u64);
        writer.add_document(doc).map_err(damaged)?;
        if (n + 1) % every == 0 {
            writer.commit().map_err(damaged)?;
        }
    }
    writer.commit().map_err(damaged)?;
    Ok(())
}

/// The segments of `index`, in the order of the documents they hold: tantivy lists
/// them in no set order, and a merge lays documents out in the order it is given.
fn in_order(index: &Index) -> tantivy::Result<Vec<tantivy::index::SegmentId>> {
    let reader: IndexReader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()?;
    let searcher = reader.searcher();
    let mut first: Vec<(u64, tantivy::index::SegmentId)> = searcher
        .segment_readers()
        .iter()
        .map(|r| Ok((r.fast_fields().u64(NUMBER)?.min_value(), r.segment_id())))
        .collect::<tantivy::Result<_>>()?;
    first.sort_unstable_by_key(|&(n, _)| n);
    Ok(first.into_iter().map(|(_, id)| id).collect())
}

/// The file at `path`, memory-mapped, when it is `len` bytes long (one replaced since
/// it was opened is not read).
pub(crate) fn map_file(path: &Path, len: u64) -> Option<FileSlice> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file = MmapDirectory::open(folder)
        .ok()?
        .open_read(Path::new(path.file_name()?))
        .ok()?;
    (file.len() as u64 == len).then_some(file)
}

/// The text and number fields of `schema`, when it is smg's.
fn fields(schema: &Schema) -> Option<(Field, Field)> {
    let text = schema.get_field(TEXT).ok()?;
    let number = schema.get_field(NUMBER).ok()?;
    let entry = |f: Field| schema.get_field_entry(f).field_type().clone();
    let text_ok = matches!(entry(text), FieldType::Str(o) if o.get_indexing_options().is_some());
    let number_ok = matches!(entry(number), FieldType::U64(o) if o.is_fast());
    (text_ok && number_ok).then_some((text, number))
}

/// The documents of `reader` in `range` (from, to before) that `weight` matches, as
/// (`base` + document, score): every one, or at least the `keep` best. Whenever twice
/// `keep` are held, the best `keep` are kept and a match must score as well as the
/// last of them to join.
fn scored(
    weight: &dyn Weight,
    reader: &SegmentReader,
    (from, to): (DocId, DocId),
    base: u32,
    keep: usize,
) -> tantivy::Result<Vec<(u32, f64)>> {
    let mut scorer = weight.scorer(reader, 1.0)?;
    let mut doc = if scorer.doc() < from {
        scorer.seek(from)
    } else {
        scorer.doc()
    };
    let mut out = Vec::new();
    let mut bar = f64::NEG_INFINITY;
    let most = keep.saturating_mul(2).max(1024);
    while doc < to {
        let score = f64::from(scorer.score());
        if score >= bar {
            out.push((base + doc, score));
            if out.len() >= most {
                out.select_nth_unstable_by(keep - 1, better);
                out.truncate(keep);
                bar = out[keep - 1].1;
            }
        }
        doc = scorer.advance();
    }
    Ok(out)
}

/// Best first, ties to the lower number.
fn sort_best(hits: &mut [(u32, f64)]) {
    hits.sort_unstable_by(better);
}

fn better(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// `hits` best first, ties to the lower number, each number once (its best): numbers
/// are distinct in an index smg wrote, but one read from a file may be damaged.
fn distinct(mut hits: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
    sort_best(&mut hits);
    let mut seen = std::collections::HashSet::with_capacity(hits.len());
    hits.retain(|h| seen.insert(h.0));
    hits
}

/// The `k` best of `all`, best first, ties to the lower number.
fn best_of(mut all: Vec<(u32, f64)>, k: usize) -> Vec<(u32, f64)> {
    if k < all.len() {
        all.select_nth_unstable_by(k, better);
        all.truncate(k);
    }
    sort_best(&mut all);
    all
}

/// `f`, run over an index read from a file: a damaged index is an error (`SMG-E006`)
/// even where tantivy would panic on it.
fn guarded<T>(f: impl FnOnce() -> tantivy::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(damaged),
        Err(_) => Err(damaged("the index could not be read")),
    }
}

#[cfg(test)]
mod tests;
