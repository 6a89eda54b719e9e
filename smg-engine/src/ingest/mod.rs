//! Ingest: what importers read ([`Imported`]: the `smg-import` crate reads every
//! outside format) into a `.smg` document — every original turn in the deep archive,
//! code and documents in the vault, and a semantic graph built by rules (no model
//! needed).
//!
//! Turns are archived in time order (turns without a time keep the place of the turn
//! before them), so that ingesting a grown export with `append` gives the same
//! document as ingesting the whole export at once. Messages already in the document
//! (same conversation and message id) are skipped.

mod analyze;
mod build;
mod chunk;
mod classify;
mod graph;
mod importance;
mod imported;
mod lexicon;
mod lifecycle;
pub(crate) mod mcp_memory;
pub(crate) use mcp_memory::mcp_of;
mod links;
mod memories;
pub(crate) mod migrate;
pub(crate) mod named;
mod names;
mod rescope;
mod scope;
mod statements;
#[cfg(test)]
pub(crate) mod testing;
mod working;

use crate::fast::{FastMap, FastSet};

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use smg_format::archive::{
    append_turns_with, every_source, read_archive_with, ArchiveOptions, ArchivedTurn,
};
use smg_format::codec::Head;
use smg_format::limits::{Bound, OverLimit};
use smg_format::merge::Lean;
use smg_format::model::{Edge, Extra, Graph, Node, Ordinal, Scope, Turn};
use smg_format::validate::Gate;
use smg_format::{Document, Encoding, Limits, WriteOptions};

use crate::error::Result;
pub use imported::{
    compact_record, Conversation, Entity, Imported, McpGraph, Message, Skipped, Version,
};
use lifecycle::Replaced;
pub use migrate::migrate;
pub use rescope::{set_scope, Rescoped};

/// The memory types of the memgraph seed, plus `event`; the order is the precedence
/// when a sentence says more than one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum MemoryType {
    /// "I prefer…", "my favourite…".
    Preference,
    /// "my sister…", "my team…".
    Relationship,
    /// "must", "deadline", "budget".
    Constraint,
    /// "went to", "last week", "yesterday".
    Event,
    /// "working on", "my project".
    Project,
    /// "I am…", "I work…", "I live…".
    Fact,
}

impl MemoryType {
    /// The name stored in a node's `memoryType`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryType::Preference => "preference",
            MemoryType::Relationship => "relationship",
            MemoryType::Constraint => "constraint",
            MemoryType::Event => "event",
            MemoryType::Project => "project",
            MemoryType::Fact => "fact",
        }
    }
}

/// How to ingest.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct IngestOptions {
    /// How turns are archived (block size, Brotli quality, code to the vault).
    pub archive: ArchiveOptions,
    /// Turns kept verbatim in working memory.
    pub recent_turns: usize,
    /// Bounds when reading the archive back.
    pub limits: Limits,
    /// The scope of every turn this ingest adds: `Restricted` for talk that readers
    /// without the right must never see (what is derived from it is restricted too,
    /// spec §10.3); `None` or `Personal` for the default.
    pub scope: Option<Scope>,
    /// Conversations (by id, as `smg scope list` shows them) whose turns are
    /// restricted, whatever `scope` says; an id no input holds is an error.
    pub restricted_conversations: Vec<String>,
}

impl Default for IngestOptions {
    fn default() -> Self {
        let mut archive = ArchiveOptions::default();
        archive.quality = DEFAULT_QUALITY;
        IngestOptions {
            archive,
            recent_turns: 8,
            limits: Limits::default(),
            scope: None,
            restricted_conversations: Vec::new(),
        }
    }
}

/// Brotli quality of the blocks ingest writes. Quality 2 compresses turns about 2.4
/// times as fast as 5 for about 4 % more bytes, and quality 3 and 4 are no smaller
/// than 2 on chat text (bench/RESULTS.md). `smg ingest --block-level 11` trades
/// speed for the smallest archive.
pub const DEFAULT_QUALITY: i32 = 2;

/// Reports progress of long work; every method has a silent default.
pub trait Progress: Sync {
    /// A stage starts, with `total` units of work (bytes or turns).
    fn start(&self, _stage: &str, _total: u64) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
}

/// Progress that reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

/// What an ingest did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct IngestReport {
    /// Bytes read from the inputs.
    pub bytes_in: u64,
    /// Conversations in the inputs.
    pub conversations: usize,
    /// Messages the importers read.
    pub messages: usize,
    /// Turns added to the archive.
    pub turns_added: usize,
    /// Messages already in the document, skipped.
    pub turns_known: usize,
    /// Messages given twice in the inputs (same conversation and id), taken once.
    pub duplicates: usize,
    /// Malformed records skipped (empty under `strict`).
    pub skipped: Vec<Skipped>,
    /// Turns in the archive now.
    pub turns_total: usize,
    /// Nodes and edges of the semantic graph now.
    pub nodes: usize,
    /// Edges of the semantic graph now.
    pub edges: usize,
    /// Artifacts in the vault now.
    pub artifacts: usize,
    /// Archive blocks written (a partly filled last block is written again).
    pub blocks_written: usize,
    /// File versions the inputs added to the vault (a repository's, a folder's, an
    /// agent's tools).
    pub versions: usize,
    /// Files the inputs held that were not put into the vault (binary, too large,
    /// not UTF-8), with why.
    pub not_stored: Vec<(String, String)>,
    /// Entities an MCP memory file gave (repeats merged).
    pub entities: usize,
    /// Relations an MCP memory file gave (repeats taken once).
    pub relations: usize,
    /// Entities made for relation ends that had no line of their own.
    pub implicit: Vec<String>,
    /// Edges from elsewhere (not drawn by ingest) that were dropped because an end
    /// names no node of the graph built again: already dangling in the file, or
    /// towards a node the archive no longer gives.
    pub edges_dropped: Vec<Edge>,
}

/// An archived turn as the analysis sees it: the turn and the artifact versions its
/// content holds.
#[derive(Clone, Copy)]
pub(crate) struct TurnView<'a> {
    pub(crate) turn: &'a Turn,
    pub(crate) artifacts: &'a [(String, u64)],
}

/// A message on its way to the archive, with the key that orders it.
struct Pending {
    order: (i64, usize, usize, usize),
    format: &'static str,
    conversation: String,
    message: Message,
}

/// Ingest what importers read (the `smg-import` crate) into `doc` (empty or not):
/// new turns are archived, then the graph and working memory are built again from
/// the whole archive.
pub fn ingest(
    doc: &mut Document,
    imported: Vec<Imported>,
    options: &IngestOptions,
    progress: &dyn Progress,
) -> Result<IngestReport> {
    let (report, _, archived) = run(doc, imported, options, progress, None, None, Texts::Freed)?;
    archived.free_later();
    Ok(report)
}

/// What a merge derives: [`ingest`] of no new input into `doc`, whose archive's
/// turns are `read` when the caller decoded them already; the archive's turns are
/// handed back as [`ingest_keeping_turns`] hands them.
pub(crate) fn derive(
    doc: &mut Document,
    read: Option<Read>,
    options: &IngestOptions,
) -> Result<(IngestReport, Archived)> {
    let (report, _, archived) = run(doc, Vec::new(), options, &Silent, None, read, Texts::Kept)?;
    Ok((report, archived))
}

/// An archive's turns as a merge decoded them, in order, and what the rules found in
/// the first of them ([`Analysed`]).
pub(crate) struct Read {
    pub(crate) turns: Vec<ArchivedTurn>,
    pub(crate) analysed: Analysed,
}

/// What the rules find in some turns (the first of an archive), found before the
/// derivation that reads them: beside a merge, on the core it leaves idle.
#[derive(Default)]
pub(crate) struct Analysed(Vec<analyze::Facts>);

impl Analysed {
    /// The rules run on each of `turns`, side by side.
    pub(crate) fn of(turns: &[&Turn]) -> Self {
        Analysed(build::facts(turns))
    }
}

/// [`ingest`], handing back the archive's turns as it read and wrote them, so that a
/// search index of the result is made without decoding every block again
/// ([`crate::search::Retriever::after_ingest`]).
pub fn ingest_keeping_turns(
    doc: &mut Document,
    imported: Vec<Imported>,
    options: &IngestOptions,
    progress: &dyn Progress,
) -> Result<(IngestReport, Archived)> {
    let (report, _, archived) = run(doc, imported, options, progress, None, None, Texts::Kept)?;
    Ok((report, archived))
}

/// Every turn of a memory's archive, in order, as the ingest that wrote it held them
/// (see [`ingest_keeping_turns`]).
pub struct Archived {
    existing: Vec<smg_format::archive::ArchivedTurn>,
    added: Vec<Turn>,
}

impl Archived {
    /// The turns, in archive order, without their source records (retrieval never
    /// reads them).
    pub(crate) fn into_turns(self) -> Vec<Turn> {
        let mut turns: Vec<Turn> = self.existing.into_iter().map(|a| a.turn).collect();
        turns.extend(self.added);
        for t in &mut turns {
            t.extra = Default::default();
        }
        turns
    }

    /// The writers' gate of `doc`, the document this ingest made
    /// ([`smg_format::validate::Gate`]): every field and every semantic rule, with
    /// these turns as the archive's rather than its blocks decoded again; `SMG-E023`
    /// naming the first error. What a caller that changes the document further (an
    /// embedding, a seal) runs before it writes the file.
    pub fn check(&self, doc: &Document, limits: &Limits) -> Result<()> {
        let held: Vec<&Turn> = self
            .existing
            .iter()
            .map(|a| &a.turn)
            .chain(&self.added)
            .collect();
        Gate::new(doc, limits, &held).finish(doc)?;
        Ok(())
    }

    /// Hundreds of thousands of turns are freed on another thread while the caller
    /// goes on (to write the file).
    pub(crate) fn free_later(self) {
        rayon::spawn(move || drop(self));
    }
}

/// [`ingest`] into `doc`, then the document encoded as `write` says: the bytes of
/// [`smg_format::codec::into_bytes`], sooner. In Brotli, the vault and the deep archive,
/// final once the turns are archived, are checked and compressed while the graph is
/// finished. A document that would not validate is refused (`SMG-E023`): every field
/// and semantic rule is checked, with the turns the ingest held as the archive's.
pub fn ingest_into_bytes(
    doc: Document,
    imported: Vec<Imported>,
    options: &IngestOptions,
    progress: &dyn Progress,
    write: &WriteOptions,
) -> Result<(IngestReport, Vec<u8>)> {
    into_bytes(doc, imported, None, options, progress, write)
}

/// What [`ingest_lean_into_bytes`] gives.
// One is made per command and matched at once: the report is not worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum LeanIngested {
    /// The report and the file's bytes: what [`ingest_into_bytes`] of the document
    /// read whole gives.
    Written(IngestReport, Vec<u8>),
    /// The ingest needs what was left out: the inputs, given back, are to be ingested
    /// into the document read whole.
    ReadWhole(Vec<Imported>),
}

/// [`ingest_into_bytes`] of a document read lean ([`Lean`]): an ingest derives every
/// derived node again, so those a lean read leaves out (most of a large memory's
/// graph) are never parsed. It needs them, and gives the inputs back, when an input
/// brings its own nodes to join the graph's by name (an MCP memory file, a Letta
/// Agent File), and when the document's derived ids are from before they were stable.
pub fn ingest_lean_into_bytes(
    doc: Lean,
    imported: Vec<Imported>,
    options: &IngestOptions,
    progress: &dyn Progress,
    write: &WriteOptions,
) -> Result<LeanIngested> {
    let legacy = doc.left_out().iter().any(|id| migrate::is_legacy(id))
        || migrate::needs_migration(doc.document());
    if legacy || imported.iter().any(Imported::needs_whole_document) {
        return Ok(LeanIngested::ReadWhole(imported));
    }
    let (report, bytes) = into_bytes(
        doc.into_derivable(),
        imported,
        None,
        options,
        progress,
        write,
    )?;
    Ok(LeanIngested::Written(report, bytes))
}

/// [`derive`], encoded as [`ingest_into_bytes`] encodes.
pub(crate) fn derive_into_bytes(
    doc: Document,
    read: Option<Read>,
    options: &IngestOptions,
    write: &WriteOptions,
) -> Result<(IngestReport, Vec<u8>)> {
    into_bytes(doc, Vec::new(), read, options, &Silent, write)
}

fn into_bytes(
    mut doc: Document,
    imported: Vec<Imported>,
    read: Option<Read>,
    options: &IngestOptions,
    progress: &dyn Progress,
    write: &WriteOptions,
) -> Result<(IngestReport, Vec<u8>)> {
    let ahead = Some(write).filter(|w| w.encoding == Encoding::Brotli);
    let (report, head, archived) = run(
        &mut doc,
        imported,
        options,
        progress,
        ahead,
        read,
        Texts::Freed,
    )?;
    let bytes = match head {
        Some((head, gate)) => {
            archived.free_later();
            gate.finish(&doc)?;
            smg_format::codec::into_bytes_with_head(doc, write, head)?
        }
        None => {
            archived.check(&doc, &options.limits)?;
            archived.free_later();
            smg_format::codec::into_bytes(doc, write)?
        }
    };
    Ok((report, bytes))
}

/// New turns are within the turn-count and turn-size limits, before any work is
/// spent on them.
fn check_limits(existing: usize, turns: &[Turn], limits: &Limits) -> Result<(), OverLimit> {
    let total = (existing + turns.len()) as u64;
    limits.check(Bound::Turns, total, "the memory with the new turns")?;
    for t in turns {
        let at = format!(
            "conversation {}, message {}",
            t.conversation_id.as_deref().unwrap_or("(no id)"),
            t.message_id.as_deref().unwrap_or("(no id)")
        );
        limits.check(Bound::TurnBytes, t.content.len() as u64, &at)?;
    }
    Ok(())
}

/// The document's leading members compressed ahead of the rest, and the writers' gate
/// that checked them before they went.
type Ahead = (Head, Gate);

/// [`ingest`]; given `write`, the document's leading members are checked (the
/// writers' gate's first step), taken out of it and compressed for writing with
/// those options, and returned as a head beside the gate. The archive is read from
/// `doc` unless `read` holds its turns. The turns handed back keep their text as
/// `texts` says.
fn run(
    doc: &mut Document,
    imported: Vec<Imported>,
    options: &IngestOptions,
    progress: &dyn Progress,
    write: Option<&WriteOptions>,
    read: Option<Read>,
    texts: Texts,
) -> Result<(IngestReport, Option<Ahead>, Archived)> {
    let scope = scope::of_run(options.scope)?;
    let mut report = IngestReport {
        bytes_in: imported.iter().map(|i| i.bytes).sum(),
        ..IngestReport::default()
    };
    for graph in imported.iter().filter_map(|i| i.graph.as_ref()) {
        report.entities += graph.entities.len();
        report.relations += graph.relations.len();
    }
    let mut imported = imported;
    scope::restrict_conversations(&mut imported, &options.restricted_conversations)?;
    let restricted = |c: &Conversation| c.messages.iter().any(|m| m.scope.is_some());
    let said = |i: &Imported| i.conversations.iter().any(restricted);
    scope::refuse_if_sealed(doc, scope.is_some() || imported.iter().any(said))?;
    for i in &mut imported {
        if let Some(graph) = i.graph.take() {
            report
                .implicit
                .extend(mcp_memory::apply(doc, graph, scope)?);
        }
        report.versions += imported::apply(doc, i, scope)?;
        report.not_stored.append(&mut i.not_stored);
    }
    let (mut existing, known) = match read {
        Some(Read {
            mut turns,
            analysed,
        }) => {
            let kept = sources_kept(doc, options);
            turns
                .par_iter_mut()
                .filter(|a| !kept.keeps(&a.turn))
                .for_each(|a| drop(a.turn.extra.remove("source")));
            kept_sources(doc, &mut turns, kept, &options.limits)?;
            (turns, analysed.0)
        }
        None => {
            let turns =
                read_archive_with(doc, &options.limits, &sources_kept(doc, options).sources())?;
            (turns, Vec::new())
        }
    };
    migrate::legacy_ids(doc, existing.iter().map(|a| &a.turn));
    keep_conversation_headers(doc, &imported, scope);
    let pending = pending(imported, &existing, &mut report);
    // After sealed turns too: their numbers stay taken.
    let last = smg_format::archive::last_turn(doc);
    let (turns, sources): (Vec<Turn>, Vec<Source>) = pending
        .into_par_iter()
        .enumerate()
        .map(|(i, p)| p.into_turn(Ordinal::after(last + i as u64), scope))
        .unzip();
    check_limits(existing.len(), &turns, &options.limits).map_err(smg_format::Error::from)?;
    let replaced = Replaced::take(doc);
    progress.start("archiving", turns.len() as u64);
    // The rules read only the text: they and the graph they make, all but its
    // artifacts, are drafted while the archive is written.
    let said: Vec<&Turn> = existing.iter().map(|t| &t.turn).chain(&turns).collect();
    // The records of the turns working memory keeps whole are kept; the rest go
    // as soon as they are archived.
    let recent_from = (existing.len() + turns.len())
        .saturating_sub(options.recent_turns)
        .saturating_sub(existing.len());
    let ((appended, recent_sources), draft) = rayon::join(
        || {
            let source = |i: usize| sources[i].members();
            let appended = append_turns_with(doc, &turns, &options.archive, &source);
            let mut sources = sources;
            let recent = sources.split_off(recent_from.min(sources.len()));
            sources
                .into_par_iter()
                .with_max_len(FREED_TOGETHER)
                .for_each(drop);
            (appended, recent)
        },
        || build::draft(&said, build::analyze_all(&said, known)),
    );
    drop(said);
    let appended = appended?;
    progress.advance(turns.len() as u64);
    let mut turns = turns;
    for (turn, source) in turns[recent_from..].iter_mut().zip(recent_sources) {
        turn.extra.insert("source".into(), source.member());
    }
    if texts == Texts::Freed {
        free_texts(&mut existing, &mut turns, options.recent_turns);
    }
    let sources = archived_sources(&mut existing, turns.len(), options.recent_turns);
    report.turns_added = turns.len();
    report.blocks_written = appended.blocks;
    let all: Vec<TurnView<'_>> = existing
        .iter()
        .map(|t| TurnView {
            turn: &t.turn,
            artifacts: &t.artifacts,
        })
        .chain(
            turns
                .iter()
                .zip(&appended.artifacts)
                .map(|(turn, a)| TurnView { turn, artifacts: a }),
        )
        .collect();
    progress.start("analysing", all.len() as u64);
    // The graph's last steps run mostly on one thread. Beside them, the records are
    // freed and the vault and the archive, final now, are compressed for writing.
    let labels = links::artifact_labels(doc.artifact_vault.as_ref());
    report.artifacts = labels.len();
    let said: Vec<&Turn> = all.iter().map(|t| t.turn).collect();
    // The records go first: the compression's memory takes the place of theirs.
    let (head, built) = rayon::join(
        || {
            sources
                .into_par_iter()
                .with_max_len(FREED_TOGETHER)
                .for_each(drop);
            // What the head takes is final: it is checked before it goes.
            write
                .map(|w| {
                    smg_format::validate::ensure_fields_valid(doc)?;
                    let gate = Gate::new(doc, &options.limits, &said);
                    Ok::<_, smg_format::Error>((Head::compress(doc, w)?, gate))
                })
                .transpose()
        },
        || draft.read(&said).finish(&all, &labels),
    );
    drop(said);
    let head = head?;
    let mut built = built;
    scope::inherit(&mut built.nodes, &built.edges, &all);
    progress.advance(all.len() as u64);
    working::update(doc, &all, &built, options.recent_turns, existing.is_empty());
    report.edges_dropped = replace_graph(doc, &replaced, built.nodes, built.edges);
    report.turns_total = all.len();
    let graph = doc.semantic_graph.as_ref();
    report.nodes = graph.map_or(0, |g| g.nodes.as_ref().map_or(0, Vec::len));
    report.edges = graph.map_or(0, |g| g.edges.as_ref().map_or(0, Vec::len));
    drop(all);
    let archived = Archived {
        existing,
        added: turns,
    };
    Ok((report, head, archived))
}

/// Whether the turns an ingest hands back keep their text: a caller that makes a
/// search index of them needs it ([`ingest_keeping_turns`], [`derive`]); the others
/// check and free them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Texts {
    Kept,
    Freed,
}

/// The text of every turn but those working memory copies whole (the last `recent`
/// that every reader may see), freed side by side once the archive is written and
/// the rules have read it: nothing after reads it, and it is a third of what a large
/// ingest holds while it finishes the graph.
fn free_texts(existing: &mut [ArchivedTurn], added: &mut [Turn], recent: usize) {
    let mut all: Vec<&mut Turn> = existing
        .iter_mut()
        .map(|a| &mut a.turn)
        .chain(added.iter_mut())
        .collect();
    let mut from = all.len();
    let mut kept = 0;
    while from > 0 && kept < recent {
        from -= 1;
        kept += usize::from(scope::shared(all[from].scope));
    }
    all[..from]
        .par_iter_mut()
        .with_max_len(FREED_TOGETHER)
        .for_each(|t| t.content = String::new());
}

/// How the archive is read back to be appended to: without the source records
/// (archived already, and never read by the graph) but those of the last `recent`
/// turns, which working memory may copy whole; each is dropped as its turn is decoded.
fn sources_kept(doc: &Document, options: &IngestOptions) -> SourcesKept {
    // A block range that does not parse keeps every record.
    let last = doc
        .deep_archive
        .iter()
        .flat_map(|a| a.blocks())
        .filter_map(|b| smg_format::archive::parse_turn_range(&b.turn_range))
        .map(|(_, last)| last)
        .max()
        .unwrap_or(0);
    SourcesKept {
        last,
        recent: options.recent_turns as u64,
    }
}

/// Which archived turns keep their source record as the archive is read back: the
/// last `recent` of the archive, which ends at turn `last`.
#[derive(Clone, Copy)]
struct SourcesKept {
    last: u64,
    recent: u64,
}

impl SourcesKept {
    fn keeps(self, t: &Turn) -> bool {
        t.turn.get().saturating_add(self.recent) > self.last
    }

    /// The [`smg_format::archive::Sources`] of a read of the archive.
    fn sources(self) -> impl Fn(&Turn, &RawValue) -> serde_json::Result<Option<Value>> + Sync {
        move |t, record| match self.keeps(t) {
            true => every_source(t, record),
            false => Ok(None),
        }
    }
}

/// The source records of the turns `sources` keeps, read from `doc`'s archive for those
/// of `turns` (the archive's, as a merge decoded them) that come without one: a merge
/// leaves out the records of the base's blocks both sides kept.
fn kept_sources(
    doc: &Document,
    turns: &mut [ArchivedTurn],
    sources: SourcesKept,
    limits: &Limits,
) -> Result<()> {
    let kept = turns
        .iter()
        .rposition(|a| !sources.keeps(&a.turn))
        .map_or(0, |i| i + 1);
    let bare: FastMap<u64, usize> = turns[kept..]
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.turn.extra.contains_key("source"))
        .map(|(i, a)| (a.turn.turn.get(), kept + i))
        .collect();
    if bare.is_empty() {
        return Ok(());
    }
    let archive = doc.deep_archive.as_ref();
    let method = archive
        .and_then(|a| a.compression_method)
        .unwrap_or_default();
    let holds = |b: &&smg_format::model::Block| {
        smg_format::archive::parse_turn_range(&b.turn_range)
            .is_some_and(|(first, last)| bare.keys().any(|n| (first..=last).contains(n)))
    };
    for block in archive.iter().flat_map(|a| a.blocks()).filter(holds) {
        let vault = doc.artifact_vault.as_ref();
        for t in smg_format::archive::decode_block(block, method, vault, limits)? {
            let (Some(&i), Some(source)) = (bare.get(&t.turn.get()), t.extra.get("source")) else {
                continue;
            };
            turns[i].turn.extra.insert("source".into(), source.clone());
        }
    }
    Ok(())
}

/// Source records are archived now and the graph never reads them: take them out
/// of every archived turn read back but the last `recent` (which working memory
/// copies whole), to be freed, so that a large ingest does not hold a second copy of
/// its input while it finishes the graph and writes the file.
fn archived_sources(
    existing: &mut [smg_format::archive::ArchivedTurn],
    new: usize,
    recent: usize,
) -> Vec<Value> {
    let keep_from = (existing.len() + new)
        .saturating_sub(recent)
        .min(existing.len());
    // Taken side by side: a large ingest holds hundreds of thousands of records.
    existing[..keep_from]
        .par_iter_mut()
        .filter_map(|a| a.turn.extra.remove("source"))
        .collect()
}

/// Most records (or turns' facts) freed as one piece of parallel work.
pub(super) const FREED_TOGETHER: usize = 1024;

/// The messages that are new, in archive order.
fn pending(
    imported: Vec<Imported>,
    existing: &[smg_format::archive::ArchivedTurn],
    report: &mut IngestReport,
) -> Vec<Pending> {
    let mut out = Vec::new();
    for (input, got) in imported.into_iter().enumerate() {
        report.skipped.extend(got.skipped);
        report.conversations += got.conversations.len();
        for (c, conv) in got.conversations.into_iter().enumerate() {
            let mut time = i64::MIN;
            for (m, message) in conv.messages.into_iter().enumerate() {
                report.messages += 1;
                if let Some(t) = message.timestamp.as_deref().and_then(millis) {
                    time = t;
                }
                out.push(Pending {
                    order: (time, input, c, m),
                    format: got.format,
                    conversation: conv.id.clone(),
                    message,
                });
            }
        }
    }
    let mut fresh = first_seen(&out, existing, report).into_iter();
    out.retain(|_| fresh.next().unwrap_or(false));
    out.sort_by_key(|p| p.order);
    out
}

/// For each message in `pending`, whether it is neither archived already nor a
/// repeat of an earlier one (keys borrowed: a large ingest has millions).
fn first_seen(
    pending: &[Pending],
    existing: &[smg_format::archive::ArchivedTurn],
    report: &mut IngestReport,
) -> Vec<bool> {
    let known: FastSet<(&str, &str)> = existing
        .iter()
        .filter_map(|t| {
            Some((
                t.turn.conversation_id.as_deref()?,
                t.turn.message_id.as_deref()?,
            ))
        })
        .collect();
    let mut seen = FastSet::default();
    pending
        .iter()
        .map(|p| {
            let k = (p.conversation.as_str(), p.message.message_id.as_str());
            if known.contains(&k) {
                report.turns_known += 1;
                false
            } else if !seen.insert(k) {
                report.duplicates += 1;
                false
            } else {
                true
            }
        })
        .collect()
}

fn millis(t: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.timestamp_millis())
}

impl Pending {
    /// The turn, and apart from it the record it came from (compact until archived).
    fn into_turn(self, n: Ordinal, scope: Option<Scope>) -> (Turn, Source) {
        let m = self.message;
        let turn = Turn {
            timestamp: m.timestamp,
            speaker: m.speaker.map(Into::into),
            conversation_id: Some(self.conversation.into()),
            session_id: m.session_id.map(Into::into),
            message_id: Some(m.message_id.into()),
            scope: m.scope.or(scope),
            ..Turn::new(n, m.role, m.content)
        };
        let source = Source {
            format: self.format,
            record: m.record,
        };
        (turn, source)
    }
}

/// A new turn's source record, kept as compact JSON until the turn is archived.
struct Source {
    format: &'static str,
    record: Box<str>,
}

impl Source {
    /// The turn's `source` member: `{format, record, contentAt}`.
    fn member(&self) -> Value {
        let mut source: Value = serde_json::from_str(&self.record).unwrap_or_default();
        if let Value::Object(members) = &mut source {
            let format = Value::String(self.format.to_string());
            members.insert("format".into(), format);
        }
        source
    }

    /// [`Source::member`] as the members a turn is archived with.
    fn members(&self) -> Extra {
        Extra::from_iter([("source".to_string(), self.member())])
    }
}

/// Each conversation's own fields (title, times, speakers…) in
/// `deepArchive.conversations`, keyed by id, with its place among this ingest's
/// conversations and the source records that became no turn; a later export of the
/// same conversation replaces them.
fn keep_conversation_headers(doc: &mut Document, imported: &[Imported], scope: Option<Scope>) {
    let known: FastMap<&str, u64> = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.extra.get("conversations"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(id, e)| Some((id.as_str(), e.get("order")?.as_u64()?)))
        .collect();
    // A conversation imported again keeps its place; new ones come after the rest.
    let mut next = known.values().max().map_or(0, |m| m + 1);
    let headers: Vec<(String, Value)> = imported
        .iter()
        .flat_map(|got| got.conversations.iter().map(move |c| (got.format, c)))
        .filter(|(_, c)| c.header.is_some() || !c.others.is_empty())
        .map(|(format, c)| {
            let order = known.get(c.id.as_str()).copied().unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            let mut entry = json!({"format": format, "order": order});
            if let Some(header) = &c.header {
                entry["header"] = header.clone();
            }
            if let Some(file) = &c.file {
                entry["file"] = file.clone();
            }
            // Sealing the scope takes the entry with the conversation's blocks.
            let said = c.messages.iter().find_map(|m| m.scope);
            if let Some(s) = scope.or(said) {
                entry["scope"] = Value::String(s.name().to_string());
            }
            if !c.others.is_empty() {
                let others: Vec<Value> = c
                    .others
                    .iter()
                    .map(|(place, record)| json!({"place": place, "record": record}))
                    .collect();
                entry["otherRecords"] = Value::Array(others);
            }
            (c.id.clone(), entry)
        })
        .collect();
    let mut headers = headers.into_iter().peekable();
    if headers.peek().is_none() {
        return;
    }
    let archive = doc.deep_archive.get_or_insert_with(Default::default);
    let entry = archive
        .extra
        .entry("conversations")
        .or_insert_with(|| json!({}));
    // Anything else under that name is someone's data: left as it is.
    if let Some(map) = entry.as_object_mut() {
        map.extend(headers);
    }
}

/// The source system's record of an ingested turn, whole: `source.record` with the
/// turn's content put back where `source.contentAt` points.
///
/// ```
/// use smg_format::model::{role, Ordinal, Turn};
/// let mut turn = Turn::new(Ordinal::FIRST, role::USER, "hello there");
/// turn.extra.insert("source".into(), serde_json::json!({
///     "format": "jsonl", "contentAt": "/content", "record": {"content": null, "id": "m1"}
/// }));
/// let record = smg_engine::ingest::source_record(&turn).unwrap();
/// assert_eq!(record, serde_json::json!({"content": "hello there", "id": "m1"}));
/// ```
pub fn source_record(turn: &Turn) -> Option<Value> {
    let source = turn.extra.get("source")?;
    let mut record = source.get("record")?.clone();
    if let Some(at) = source.get("contentAt").and_then(Value::as_str) {
        *record.pointer_mut(at)? = Value::String(turn.content.clone());
    }
    Some(record)
}

/// Put the new graph in place of the nodes and edges an earlier ingest made (taken
/// out before the derivation, `replaced`); nodes and edges from elsewhere stay (a
/// node of the same id wins over a generated one), but for the edges an end of which
/// names no node: those are returned.
fn replace_graph(
    doc: &mut Document,
    replaced: &Replaced,
    mut nodes: Vec<Node>,
    mut edges: Vec<Edge>,
) -> Vec<Edge> {
    let removed: FastSet<&str> = doc
        .curation
        .iter()
        .flat_map(|c| c.removed.iter().flatten())
        .map(String::as_str)
        .collect();
    if !removed.is_empty() {
        nodes.retain(|n| !removed.contains(n.id.as_str()));
        edges.retain(|e| !removed.contains(e.from.as_str()) && !removed.contains(e.to.as_str()));
    }
    let graph = doc.semantic_graph.get_or_insert_with(Graph::default);
    let mut kept = graph.nodes.take().unwrap_or_default();
    replaced.carry(&mut nodes);
    // Without nodes from elsewhere, the new nodes are the graph's as they are: no
    // second copy of them (a Node is 760 bytes) at the peak of memory.
    if kept.is_empty() {
        kept = nodes;
    } else {
        let taken: FastSet<String> = kept.iter().map(|n| n.id.to_string()).collect();
        kept.extend(nodes.into_iter().filter(|n| !taken.contains(n.id.as_str())));
    }
    // The graph lives until the file is written: no spare room (a Node is 760 bytes).
    kept.shrink_to_fit();
    let others: Vec<Edge> = graph.edges.take().unwrap_or_default();
    // The new edges join nodes of the new graph, once each: only edges kept from
    // elsewhere can dangle or repeat them.
    let mut dropped = Vec::new();
    let mut all_edges = if others.is_empty() {
        edges
    } else {
        let ids: FastSet<&str> = kept.iter().map(|n| n.id.as_str()).collect();
        let (others, dangling): (Vec<Edge>, Vec<Edge>) = others
            .into_iter()
            .partition(|e| ids.contains(e.from.as_str()) && ids.contains(e.to.as_str()));
        dropped = dangling;
        let mut seen = FastSet::default();
        others
            .into_iter()
            .chain(edges)
            .filter(|e| seen.insert((e.from.clone(), e.to.clone(), e.relation.clone())))
            .collect()
    };
    all_edges.shrink_to_fit();
    graph.edges = (!all_edges.is_empty()).then_some(all_edges);
    graph.nodes = (!kept.is_empty()).then_some(kept);
    dropped
}
