//! Working memory after an ingest: a summary, current goals, the artifacts in use
//! and the last turns verbatim; and the document's dates and turn count.

use crate::fast::{FastMap, FastSet};

use smg_format::model::{Timestamp, WorkingMemory};
use smg_format::Document;

use super::TurnView;

use super::build::Built;
use super::scope::shared;
use crate::text::clip;

/// Goals are looked for in this many last turns.
const GOAL_WINDOW: u64 = 200;
/// Artifacts used in this many last turns are active.
const ACTIVE_WINDOW: u64 = 50;

/// Update `doc`'s working memory and metadata from the whole archive `turns`.
pub(crate) fn update(
    doc: &mut Document,
    turns: &[TurnView<'_>],
    built: &Built,
    recent: usize,
    fresh: bool,
) {
    let last = turns.last().map_or(0, |t| t.turn.turn.get());
    let times: Vec<&Timestamp> = turns
        .iter()
        .filter_map(|t| t.turn.timestamp.as_ref())
        .collect();
    let earliest = times.iter().min_by_key(|t| super::millis(t)).copied();
    let latest = times.iter().max_by_key(|t| super::millis(t)).copied();
    if fresh {
        if let Some(t) = earliest {
            doc.metadata.created = t.clone();
        }
    }
    if let Some(t) = latest {
        doc.metadata.modified = Some(t.clone());
    }
    doc.metadata.total_exchanges = Some(turns.len() as u64);
    // Working memory is read by everyone who opens the file: restricted talk and what
    // is drawn from it stay out of it (sealing cannot take them out of a summary).
    let shown: Vec<TurnView<'_>>;
    let (turns, hidden) = if turns.iter().all(|t| shared(t.turn.scope)) {
        (turns, FastSet::default())
    } else {
        shown = turns
            .iter()
            .filter(|t| shared(t.turn.scope))
            .copied()
            .collect();
        let hidden: FastSet<u64> = turns
            .iter()
            .filter(|t| !shared(t.turn.scope))
            .map(|t| t.turn.turn.get())
            .collect();
        (&shown[..], hidden)
    };
    let mut goals: Vec<String> = Vec::new();
    for (_, g) in built
        .goals
        .iter()
        .filter(|(n, _)| n + GOAL_WINDOW > last && !hidden.contains(n))
        .rev()
    {
        if !goals.contains(g) && goals.len() < 5 {
            goals.push(g.clone());
        }
    }
    goals.reverse();
    let mut active: Vec<String> = Vec::new();
    for t in turns
        .iter()
        .rev()
        .take_while(|t| t.turn.turn.get() + ACTIVE_WINDOW > last)
    {
        for (a, _) in t.artifacts.iter().rev() {
            if !active.contains(a) && active.len() < 5 {
                active.push(a.clone());
            }
        }
    }
    let wm = doc
        .working_memory
        .get_or_insert_with(WorkingMemory::default);
    wm.summary = Some(summary(
        turns,
        built,
        earliest.map(|t| t.as_str()),
        latest.map(|t| t.as_str()),
    ));
    wm.current_goals = (!goals.is_empty()).then_some(goals);
    wm.active_artifacts = (!active.is_empty()).then_some(active);
    let from = turns.len().saturating_sub(recent);
    wm.recent_context = (recent > 0 && !turns.is_empty())
        .then(|| turns[from..].iter().map(|t| t.turn.clone()).collect());
}

/// "N conversations, M turns (dates). Main topics: …. Latest decision: …."
fn summary(
    turns: &[TurnView<'_>],
    built: &Built,
    earliest: Option<&str>,
    latest: Option<&str>,
) -> String {
    let mut conversations: Vec<&str> = turns
        .iter()
        .filter_map(|t| t.turn.conversation_id.as_deref())
        .collect();
    conversations.sort_unstable();
    conversations.dedup();
    let mut text = format!(
        "{} conversation(s), {} turns",
        conversations.len().max(1),
        turns.len()
    );
    if let (Some(a), Some(b)) = (earliest, latest) {
        text.push_str(&format!(
            " ({} to {})",
            &a[..a.len().min(10)],
            &b[..b.len().min(10)]
        ));
    }
    text.push('.');
    let hidden: FastSet<&str> = built
        .nodes
        .iter()
        .filter(|n| !shared(n.scope))
        .map(|n| n.id.as_str())
        .collect();
    let mut mentioned: FastMap<&str, usize> = FastMap::default();
    for e in built.edges.iter().filter(|e| e.relation == "mentions") {
        if !hidden.contains(e.from.as_str()) {
            *mentioned.entry(e.to.as_str()).or_default() += 1;
        }
    }
    let mut topics: Vec<(&str, usize)> = built
        .nodes
        .iter()
        .filter(|n| n.kind == "concept" || n.kind == "entity")
        .filter(|n| shared(n.scope))
        .filter_map(|n| Some((n.label.as_deref()?, *mentioned.get(n.id.as_str())?)))
        .collect();
    topics.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if !topics.is_empty() {
        let names: Vec<&str> = topics.iter().take(6).map(|t| t.0).collect();
        text.push_str(&format!(" Main topics: {}.", names.join(", ")));
    }
    let decisions = built.nodes.iter().rev().filter(|n| shared(n.scope));
    if let Some(d) = decisions.into_iter().find(|n| n.kind == "decision") {
        text.push_str(&format!(
            " Latest decision: {}.",
            d.outcome.as_deref().unwrap_or_default()
        ));
    }
    clip(&text, 500)
}
