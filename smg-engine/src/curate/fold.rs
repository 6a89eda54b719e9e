//! A near-duplicate folded into the node that stays (spec §18.7), and other nodes'
//! `relatedNodes` pointed away from a node that leaves.

use smg_format::model::{Edge, Node, NonEmpty, Unit};

use super::audit::{Applier, Change};
use super::facts::{keep_recent, later};

/// Fold node `fold` into `keep` (memgraph's rule): retrievals add up, provenance and
/// recent retrievals are the union, confidence rises by 0.05, edges move to `keep`,
/// and `fold` leaves the graph.
pub(super) fn fold(a: &mut Applier<'_>, fold: usize, keep: usize, change: &mut Change) {
    let gone: Node = a.node(fold).clone();
    let kept_id = a.node(keep).id.clone();
    {
        let n = a.edit(keep, change);
        if let Some(c) = gone.access_count {
            n.access_count = Some(n.access_count.unwrap_or(0) + c);
        }
        n.last_accessed = later(n.last_accessed.take(), gone.last_accessed.clone());
        for p in gone.provenance.iter().flatten() {
            let list = n.provenance.get_or_insert_with(Vec::new);
            if !list.contains(p) {
                list.push(p.clone());
            }
        }
        if let Some(c) = n.confidence.or(gone.confidence).map(Unit::get) {
            n.confidence = Some(Unit::clamped(
                ((c + 0.05).min(1.0) * 1000.0).round() / 1000.0,
            ));
        }
        if let Some(more) = &gone.recent_accesses {
            let list = keep_recent(n.recent_accesses.take(), more.iter().cloned(), None);
            n.recent_accesses = Some(list);
        }
        for r in gone.related_nodes.iter().flatten() {
            let list = n.related_nodes.get_or_insert_with(Vec::new);
            if *r != kept_id && *r != gone.id && !list.contains(r) {
                list.push(r.clone());
            }
        }
    }
    if a.node(keep).related_nodes.is_some() {
        a.names_others(keep);
    }
    unlink(a, fold, Some(keep), change);
    for e in a.drop_edges(&gone.id, change) {
        let moved = |x: NonEmpty| if x == gone.id { kept_id.clone() } else { x };
        let edge = Edge {
            from: moved(e.from),
            to: moved(e.to),
            ..e
        };
        if edge.from != edge.to && !a.has_edge(&edge.from, &edge.relation, &edge.to) {
            a.add_edge(edge, change);
        }
    }
    a.remove(fold, change);
}

/// Point other nodes' `relatedNodes` at `instead` where they named node `i`.
pub(super) fn unlink(a: &mut Applier<'_>, i: usize, instead: Option<usize>, change: &mut Change) {
    let id = a.node(i).id.clone();
    let new = instead.map(|k| a.node(k).id.clone());
    for k in a.naming(&id) {
        let n = a.edit(k, change);
        let list = n.related_nodes.get_or_insert_with(Vec::new);
        list.retain(|r| *r != id);
        if let Some(new) = new
            .as_ref()
            .filter(|new| **new != n.id && !list.iter().any(|r| r == *new))
        {
            list.push(new.to_string());
        }
        if list.is_empty() {
            n.related_nodes = None;
        }
    }
}
