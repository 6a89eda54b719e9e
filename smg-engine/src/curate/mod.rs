//! Curation (spec §18): memory that stays small and relevant and never loses what
//! must be kept.
//!
//! A cycle ([`curate`]) scores every node of the semantic graph (Jochi's memory value
//! score, [`Score`]), applies the TTL table, tier moves and per-class token budgets,
//! M3S's 90-day retention and lexical deduplication, and never prunes a node one of
//! the never-prune rails protects. Every action is an audit entry holding what undoes
//! it ([`restore`]); a cycle that changes something leaves a summary. The archive is
//! never touched: only the graph is curated. Everything is a function of the document
//! and `now`, so a cycle is deterministic, and a second cycle at the same `now`
//! changes nothing.
//!
//! ```
//! use smg_format::{model::{Graph, Node, NonEmpty, Timestamp}, Document};
//! use smg_engine::curate::{curate, restore, CurateOptions};
//! let created = Timestamp::from_static("2025-01-01T00:00:00Z");
//! let mut doc = Document::new(created.clone());
//! let note = Node {
//!     status: Some(NonEmpty::from_static("read")),
//!     created: Some(created),
//!     ..Node::new(NonEmpty::from_static("n1"), NonEmpty::from_static("notification"))
//! };
//! doc.semantic_graph = Some(Graph { nodes: Some(vec![note]), ..Graph::default() });
//! let before = doc.clone();
//! let now = Timestamp::from_static("2025-01-20T00:00:00Z");
//! let report = curate(&mut doc, &CurateOptions::at(now)).unwrap();
//! // Read 19 days ago: past its 7-day TTL, soft-deleted for 30 days.
//! assert_eq!(report.actions[0].action.name(), "tombstone");
//! assert_eq!(doc.semantic_graph.as_ref().unwrap().nodes()[0].tombstone, Some(true));
//! restore(&mut doc, report.cycle.as_deref().unwrap()).unwrap();
//! assert_eq!(doc, before);
//! ```

mod access;
mod audit;
mod class;
mod cycle;
mod dedup;
mod facts;
mod fold;
pub mod governance;
mod plan;
mod rules;
mod score;

pub use access::{move_tier, record_access};

pub use class::Class;
pub use cycle::curate;
pub use score::Score;

use smg_format::model::{Action, Curation, Document, Graph, Timestamp};

use crate::{Error, Result};

/// How a cycle runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CurateOptions {
    /// The cycle's time: every age is measured to it.
    pub now: Timestamp,
    /// Merge and relate near-duplicates (on by default).
    pub dedup: bool,
}

impl CurateOptions {
    /// A cycle at `now` with every step on.
    pub fn at(now: Timestamp) -> Self {
        CurateOptions { now, dedup: true }
    }

    /// The same cycle with deduplication on or off.
    pub fn with_dedup(mut self, on: bool) -> Self {
        self.dedup = on;
        self
    }
}

/// One action a cycle or a command took.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ActionReport {
    /// The audit entry's id (give it to [`restore`]).
    pub id: String,
    /// What was done.
    pub action: Action,
    /// The node acted on.
    pub node: String,
    /// For a merge, the node kept; for a relation, the node related to.
    pub into: Option<String>,
    /// The rule and its numbers.
    pub reason: String,
    /// The node's memory value score.
    pub score: Option<f64>,
}

impl From<&smg_format::model::AuditEntry> for ActionReport {
    fn from(e: &smg_format::model::AuditEntry) -> Self {
        ActionReport {
            id: e.id.clone(),
            action: e.action,
            node: e.node.clone(),
            into: e.into.clone(),
            reason: e.reason.clone(),
            score: e.score,
        }
    }
}

/// One tier warmer or colder (`smg tier promote|demote`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// ARCHIVE → COLD → WARM → HOT.
    Warmer,
    /// HOT → WARM → COLD → ARCHIVE.
    Colder,
}

/// What a cycle did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CycleReport {
    /// The cycle's id, when it changed something.
    pub cycle: Option<String>,
    /// Nodes judged.
    pub scanned: usize,
    /// Every action, in the order taken.
    pub actions: Vec<ActionReport>,
    /// Tokens per class and tier after the cycle: `(class, tier, tokens)` for HOT,
    /// WARM and COLD.
    pub tokens: Vec<(Class, smg_format::model::LifecycleTier, u64)>,
    /// Audit entries and cycle summaries dropped for their age (the policy's days).
    pub expired: usize,
}

/// How full the tiers are: the tokens (characters / 4) of each class's nodes in HOT,
/// WARM and COLD, to set against the budgets (1600, 400, 200; spec §18.6).
pub fn tier_tokens(doc: &Document) -> Vec<(Class, smg_format::model::LifecycleTier, u64)> {
    cycle::tier_tokens(doc.semantic_graph.as_ref().map_or(&[], |g| g.nodes()))
}

/// The nodes of the semantic graph a never-prune rail protects at `now`, with the
/// rail's number (spec §18.5), in graph order.
pub fn protected(doc: &Document, now: &Timestamp) -> Vec<(String, u8)> {
    let at = facts::time(now);
    let Some(g) = doc.semantic_graph.as_ref() else {
        return Vec::new();
    };
    let (facts, _) = facts::gather(g.nodes(), g.edges(), at);
    g.nodes()
        .iter()
        .zip(&facts)
        .filter_map(|(n, f)| rules::rail(n, f, at).map(|(k, _)| (n.id.to_string(), k)))
        .collect()
}

/// Every node's memory value score at `now`, in the graph's node order: what
/// a cycle would weigh (spec §18.3), without changing anything. `recency / 3` is how
/// fresh a node still is (1 = used now or never decays, 0 = long faded).
pub fn scores(graph: &Graph, now: &Timestamp) -> Vec<Score> {
    plan::judge_all(graph.nodes(), graph.edges(), facts::time(now)).scores
}

/// Undo an audit entry, or every entry of a cycle (last first), by its id. The
/// entries leave the audit log; a cycle whose entries are all undone leaves too, so
/// undoing a cycle gives back the document it started from.
pub fn restore(doc: &mut Document, id: &str) -> Result<Vec<String>> {
    let mut curation = doc.curation.take().unwrap_or_default();
    let result = restore_in(doc, &mut curation, id);
    doc.curation = tidy(curation);
    result
}

fn restore_in(doc: &mut Document, curation: &mut Curation, id: &str) -> Result<Vec<String>> {
    let audit = curation.audit.get_or_insert_with(Vec::new);
    let mut chosen: Vec<usize> = audit
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id == id || e.cycle.as_deref() == Some(id))
        .map(|(i, _)| i)
        .collect();
    if chosen.is_empty() {
        return Err(Error::Curation {
            code: "SMG-E241",
            detail: format!("no audit entry or cycle has id `{id}` (see `smg audit`)"),
        });
    }
    let last = *chosen.last().expect("not empty");
    for &i in &chosen {
        let mine = audit::touched(&audit[i]);
        let mut later = audit[last + 1..].iter();
        if let Some(e) = later.find(|e| !audit::touched(e).is_disjoint(&mine)) {
            return Err(Error::Curation {
                code: "SMG-E242",
                detail: format!(
                    "`{}` changed the same nodes after `{}`: restore it first",
                    e.id, audit[i].id
                ),
            });
        }
    }
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    let mut nodes = graph.nodes.take().unwrap_or_default();
    let mut edges = graph.edges.take().unwrap_or_default();
    let mut undone = Vec::new();
    let mut failed = None;
    for &i in chosen.iter().rev() {
        if let Err(why) = audit::undo(&audit[i], &mut nodes, &mut edges) {
            failed = Some(format!("{}: {why}", audit[i].id));
            break;
        }
        undone.push(i);
    }
    put_graph(doc, nodes, edges);
    chosen.retain(|i| undone.contains(i));
    let ids = forget(curation, &chosen);
    match failed {
        Some(detail) => Err(Error::Curation {
            code: "SMG-E242",
            detail,
        }),
        None => Ok(ids),
    }
}

/// Take undone entries out of the audit log, their counts out of their cycles, and
/// the nodes they removed out of the removed list.
fn forget(curation: &mut Curation, chosen: &[usize]) -> Vec<String> {
    let audit = curation.audit.get_or_insert_with(Vec::new);
    let mut ids = Vec::new();
    for &i in chosen.iter().rev() {
        let e = audit.remove(i);
        if audit::removes(e.action) {
            if let Some(r) = curation.removed.as_mut() {
                r.retain(|id| *id != e.node);
            }
        }
        if let Some(c) = curation
            .cycles
            .iter_mut()
            .flatten()
            .find(|c| Some(&c.id) == e.cycle.as_ref())
        {
            cycle::count(c, e.action, false);
        }
        ids.push(e.id);
    }
    if let Some(cycles) = curation.cycles.as_mut() {
        cycles.retain(|c| !cycle::is_empty(c));
    }
    ids
}

/// Put the graph's nodes and edges back; a graph left with nothing goes.
fn put_graph(
    doc: &mut Document,
    nodes: Vec<smg_format::model::Node>,
    edges: Vec<smg_format::model::Edge>,
) {
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    graph.nodes = (!nodes.is_empty()).then_some(nodes);
    graph.edges = (!edges.is_empty()).then_some(edges);
    if doc
        .semantic_graph
        .as_ref()
        .is_some_and(|g| *g == Default::default())
    {
        doc.semantic_graph = None;
    }
}

/// `None` for a section with nothing in it, so an undone cycle leaves no trace.
fn tidy(mut c: Curation) -> Option<Curation> {
    c.audit = c.audit.filter(|a| !a.is_empty());
    c.cycles = c.cycles.filter(|a| !a.is_empty());
    c.removed = c.removed.filter(|a| !a.is_empty());
    (c != Curation::default()).then_some(c)
}

#[cfg(test)]
mod tests;
