//! Merge two memories forked from one base (spec §17.3): the format's three-way merge
//! of what people and agents wrote, the union of both archives and vaults, then what
//! ingest derives (its graph, working memory, counts) built again from the merged
//! archive, exactly as one ingest of both sides' new turns would build it.
//!
//! ```
//! use smg_engine::{ingest::{ingest, IngestOptions, Silent}, merge::merge};
//! use smg_import::{read, Format, Input};
//! use smg_format::{merge::MergeOptions, Document};
//! let line = |id: &str, time: &str, text: &str| format!(
//!     "{{\"conversation_id\":\"c\",\"message_id\":\"{id}\",\"role\":\"user\",\"timestamp\":\"{time}\",\"content\":\"{text}\"}}\n");
//! let grow = |doc: &Document, text: String| {
//!     let mut doc = doc.clone();
//!     let got = read(Input::bytes("chat.jsonl", text.into_bytes()), Format::Jsonl, false).unwrap();
//!     ingest(&mut doc, vec![got], &IngestOptions::default(), &Silent).unwrap();
//!     doc
//! };
//! let base = grow(&Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z")), line("1", "2025-01-01T10:00:00Z", "We decided to use Postgres."));
//! let ours = grow(&base, line("2", "2025-01-02T10:00:00Z", "I prefer tea."));
//! let theirs = grow(&base, line("3", "2025-01-03T10:00:00Z", "My sister lives in Lyon."));
//! let merged = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
//! assert!(merged.conflicts.is_empty());
//! assert_eq!(merged.report.turns.ours + merged.report.turns.theirs, 2);
//! ```

use std::borrow::Cow;

use smg_format::archive::ArchivedTurn;
use smg_format::merge::{Conflict, Lean, MergeOptions, MergeReport, Merged};
use smg_format::model::Node;
use smg_format::{Document, WriteOptions};

use crate::error::Result;
use crate::ingest::{self, Analysed, IngestOptions, Read};
use crate::search::Retriever;

/// Merge `ours` and `theirs`, both changed from `base`, and derive again what the
/// merged archive gives; returns the merged document, conflicts of authored content
/// only, and what was taken from each side. Files written before derived ids were
/// stable are migrated first ([`ingest::migrate`]).
pub fn merge(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> Result<Merged> {
    let (mut merged, recent, analysed) = merge_authored(base, ours, theirs, options)?;
    let turns = read(merged.turns.take(), analysed);
    if merged.report.rederive && ingested([base, ours, theirs]) {
        let options = derive_options(options, recent);
        ingest::derive(&mut merged.document, turns, &options)?
            .1
            .free_later();
    }
    Ok(merged)
}

/// A merge as [`merge_into_bytes`] gives it: the file's bytes when nothing is left
/// unsettled.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MergedBytes {
    /// The merged file encoded as asked; `None` while a conflict is unsettled.
    pub bytes: Option<Vec<u8>>,
    /// Every conflict of authored content, settled or not.
    pub conflicts: Vec<Conflict>,
    /// What was taken from each side.
    pub report: MergeReport,
    /// Derived nodes built again from the merged archive (0 when none needed to be).
    pub rederived: usize,
}

/// [`merge`] of `docs` (base, ours, theirs), encoded as `write` says: the same bytes,
/// sooner. As in [`ingest::ingest_into_bytes`], the merged vault and archive are
/// compressed while the graph is derived again. The three documents are freed once
/// merged, beside the derivation: at 100 MB files they hold gigabytes, which the
/// derivation's allocations then reuse.
pub fn merge_into_bytes(
    docs: [Document; 3],
    options: &MergeOptions,
    write: &WriteOptions,
) -> Result<MergedBytes> {
    let authored = whole_authored(docs.each_ref(), options)?;
    let (out, settled) = settle(docs, authored, options)?;
    encode(out, settled, options, write)
}

/// [`merge_into_bytes`] for memories that keep a search index: written with `write`
/// (the packed layout, else `SMG-E020`) with an index of the merge, made from the
/// turns the derivation held rather than from the merged archive decoded again. What
/// `smg merge` writes when ours stores an index.
pub fn merge_into_indexed_bytes(
    docs: [Document; 3],
    options: &MergeOptions,
    write: &WriteOptions,
) -> Result<MergedBytes> {
    crate::search::packed_only(write.encoding)?;
    let authored = whole_authored(docs.each_ref(), options)?;
    let (out, settled) = settle(docs, authored, options)?;
    encode_indexed(out, settled, options, write)
}

/// What [`merge_lean_into_bytes`] gives.
#[derive(Debug)]
pub enum LeanMerged {
    /// The merge, as the same documents read whole merge.
    Merged(MergedBytes),
    /// The merge needs what was left out: the documents, given back, are to be read
    /// whole ([`Lean::into_whole`] keeps those that were) and merged so.
    ReadWhole(Box<[Lean; 3]>),
}

/// [`merge_into_bytes`] (or, with `indexed`, [`merge_into_indexed_bytes`]) of
/// documents read lean ([`Lean`]): the bytes a merge of the same documents read whole
/// gives, without their derived graphs parsed. The merge needs those (and gives the
/// documents back) when a side changed nothing, when the archives are not a new
/// union, or when a file is from before derived ids were stable.
pub fn merge_lean_into_bytes(
    docs: [Lean; 3],
    options: &MergeOptions,
    write: &WriteOptions,
    indexed: bool,
) -> Result<LeanMerged> {
    if indexed {
        crate::search::packed_only(write.encoding)?;
    }
    let Some(authored) = lean_authored(&docs, options)? else {
        return Ok(LeanMerged::ReadWhole(Box::new(docs)));
    };
    let (out, settled) = settle(docs, authored, options)?;
    Ok(LeanMerged::Merged(if indexed {
        encode_indexed(out, settled, options, write)?
    } else {
        encode(out, settled, options, write)?
    }))
}

/// A merge's document encoded as `write` says, when it is clean.
fn encode(
    mut out: MergedBytes,
    settled: Option<Settled>,
    options: &MergeOptions,
    write: &WriteOptions,
) -> Result<MergedBytes> {
    if let Some(s) = settled {
        out.bytes = Some(match s.derive {
            Some((turns, derive)) => {
                let (built, bytes) = ingest::derive_into_bytes(s.document, turns, &derive, write)?;
                out.rederived = built.nodes.saturating_sub(s.authored);
                bytes
            }
            None => {
                smg_format::validate::ensure_valid(&s.document, &options.limits)?;
                smg_format::codec::into_bytes(s.document, write)?
            }
        });
    }
    Ok(out)
}

/// [`encode`] with a search index of the merge.
fn encode_indexed(
    mut out: MergedBytes,
    settled: Option<Settled>,
    options: &MergeOptions,
    write: &WriteOptions,
) -> Result<MergedBytes> {
    let limits = &options.limits;
    if let Some(s) = settled {
        let mut document = s.document;
        let retriever = match s.derive {
            Some((turns, derive)) => {
                let (built, archived) = ingest::derive(&mut document, turns, &derive)?;
                out.rederived = built.nodes.saturating_sub(s.authored);
                archived.check(&document, limits)?;
                Retriever::after_ingest(&document, archived, None, limits)?
            }
            None => {
                smg_format::validate::ensure_valid(&document, limits)?;
                Retriever::new(&document, limits)?
            }
        };
        out.bytes = Some(crate::search::encode_indexed(document, write, &retriever)?);
    }
    Ok(out)
}

/// A clean merge's document, still to be encoded.
struct Settled {
    document: Document,
    /// The turns read and the options to derive the graph again with, when it must be.
    derive: Option<(Option<Read>, IngestOptions)>,
    /// The authored nodes of the document.
    authored: usize,
}

/// The format's merge of three documents, as [`merge_authored`] gives it, and whether
/// ingest derived any of their content.
struct Authored {
    merged: Merged,
    recent: usize,
    analysed: Option<Analysed>,
    ingested: bool,
}

/// [`merge_authored`] of whole documents.
fn whole_authored(docs: [&Document; 3], options: &MergeOptions) -> Result<Authored> {
    let [base, ours, theirs] = docs;
    let (merged, recent, analysed) = merge_authored(base, ours, theirs, options)?;
    let ingested = ingested(docs);
    Ok(Authored {
        merged,
        recent,
        analysed,
        ingested,
    })
}

/// [`merge_authored`] of documents read lean; `None` when the merge needs what was
/// left out. Nothing derived needs to be migrated then (a file with derived ids of
/// before is read whole and migrated).
fn lean_authored(docs: &[Lean; 3], options: &MergeOptions) -> Result<Option<Authored>> {
    let whole = docs.each_ref().map(Lean::document);
    let left_out = docs.iter().flat_map(|l| l.left_out());
    if left_out.clone().next().is_none() {
        return whole_authored(whole, options).map(Some);
    }
    let legacy = left_out.clone().any(|id| ingest::migrate::is_legacy(id));
    if legacy || whole.into_iter().any(ingest::migrate::needs_migration) {
        return Ok(None);
    }
    let options = options.clone().deriving_again();
    let merged = smg_format::merge::merge_lean(docs.each_ref(), &options, Analysed::of)?;
    Ok(merged.map(|(merged, analysed)| Authored {
        merged,
        recent: recent_turns(whole[1]),
        analysed,
        ingested: true,
    }))
}

/// What is left of a merge (`authored`) of `docs` to encode when nothing is
/// unsettled, the documents freed beside it.
fn settle<D: Send + 'static>(
    docs: D,
    authored: Authored,
    options: &MergeOptions,
) -> Result<(MergedBytes, Option<Settled>)> {
    // Millions of small allocations: freed beside the derivation, not before it.
    rayon::spawn(move || drop(docs));
    let Authored {
        merged,
        recent,
        analysed,
        ingested,
    } = authored;
    let clean = merged.unresolved().next().is_none();
    let Merged {
        document,
        conflicts,
        report,
        turns,
        ..
    } = merged;
    let derive = (report.rederive && ingested)
        .then(|| (read(turns, analysed), derive_options(options, recent)));
    let out = MergedBytes {
        bytes: None,
        conflicts,
        report,
        rederived: 0,
    };
    if !clean {
        return Ok((out, None));
    }
    let authored = document
        .graphs()
        .iter()
        .map(|(_, g)| g.nodes().iter().filter(|n| !n.is_derived()).count())
        .sum::<usize>();
    Ok((
        out,
        Some(Settled {
            document,
            derive,
            authored,
        }),
    ))
}

/// The format's merge of the three documents, migrated first; the recent turns
/// working memory keeps (as ours did); and what the rules find in the base's turns,
/// found beside the merge when it hands back the merged archive's turns.
fn merge_authored(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> Result<(Merged, usize, Option<Analysed>)> {
    let mut docs = [base, ours, theirs].map(Cow::Borrowed);
    for doc in &mut docs {
        if ingest::migrate::needs_migration(doc) {
            ingest::migrate(doc.to_mut(), &options.limits)?;
        }
    }
    let [base, ours, theirs] = &docs;
    let options = options.clone().deriving_again();
    let (merged, analysed) =
        smg_format::merge::merge_beside(base, ours, theirs, &options, Analysed::of)?;
    Ok((merged, recent_turns(ours), analysed))
}

/// The merged archive's turns, when the merge handed them back, with what was found
/// in the first of them.
fn read(turns: Option<Vec<ArchivedTurn>>, analysed: Option<Analysed>) -> Option<Read> {
    turns.map(|turns| Read {
        turns,
        analysed: analysed.unwrap_or_default(),
    })
}

/// Whether ingest derived any of `docs`' content: a memory no ingest made (written by
/// hand or by another tool) gets no derived graph from a merge either.
fn ingested(docs: [&Document; 3]) -> bool {
    docs.into_iter().any(|d| derived_nodes(d) > 0)
}

/// Options of the ingest of no new input that derives a merged archive's content.
fn derive_options(options: &MergeOptions, recent_turns: usize) -> IngestOptions {
    IngestOptions {
        limits: options.limits,
        recent_turns,
        ..IngestOptions::default()
    }
}

/// How many derived nodes `doc` holds.
pub fn derived_nodes(doc: &Document) -> usize {
    let graph = doc.semantic_graph.as_ref();
    graph.map_or(0, |g| {
        g.nodes().iter().filter(|n| Node::is_derived(n)).count()
    })
}

/// The turns ingest kept in `doc`'s working memory: as many as its recent context
/// holds when that is fewer than its turns, else the default.
fn recent_turns(doc: &Document) -> usize {
    let held = doc
        .working_memory
        .as_ref()
        .and_then(|w| w.recent_context.as_ref())
        .map_or(0, Vec::len);
    let total = doc.metadata.total_exchanges.unwrap_or(0) as usize;
    if held > 0 && held < total {
        held
    } else {
        IngestOptions::default().recent_turns
    }
}
