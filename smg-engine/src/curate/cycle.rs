//! One curation cycle: judge every node, then apply what was decided in sequence.

use smg_format::model::{
    Action, AuditEntry, Curation, CycleSummary, Document, Edge, LifecycleTier, Node, NonEmpty,
    Policy, Timestamp,
};

use super::audit::{Applier, Change};
use super::class::Class;
use super::facts::seconds;
use super::plan::{judge_all, plan, Judged, Plan, Step};
use super::rules::{tier, DAY};
use super::{put_graph, tidy, ActionReport, CurateOptions, CycleReport};
use crate::Result;

/// Run one cycle on `doc`'s semantic graph at `options.now`.
pub fn curate(doc: &mut Document, options: &CurateOptions) -> Result<CycleReport> {
    let now = super::facts::time(&options.now);
    let mut curation = doc.curation.take().unwrap_or_default();
    let expired = expire(&mut curation, now);
    let vectors = super::dedup::node_vectors(doc);
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    let mut nodes = graph.nodes.take().unwrap_or_default();
    let mut edges = graph.edges.take().unwrap_or_default();
    let cycle_id = format!("cycle-{}", options.now);
    let mut report = CycleReport {
        scanned: nodes.len(),
        expired,
        ..CycleReport::default()
    };
    // What one action changes (a removal takes edges, and with them centrality) can
    // bring another node to a rule's edge: rounds run until nothing more is to be
    // done, so that a second cycle at the same time finds nothing.
    for _ in 0..MAX_ROUNDS {
        let judged = judge_all(&nodes, &edges, now);
        let round = plan(&nodes, &edges, &judged, &curation, options, now, &vectors);
        if round.plans.is_empty() {
            break;
        }
        let more = round.more_may_follow();
        let plans = round.plans;
        let (kept, entries, removed) = apply(&mut nodes, edges, plans, &judged, options);
        edges = kept;
        record(
            &mut curation,
            &cycle_id,
            entries,
            removed,
            &mut report,
            options,
        );
        if !more {
            break;
        }
    }
    report.tokens = tier_tokens(&nodes);
    put_graph(doc, nodes, edges);
    doc.curation = tidy(curation);
    Ok(report)
}

/// Rounds of a cycle at most: each round acts only on nodes no earlier round touched.
const MAX_ROUNDS: usize = 16;
/// Put a round's entries in the audit log, under the cycle and its summary.
fn record(
    curation: &mut Curation,
    cycle_id: &str,
    entries: Vec<AuditEntry>,
    removed: Vec<String>,
    report: &mut CycleReport,
    options: &CurateOptions,
) {
    let cycles = curation.cycles.get_or_insert_with(Vec::new);
    let at = match cycles.iter().position(|c| c.id == cycle_id) {
        Some(at) => at,
        None => {
            cycles.push(CycleSummary {
                scanned: report.scanned as u64,
                ..CycleSummary::new(cycle_id.to_string(), options.now.clone())
            });
            cycles.len() - 1
        }
    };
    let audit = curation.audit.get_or_insert_with(Vec::new);
    let prefix = format!("{cycle_id}/");
    let mut k = audit.iter().filter(|e| e.id.starts_with(&prefix)).count();
    for e in entries {
        k += 1;
        count(&mut cycles[at], e.action, true);
        let e = AuditEntry {
            id: format!("{prefix}{k}"),
            cycle: Some(cycle_id.to_string()),
            ..e
        };
        report.actions.push(ActionReport::from(&e));
        audit.push(e);
    }
    curation
        .removed
        .get_or_insert_with(Vec::new)
        .extend(removed);
    report.cycle = Some(cycle_id.to_string());
}

/// Drop audit entries and cycle summaries older than the policy keeps them.
fn expire(curation: &mut Curation, now: i64) -> usize {
    let days = curation
        .policy
        .as_ref()
        .and_then(|p| p.audit_days)
        .unwrap_or(Policy::AUDIT_DAYS) as i64;
    let keep = |at: &str| seconds(at).is_none_or(|t| now - t < days * DAY);
    let mut dropped = 0;
    if let Some(a) = curation.audit.as_mut() {
        let n = a.len();
        a.retain(|e| keep(&e.at));
        dropped += n - a.len();
    }
    if let Some(c) = curation.cycles.as_mut() {
        let n = c.len();
        c.retain(|e| keep(&e.at));
        dropped += n - c.len();
    }
    dropped
}
/// Apply the plans: field changes first, then new edges, then removals, each in the
/// order planned. Returns the edges, the audit entries (without ids) and the ids of
/// derived nodes removed.
fn apply(
    nodes: &mut Vec<Node>,
    edges: Vec<Edge>,
    mut plans: Vec<Plan>,
    j: &Judged,
    options: &CurateOptions,
) -> (Vec<Edge>, Vec<AuditEntry>, Vec<String>) {
    let rank = |s: &Step| match s {
        Step::Tier(_) | Step::Archive | Step::Tombstone => 0,
        Step::Relate(_) => 1,
        Step::Merge(_) | Step::Purge => 2,
    };
    plans.sort_by_key(|p| rank(&p.step));
    let mut applier = Applier::new(nodes, edges);
    let mut entries = Vec::with_capacity(plans.len());
    for p in plans {
        let mut change = Change::default();
        let (action, into) = step(&mut applier, &p, &mut change, &options.now);
        let node = applier.node(p.node).id.to_string();
        let score = Some(round(j.scores[p.node].total()));
        let r = applier.record(change);
        entries.push(r.entry(action, &options.now, node, p.reason, score, into));
    }
    let removed = std::mem::take(&mut applier.removed_ids);
    (applier.finish(), entries, removed)
}

/// Make one planned change; the action and, for a merge or relation, the other node.
fn step(
    a: &mut Applier<'_>,
    p: &Plan,
    change: &mut Change,
    now: &Timestamp,
) -> (Action, Option<String>) {
    let i = p.node;
    match p.step {
        Step::Tier(to) => {
            let from = tier(a.node(i));
            a.edit(i, change).tier = Some(to);
            let action = if to < from {
                Action::Promote
            } else {
                Action::Demote
            };
            (action, None)
        }
        Step::Archive => {
            let n = a.edit(i, change);
            n.status = Some(NonEmpty::from_static("archived"));
            n.updated = Some(now.clone());
            (Action::Archive, None)
        }
        Step::Tombstone => {
            let n = a.edit(i, change);
            n.tombstone = Some(true);
            n.deleted_at = Some(now.clone());
            (Action::Tombstone, None)
        }
        Step::Purge => {
            super::fold::unlink(a, i, None, change);
            a.remove(i, change);
            (Action::Purge, None)
        }
        Step::Relate(k) => {
            let (from, to) = (a.node(i).id.clone(), a.node(k).id.clone());
            let edge = Edge {
                timestamp: Some(now.clone()),
                ..Edge::new(from, NonEmpty::from_static("related_to"), to.clone())
            };
            a.add_edge(edge, change);
            (Action::Relate, Some(to.into_string()))
        }
        Step::Merge(keep) => {
            super::fold::fold(a, i, keep, change);
            (Action::Merge, Some(a.node(keep).id.to_string()))
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Add (or take off) one action in a cycle's counts.
pub(crate) fn count(c: &mut CycleSummary, action: Action, add: bool) {
    let n = match action {
        Action::Promote => &mut c.promoted,
        Action::Demote => &mut c.demoted,
        Action::Archive => &mut c.archived,
        Action::Tombstone => &mut c.tombstoned,
        Action::Purge => &mut c.purged,
        Action::Merge => &mut c.merged,
        Action::Relate => &mut c.related,
    };
    *n = if add { *n + 1 } else { n.saturating_sub(1) };
}

/// Whether every count of a cycle is zero (all its actions were undone).
pub(crate) fn is_empty(c: &CycleSummary) -> bool {
    c.promoted + c.demoted + c.archived + c.tombstoned + c.purged + c.merged + c.related == 0
}

/// Tokens per class in HOT, WARM and COLD (tombstones count in no tier).
pub(super) fn tier_tokens(nodes: &[Node]) -> Vec<(Class, LifecycleTier, u64)> {
    let mut sums: std::collections::BTreeMap<(Class, LifecycleTier), u64> = Default::default();
    for n in nodes.iter().filter(|n| n.tombstone != Some(true)) {
        let t = tier(n);
        if t != LifecycleTier::Archive {
            *sums.entry((Class::of(n), t)).or_default() += super::score::tokens(n);
        }
    }
    sums.into_iter().map(|((c, t), n)| (c, t, n)).collect()
}
