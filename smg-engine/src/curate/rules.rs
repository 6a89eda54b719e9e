//! The rules a score does not decide (spec §18.4–18.6): the never-prune rails, the
//! TTL table, tier moves, per-class token budgets and M3S's 90-day retention.

use smg_format::model::{LifecycleTier, Node, Scope, Severity};

use super::class::{status, Class};
use super::facts::{seconds, Facts, Links};

pub(crate) const DAY: i64 = 86_400;
const HOUR: i64 = 3_600;

/// The token budget of a tier, per class (Jochi: HOT 1600, WARM 400, COLD 200).
pub(crate) fn budget(tier: LifecycleTier) -> Option<u64> {
    match tier {
        LifecycleTier::Hot => Some(1600),
        LifecycleTier::Warm => Some(400),
        LifecycleTier::Cold => Some(200),
        LifecycleTier::Archive => None,
    }
}

/// The tier a node is in: absent means `ARCHIVE` (kept, offered only when searched for).
pub(crate) fn tier(node: &Node) -> LifecycleTier {
    node.tier.unwrap_or(LifecycleTier::Archive)
}

/// When the node was made: `created`, else the first time it was said.
fn created(node: &Node) -> Option<i64> {
    node.created
        .as_deref()
        .and_then(seconds)
        .or_else(|| node.timestamp.as_deref().and_then(seconds))
        .or_else(|| {
            node.provenance
                .iter()
                .flatten()
                .filter_map(|p| p.timestamp.as_deref().and_then(seconds))
                .min()
        })
}

/// The never-prune rail that protects `node`, if one does: its number (Jochi's list,
/// 1–10; 11 is smg's own) and why.
pub(crate) fn rail(node: &Node, facts: &Facts, now: i64) -> Option<(u8, &'static str)> {
    let state = status(node);
    let rail = match Class::of(node) {
        Class::Agent => (1, "agent identity"),
        Class::AgentKey => (2, "agent key"),
        Class::Task if matches!(state.as_str(), "in_progress" | "pending" | "blocked") => {
            (3, "active task")
        }
        Class::Session if state == "active" => (4, "active session"),
        Class::Belief if state == "active" && node.confidence.map_or(0.0, f64::from) >= 0.9 => {
            (5, "active belief held with confidence >= 0.9")
        }
        Class::Reflection if state == "consolidated" && node.access_count.unwrap_or(0) > 5 => {
            (6, "consolidated reflection used more than 5 times")
        }
        Class::Migration => (7, "migration"),
        Class::SystemConfig => (8, "system configuration"),
        _ if created(node).is_some_and(|t| now - t < DAY) => {
            (9, "created within the last 24 hours")
        }
        _ if facts.agents >= 4 => (10, "used by 4 or more agents"),
        _ if approved_and_current(node, now) => {
            (11, "approved curated knowledge before its expiry date")
        }
        _ => return None,
    };
    Some(rail)
}

fn approved_and_current(node: &Node, now: i64) -> bool {
    let curated = matches!(node.scope, Some(Scope::Departmental | Scope::Global));
    let expired = node
        .expiry_date
        .as_deref()
        .and_then(date_seconds)
        .is_some_and(|t| t + DAY <= now);
    curated && node.approved_by.is_some() && !expired
}

/// Unix seconds of an RFC 3339 date or date-time.
fn date_seconds(t: &str) -> Option<i64> {
    seconds(t).or_else(|| {
        chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| d.and_utc().timestamp())
    })
}

/// A TTL row that applies to `node`: days, and the row in words.
pub(crate) fn ttl(node: &Node, links: &Links) -> Option<(f64, &'static str)> {
    let state = status(node);
    let uses = node.access_count.unwrap_or(0);
    let class = Class::of(node);
    let explicit = |name: &str| node.kind.eq_ignore_ascii_case(name);
    match (class, state.as_str()) {
        (Class::Notification, "read") => Some((7.0, "read notification: 7 days")),
        (Class::Notification, "unread") if node.severity != Some(Severity::Critical) => {
            Some((30.0, "unread notification: 30 days"))
        }
        (Class::Session, "inactive") => Some((1.0, "inactive session: 24 hours")),
        (Class::Task, "completed") if !links.learned_from => {
            Some((14.0, "completed task without learned_from: 14 days"))
        }
        (Class::Task, "failed") => Some((90.0, "failed task: 90 days")),
        (Class::Belief, "archived")
            if node.confidence.map_or(0.0, f64::from) < 0.3 && !links.from_active_belief =>
        {
            Some((30.0, "archived belief below 0.3 confidence: 30 days"))
        }
        (Class::Reflection, "consolidated") if uses <= 5 => {
            Some((90.0, "consolidated reflection: 90 days"))
        }
        (Class::Analysis, _) => match node.severity {
            Some(Severity::Low | Severity::Info) if !links.recommendation => Some((
                60.0,
                "low-severity analysis without recommendation: 60 days",
            )),
            Some(Severity::High | Severity::Critical) => {
                Some((180.0, "high-severity analysis: 180 days"))
            }
            _ => None,
        },
        (Class::CompressedContext, "keywords") if uses == 0 => Some((
            45.0,
            "keywords-level compressed context never used: 45 days",
        )),
        (Class::Synthesis, _) if explicit("synthesis") && uses <= 3 => {
            Some((120.0, "synthesis used 3 times or fewer: 120 days"))
        }
        _ => None,
    }
}

/// Whether an active belief held below 0.3 confidence is 60 days old: it is archived
/// first, and its TTL runs from then.
pub(crate) fn belief_to_archive(node: &Node, last_changed: Option<i64>, now: i64) -> bool {
    Class::of(node) == Class::Belief
        && status(node) == "active"
        && node.confidence.is_some_and(|c| c.get() < 0.3)
        && last_changed.is_some_and(|t| now - t >= 60 * DAY)
}

/// A tier move by Jochi's demotion and promotion rules, with the rule in words.
pub(crate) fn tier_move(
    node: &Node,
    facts: &Facts,
    links: &Links,
    now: i64,
) -> Option<(LifecycleTier, &'static str)> {
    let idle = |limit: i64| facts.last_used.is_none_or(|t| now - t > limit);
    let week = facts.accesses_7d;
    let to = match tier(node) {
        LifecycleTier::Hot if idle(12 * HOUR) && !links.active_session => (
            LifecycleTier::Warm,
            "HOT -> WARM: not used for 12 hours, no active session refers to it",
        ),
        LifecycleTier::Warm if week >= 10 || links.task_in_progress => (
            LifecycleTier::Hot,
            "WARM -> HOT: used 10+ times in 7 days or linked to a task in progress",
        ),
        LifecycleTier::Warm if idle(48 * HOUR) && week < 2 => (
            LifecycleTier::Cold,
            "WARM -> COLD: not used for 48 hours and under 2 uses in 7 days",
        ),
        LifecycleTier::Cold if week >= 3 || links.active_session => (
            LifecycleTier::Warm,
            "COLD -> WARM: used 3+ times in 7 days or referred to by an active session",
        ),
        LifecycleTier::Cold if idle(90 * DAY) => (
            LifecycleTier::Archive,
            "COLD -> ARCHIVE: not used for 90 days",
        ),
        LifecycleTier::Archive if week >= 1 => (
            LifecycleTier::Cold,
            "ARCHIVE -> COLD: used again (SMG §9.2 reactivation)",
        ),
        _ => return None,
    };
    Some(to)
}

/// M3S §9.3: a segment unused for 90 days goes when it was used fewer than 2 times
/// (the archive keeps its turns), else it moves to the archive tier.
pub(crate) fn retention(node: &Node, facts: &Facts, now: i64) -> Option<bool> {
    let old = facts.last_used.is_some_and(|t| now - t > 90 * DAY);
    (node.kind == "segment" && old).then(|| node.access_count.unwrap_or(0) < 2)
}

#[cfg(test)]
mod tests;
