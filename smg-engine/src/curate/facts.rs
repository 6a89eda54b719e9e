//! What curation's rules read about each node, gathered once per cycle: when it was
//! last used, how often and by whom, and which neighbours it has.

use chrono::DateTime;
use smg_format::model::{Access, Edge, Node, RecentAccesses, Timestamp};

use super::class::{status, Class};
use crate::fast::FastMap;

const WEEK: i64 = 7 * 86_400;
/// For how many days a node keeps its retrievals (spec §18.2).
pub(crate) const KEPT_DAYS: i64 = 90;

/// Unix seconds of an RFC 3339 date-time.
pub(crate) fn seconds(t: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(t).ok().map(|t| t.timestamp())
}

/// A node's retrievals `list` with `more`, kept as `recentAccesses` are: the 90 days
/// before `now` (when given), at most [`RecentAccesses::MAX`], oldest first.
pub(crate) fn keep_recent(
    list: Option<RecentAccesses>,
    more: impl IntoIterator<Item = Access>,
    now: Option<i64>,
) -> RecentAccesses {
    let mut all: Vec<Access> = list.map(Vec::from).unwrap_or_default();
    all.extend(more);
    if let Some(now) = now {
        all.retain(|a| now - time(&a.at) < KEPT_DAYS * 86_400);
    }
    RecentAccesses::newest(all)
}

/// The later of two optional times (by their instant, not their text).
pub(crate) fn later(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if time(&y) > time(&x) { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// Unix seconds of a checked time.
pub(crate) fn time(t: &Timestamp) -> i64 {
    t.instant().timestamp()
}

/// What one node's score reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Facts {
    /// The latest of its retrieval, change, creation and the times it was said.
    pub(crate) last_used: Option<i64>,
    /// Retrievals in the 7 days before now.
    pub(crate) accesses_7d: u64,
    /// Edges that touch it.
    pub(crate) degree: u64,
    /// Distinct agents that made or retrieved it.
    pub(crate) agents: u64,
}

/// What a node's neighbours say, for the rails and the TTL rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Links {
    /// An edge to or from an active session.
    pub(crate) active_session: bool,
    /// An edge to or from a task in progress.
    pub(crate) task_in_progress: bool,
    /// A `learned_from` edge.
    pub(crate) learned_from: bool,
    /// An edge from an active belief.
    pub(crate) from_active_belief: bool,
    /// An edge to or from a recommendation.
    pub(crate) recommendation: bool,
}

/// The latest time the node was used or said, in Unix seconds.
pub(crate) fn last_used(node: &Node) -> Option<i64> {
    last_changed(node).max(node.last_accessed.as_deref().and_then(seconds))
}

/// The latest time the node was changed, made or said (not retrieved).
pub(crate) fn last_changed(node: &Node) -> Option<i64> {
    let provenance = node
        .provenance
        .iter()
        .flatten()
        .filter_map(|p| p.timestamp.as_deref());
    [&node.updated, &node.timestamp, &node.created]
        .into_iter()
        .filter_map(|t| t.as_deref())
        .chain(provenance)
        .filter_map(seconds)
        .max()
}

/// Retrievals of `node` after `now` − 7 days.
pub(crate) fn accesses_7d(node: &Node, now: i64) -> u64 {
    node.recent_accesses
        .iter()
        .flatten()
        .map(|a| time(&a.at))
        .filter(|&t| t > now - WEEK && t <= now)
        .count() as u64
}

/// Distinct agents that retrieved `n` or made it (unless derived): a scan of at most
/// 65 names, without allocating.
fn agents(n: &Node) -> u64 {
    let made = n.created_by.as_deref().filter(|_| !n.is_derived());
    let names = n
        .recent_accesses
        .iter()
        .flatten()
        .filter_map(|a| a.by.as_deref())
        .chain(made);
    let mut count = 0;
    for (k, name) in names.clone().enumerate() {
        if !names.clone().take(k).any(|earlier| earlier == name) {
            count += 1;
        }
    }
    count
}

/// The facts of every node, in the order of `nodes`.
pub(crate) fn gather(nodes: &[Node], edges: &[Edge], now: i64) -> (Vec<Facts>, Vec<Links>) {
    let at: FastMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut facts: Vec<Facts> = nodes
        .iter()
        .map(|n| Facts {
            last_used: last_used(n),
            accesses_7d: accesses_7d(n, now),
            degree: 0,
            agents: agents(n),
        })
        .collect();
    let mut links = vec![Links::default(); nodes.len()];
    for e in edges {
        let (Some(&a), Some(&b)) = (at.get(e.from.as_str()), at.get(e.to.as_str())) else {
            continue;
        };
        facts[a].degree += 1;
        facts[b].degree += 1;
        let learned = e.relation.eq_ignore_ascii_case("learned_from");
        for (me, other, other_is_source) in [(a, b, false), (b, a, true)] {
            let o = &nodes[other];
            let (class, state) = (Class::of(o), status(o));
            let l = &mut links[me];
            l.active_session |= class == Class::Session && state == "active";
            l.task_in_progress |= class == Class::Task && state == "in_progress";
            l.learned_from |= learned;
            l.from_active_belief |= other_is_source && class == Class::Belief && state == "active";
            l.recommendation |= class == Class::Recommendation;
        }
    }
    (facts, links)
}
