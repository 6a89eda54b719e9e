//! What a cycle decides: each node judged by the rails, TTLs, score, retention and
//! tier rules, then the budgets and near-duplicates over all of them.

use smg_format::model::{Curation, Edge, LifecycleTier, Node, Policy};

use super::audit;
use super::class::Class;
use super::facts::{self, last_changed, seconds, Facts, Links};
use super::rules::{self, tier, DAY};
use super::score::{score, verdict, Score, Verdict};
use super::{dedup, CurateOptions};
use crate::fast::{FastMap, FastSet};

/// What a cycle decided for one node.
pub(super) enum Step {
    Tier(LifecycleTier),
    Archive,
    Tombstone,
    Purge,
    Merge(usize),
    Relate(usize),
}

pub(super) struct Plan {
    pub(super) node: usize,
    pub(super) step: Step,
    pub(super) reason: String,
}

/// Everything judged about the nodes, in their order.
pub(super) struct Judged {
    pub(super) facts: Vec<Facts>,
    pub(super) links: Vec<Links>,
    pub(super) scores: Vec<Score>,
    pub(super) rails: Vec<Option<(u8, &'static str)>>,
}

pub(super) fn judge_all(nodes: &[Node], edges: &[Edge], now: i64) -> Judged {
    let (facts, links) = facts::gather(nodes, edges, now);
    let rails: Vec<_> = nodes
        .iter()
        .zip(&facts)
        .map(|(n, f)| rules::rail(n, f, now))
        .collect();
    let scores: Vec<Score> = nodes
        .iter()
        .zip(&facts)
        .zip(&rails)
        .map(|((n, f), r)| score(n, f, now, r.is_some()))
        .collect();
    Judged {
        facts,
        links,
        scores,
        rails,
    }
}

pub(super) fn plan(
    nodes: &[Node],
    edges: &[Edge],
    j: &Judged,
    curation: &Curation,
    options: &CurateOptions,
    now: i64,
    vectors: &FastMap<String, Vec<f32>>,
) -> Round {
    // A node acted on at this time or later is left alone: a second cycle at the same
    // time changes nothing.
    let done: FastSet<&str> = curation
        .audit
        .iter()
        .flatten()
        .filter(|e| seconds(&e.at).is_some_and(|t| t >= now))
        .flat_map(audit::touched)
        .collect();
    let tombstone_days = curation
        .policy
        .as_ref()
        .and_then(|p| p.tombstone_days)
        .unwrap_or(Policy::TOMBSTONE_DAYS) as i64;
    let mut acted: Vec<bool> = nodes.iter().map(|n| done.contains(n.id.as_str())).collect();
    let mut plans = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if acted[i] {
            continue;
        }
        if let Some((step, reason)) = judge(i, n, j, now, tombstone_days) {
            acted[i] = true;
            plans.push(Plan {
                node: i,
                step,
                reason,
            });
        }
    }
    budgets(nodes, j, &mut plans, &mut acted);
    let mut deferred = false;
    if options.dedup {
        let done: Vec<bool> = nodes.iter().map(|n| done.contains(n.id.as_str())).collect();
        deferred = near_duplicates(nodes, edges, j, &mut plans, &mut acted, &done, vectors);
    }
    Round { plans, deferred }
}

/// What one round decided, and whether a pair of near-duplicates waits for the next
/// (one of the two was acted on in this round).
pub(super) struct Round {
    pub(super) plans: Vec<Plan>,
    pub(super) deferred: bool,
}

impl Round {
    /// Whether another round could find more: a pair waits, or the round changes what
    /// other nodes' rules read (their edges, neighbours or statuses).
    pub(super) fn more_may_follow(&self) -> bool {
        self.deferred
            || self.plans.iter().any(|p| {
                matches!(
                    p.step,
                    Step::Purge | Step::Merge(_) | Step::Relate(_) | Step::Archive
                )
            })
    }
}

fn judge(i: usize, n: &Node, j: &Judged, now: i64, tombstone_days: i64) -> Option<(Step, String)> {
    let mvs = j.scores[i].total();
    let rail = j.rails[i];
    if n.tombstone == Some(true) {
        let since = n.deleted_at.as_deref().and_then(seconds)?;
        let days = (now - since) / DAY;
        return (rail.is_none() && days >= tombstone_days).then(|| {
            let why = format!("tombstoned {days} days ago (kept {tombstone_days} days)");
            (Step::Purge, why)
        });
    }
    if rail.is_none() {
        if let Some(step) = prune(n, j, i, mvs, now) {
            return Some(step);
        }
    }
    let (to, why) = rules::tier_move(n, &j.facts[i], &j.links[i], now)?;
    Some((Step::Tier(to), why.to_string()))
}

/// The rules that remove or archive a node no rail protects, in the seed's order:
/// TTL first (a score of 8 or more outlives it), then the score, then retention.
fn prune(n: &Node, j: &Judged, i: usize, mvs: f64, now: i64) -> Option<(Step, String)> {
    let changed = last_changed(n);
    if rules::belief_to_archive(n, changed, now) {
        let why = "active belief below 0.3 confidence unchanged for 60 days: archived";
        return Some((Step::Archive, why.into()));
    }
    if let Some((days, row)) = rules::ttl(n, &j.links[i]) {
        let age = changed.map(|t| (now - t) as f64 / DAY as f64);
        if let Some(age) = age.filter(|&a| a >= days && mvs < 8.0) {
            return Some((Step::Tombstone, format!("TTL {row}; {age:.1} days old")));
        }
    }
    let class = Class::of(n);
    match verdict(mvs) {
        Verdict::PruneNow if matches!(class, Class::Notification | Class::Session) => {
            return Some((Step::Purge, format!("MVS {mvs:.2} < 0.5: removed at once")));
        }
        Verdict::PruneNow | Verdict::Prune => {
            return Some((Step::Tombstone, format!("MVS {mvs:.2} < 1.5")));
        }
        Verdict::Demote => {
            if let Some(to) = tier(n).colder() {
                return Some((Step::Tier(to), format!("MVS {mvs:.2} in [1.5, 3)")));
            }
        }
        Verdict::Keep => {}
    }
    match rules::retention(n, &j.facts[i], now)? {
        true => {
            let why = "M3S 90-day retention: segment unused 90 days, used fewer than 2 times";
            Some((Step::Tombstone, why.into()))
        }
        false if tier(n) != LifecycleTier::Archive => {
            let why = "M3S 90-day retention: segment unused 90 days goes to the archive tier";
            Some((Step::Tier(LifecycleTier::Archive), why.into()))
        }
        false => None,
    }
}

/// Enforce each class's token budget in HOT, WARM and COLD: the least recently used
/// go one tier colder until the rest fit. A node promoted this cycle that does not
/// fit stays where it was.
fn budgets(nodes: &[Node], j: &Judged, plans: &mut Vec<Plan>, acted: &mut [bool]) {
    let mut after: Vec<Option<LifecycleTier>> = nodes
        .iter()
        .map(|n| (n.tombstone != Some(true)).then(|| tier(n)))
        .collect();
    let mut planned: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut cancelled = vec![false; plans.len()];
    for (k, p) in plans.iter().enumerate() {
        planned[p.node] = Some(k);
        after[p.node] = match p.step {
            Step::Tier(t) => Some(t),
            Step::Tombstone | Step::Purge => None,
            _ => after[p.node],
        };
    }
    for level in [LifecycleTier::Hot, LifecycleTier::Warm, LifecycleTier::Cold] {
        let budget = rules::budget(level).expect("budgeted tier");
        let mut members: Vec<usize> = (0..nodes.len())
            .filter(|&i| after[i] == Some(level))
            .collect();
        // Most recently used first; the id breaks ties so that the order is total.
        members.sort_by(|&a, &b| {
            (j.facts[b].last_used, &nodes[a].id).cmp(&(j.facts[a].last_used, &nodes[b].id))
        });
        let mut used: std::collections::BTreeMap<Class, u64> = Default::default();
        for i in members {
            let total = used.entry(Class::of(&nodes[i])).or_default();
            let t = super::score::tokens(&nodes[i]);
            if *total + t <= budget {
                *total += t;
                continue;
            }
            if let Some(k) = planned[i] {
                if matches!(plans[k].step, Step::Tier(to) if to < tier(&nodes[i])) {
                    cancelled[k] = true;
                    after[i] = Some(tier(&nodes[i]));
                }
                continue;
            }
            if acted[i] {
                continue;
            }
            let to = level.colder().expect("budgeted tiers have a colder one");
            acted[i] = true;
            after[i] = Some(to);
            let reason = format!(
                "{} over budget: {} nodes there hold more than {budget} tokens",
                level.name(),
                Class::of(&nodes[i]).name()
            );
            planned[i] = Some(plans.len());
            cancelled.push(false);
            plans.push(Plan {
                node: i,
                step: Step::Tier(to),
                reason,
            });
        }
    }
    let mut k = 0;
    plans.retain(|_| {
        k += 1;
        !cancelled[k - 1]
    });
}

fn near_duplicates(
    nodes: &[Node],
    edges: &[Edge],
    j: &Judged,
    plans: &mut Vec<Plan>,
    acted: &mut [bool],
    done: &[bool],
    vectors: &FastMap<String, Vec<f32>>,
) -> bool {
    let mut deferred = false;
    let eligible: Vec<bool> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            !acted[i]
                && n.tombstone != Some(true)
                && !matches!(
                    Class::of(n),
                    Class::CompressedContext | Class::Synthesis | Class::Agent | Class::AgentKey
                )
        })
        .collect();
    let related: FastSet<(&str, &str)> = edges
        .iter()
        .filter(|e| e.relation == "related_to")
        .flat_map(|e| {
            [
                (e.from.as_str(), e.to.as_str()),
                (e.to.as_str(), e.from.as_str()),
            ]
        })
        .collect();
    for (i, k, sim) in dedup::similar(nodes, &eligible, vectors) {
        if acted[i] || acted[k] {
            deferred |= !(done[i] || done[k]);
            continue;
        }
        let (si, sk) = (j.scores[i].total(), j.scores[k].total());
        // The higher score stays; on a tie, the earlier node.
        let (keep, fold) = if si > sk { (i, k) } else { (k, i) };
        let protected = j.rails[fold].is_some();
        if sim >= dedup::MERGE && !protected {
            acted[i] = true;
            acted[k] = true;
            plans.push(Plan {
                node: fold,
                step: Step::Merge(keep),
                reason: format!(
                    "near-duplicate of {} (similarity {sim:.2} >= 0.70)",
                    nodes[keep].id
                ),
            });
        } else if !related.contains(&(nodes[i].id.as_str(), nodes[k].id.as_str())) {
            acted[i] = true;
            plans.push(Plan {
                node: i,
                step: Step::Relate(k),
                reason: format!("similar to {} (similarity {sim:.2})", nodes[k].id),
            });
        }
    }
    deferred
}
