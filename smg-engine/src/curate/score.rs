//! The memory value score (Jochi MVS, spec §18.3): an additive score of a node's type,
//! recency, use, quality, connections and reach, less a penalty for bloat.

use smg_format::model::{Node, Severity};

use super::class::Class;
use super::facts::Facts;

const DAY: f64 = 86_400.0;

/// The score and its parts (spec §18.3), each in the seed's range.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Score {
    /// 0.5–10.0 by class.
    pub type_weight: f64,
    /// 0–3: 3 × 0.5^(days since last use / half-life).
    pub recency: f64,
    /// 0–2: 2 × log10(1 + retrievals in the last 7 days), at most 2.
    pub frequency: f64,
    /// 0–2: 2 × confidence, or the severity's worth, whichever is more.
    pub quality: f64,
    /// 0–1.5: 0.5 × ln(1 + edges), at most 1.5.
    pub centrality: f64,
    /// 0–2: 0.5 per agent beyond the first that used it, at most 2.
    pub cross_agent: f64,
    /// 0–1.5: (tokens − 500) / 500 over 500 tokens, at most 1.5.
    pub bloat: f64,
    /// 100 for a node a never-prune rail protects, else 1.
    pub safety: f64,
}

impl Score {
    /// The memory value score: the parts added, the bloat taken off, times safety.
    pub fn total(&self) -> f64 {
        (self.type_weight
            + self.recency
            + self.frequency
            + self.quality
            + self.centrality
            + self.cross_agent
            - self.bloat)
            * self.safety
    }
}

/// Tokens of a node's text: characters / 4, rounded up (the rule `smg context` uses).
pub(crate) fn tokens(node: &Node) -> u64 {
    let chars: usize = crate::graph::node_texts(node)
        .map(|s| s.chars().count())
        .sum();
    chars.div_ceil(4) as u64
}

/// Score `node` at `now` (Unix seconds) given what the graph says about it.
pub(crate) fn score(node: &Node, facts: &Facts, now: i64, protected: bool) -> Score {
    let class = Class::of(node);
    let (type_weight, half_life) = class.weight(node);
    let recency = match (half_life, facts.last_used) {
        (None, _) => 3.0,
        (Some(_), None) => 0.0,
        (Some(h), Some(t)) => {
            let days = ((now - t) as f64 / DAY).max(0.0);
            3.0 * 0.5_f64.powf(days / h)
        }
    };
    let frequency = (2.0 * (1.0 + facts.accesses_7d as f64).log10()).min(2.0);
    let severity = node.severity.map_or(0.0, |s| match s {
        Severity::Info => 0.25,
        Severity::Low => 0.5,
        Severity::Medium => 1.0,
        Severity::High => 1.5,
        Severity::Critical => 2.0,
    });
    let quality = (2.0 * node.confidence.map_or(0.0, f64::from)).max(severity);
    let centrality = (0.5 * (1.0 + facts.degree as f64).ln()).min(1.5);
    let cross_agent = (0.5 * facts.agents.saturating_sub(1) as f64).min(2.0);
    let over = tokens(node).saturating_sub(500) as f64;
    let bloat = (over / 500.0).min(1.5);
    Score {
        type_weight,
        recency,
        frequency,
        quality,
        centrality,
        cross_agent,
        bloat,
        safety: if protected { 100.0 } else { 1.0 },
    }
}

/// What the score says to do (Jochi's action thresholds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// 3.0 and over: keep (3–5 may merge when a near-duplicate exists).
    Keep,
    /// 1.5 to 3.0: one tier colder.
    Demote,
    /// 0.5 to 1.5: tombstone.
    Prune,
    /// Under 0.5: tombstone, or purge at once for notifications and sessions.
    PruneNow,
}

pub(crate) fn verdict(mvs: f64) -> Verdict {
    if mvs >= 3.0 {
        Verdict::Keep
    } else if mvs >= 1.5 {
        Verdict::Demote
    } else if mvs >= 0.5 {
        Verdict::Prune
    } else {
        Verdict::PruneNow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(kind: &str) -> Node {
        Node::new(
            smg_format::model::NonEmpty::from_static("n"),
            smg_format::model::NonEmpty::new(kind).unwrap(),
        )
    }

    const NOW: i64 = 1_750_000_000;

    #[test]
    fn an_active_confident_belief_used_today_scores_by_the_seed() {
        let mut n = node("belief");
        n.confidence = Some(smg_format::model::Unit::clamped(0.8));
        let facts = Facts {
            last_used: Some(NOW),
            accesses_7d: 9,
            degree: 3,
            agents: 3,
        };
        let s = score(&n, &facts, NOW, false);
        // 10 + 3 + 2·log10(10) + 2·0.8 + 0.5·ln 4 + 0.5·2 − 0
        assert_eq!(s.type_weight, 10.0);
        assert_eq!(s.recency, 3.0);
        assert!((s.frequency - 2.0).abs() < 1e-12);
        assert!((s.quality - 1.6).abs() < 1e-12);
        assert!((s.centrality - 0.5 * 4f64.ln()).abs() < 1e-12);
        assert_eq!(s.cross_agent, 1.0);
        assert!((s.total() - (17.6 + 0.5 * 4f64.ln())).abs() < 1e-9);
    }

    #[test]
    fn recency_halves_each_half_life_and_caps_hold() {
        let n = node("reflection");
        let ninety_days = 90 * 86_400;
        let facts = Facts {
            last_used: Some(NOW - ninety_days),
            accesses_7d: 1000,
            degree: 1000,
            agents: 40,
        };
        let s = score(&n, &facts, NOW, false);
        assert!((s.recency - 1.5).abs() < 1e-12);
        assert_eq!((s.frequency, s.centrality, s.cross_agent), (2.0, 1.5, 2.0));
        let facts = Facts {
            last_used: Some(NOW - 2 * ninety_days),
            ..Facts::default()
        };
        assert!((score(&n, &facts, NOW, false).recency - 0.75).abs() < 1e-12);
    }

    #[test]
    fn bloat_costs_up_to_one_and_a_half_and_safety_multiplies() {
        let mut n = node("memory");
        n.content = Some("x".repeat(4 * 750));
        let s = score(&n, &Facts::default(), NOW, false);
        assert!((s.bloat - 0.5).abs() < 1e-12);
        n.content = Some("x".repeat(4 * 5000));
        let s = score(&n, &Facts::default(), NOW, true);
        assert_eq!(s.bloat, 1.5);
        assert!((s.total() - 100.0 * (2.5 - 1.5)).abs() < 1e-9);
    }

    #[test]
    fn the_action_thresholds_are_the_seeds() {
        assert_eq!(verdict(8.0), Verdict::Keep);
        assert_eq!(verdict(3.0), Verdict::Keep);
        assert_eq!(verdict(2.999), Verdict::Demote);
        assert_eq!(verdict(1.5), Verdict::Demote);
        assert_eq!(verdict(1.499), Verdict::Prune);
        assert_eq!(verdict(0.5), Verdict::Prune);
        assert_eq!(verdict(0.499), Verdict::PruneNow);
    }

    #[test]
    fn smg_types_fall_under_the_seed_classes() {
        let of = |k: &str| Class::of(&node(k));
        assert_eq!(of("decision"), Class::Belief);
        assert_eq!(of("segment"), Class::CompressedContext);
        assert_eq!(of("Session_Context"), Class::Session);
        assert_eq!(of("entity"), Class::MemoryEntry);
        assert_eq!(of("agent_key"), Class::AgentKey);
    }
}
