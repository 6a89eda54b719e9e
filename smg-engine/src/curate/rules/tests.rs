use smg_format::model::{LifecycleTier, Node, NonEmpty, Scope, Severity, Unit};

use super::*;
use crate::curate::facts::{Facts, Links};

const NOW: i64 = 1_750_000_000;

fn node(kind: &str, status: Option<&str>) -> Node {
    Node {
        status: status.and_then(|s| NonEmpty::new(s).ok()),
        created: Some(smg_format::model::Timestamp::from_static(
            "2024-01-01T00:00:00Z",
        )),
        ..Node::new(NonEmpty::from_static("n"), NonEmpty::new(kind).unwrap())
    }
}

fn rail_of(n: &Node) -> Option<u8> {
    rail(n, &Facts::default(), NOW).map(|r| r.0)
}

#[test]
fn each_rail_protects_on_its_own_and_only_its_own() {
    assert_eq!(rail_of(&node("agent", None)), Some(1));
    assert_eq!(rail_of(&node("agent_key", None)), Some(2));
    for s in ["in_progress", "pending", "blocked"] {
        assert_eq!(rail_of(&node("task", Some(s))), Some(3));
    }
    assert_eq!(rail_of(&node("task", Some("completed"))), None);
    assert_eq!(rail_of(&node("session", Some("active"))), Some(4));
    assert_eq!(rail_of(&node("session", Some("inactive"))), None);
    let mut belief = node("belief", None);
    belief.confidence = Some(Unit::clamped(0.9));
    assert_eq!(rail_of(&belief), Some(5));
    belief.confidence = Some(Unit::clamped(0.89));
    assert_eq!(rail_of(&belief), None);
    let mut reflection = node("reflection", Some("consolidated"));
    reflection.access_count = Some(6);
    assert_eq!(rail_of(&reflection), Some(6));
    reflection.access_count = Some(5);
    assert_eq!(rail_of(&reflection), None);
    assert_eq!(rail_of(&node("migration", None)), Some(7));
    assert_eq!(rail_of(&node("system_config", None)), Some(8));
    let mut fresh = node("memory", None);
    fresh.created = Some(smg_format::model::Timestamp::from_static(
        "2025-06-15T00:00:00Z",
    )); // NOW is 2025-06-15T15:06:40Z
    assert_eq!(rail_of(&fresh), Some(9));
    fresh.created = Some(smg_format::model::Timestamp::from_static(
        "2025-06-14T15:06:39Z",
    ));
    assert_eq!(rail_of(&fresh), None);
    let shared = Facts {
        agents: 4,
        ..Facts::default()
    };
    assert_eq!(
        rail(&node("memory", None), &shared, NOW).map(|r| r.0),
        Some(10)
    );
    let three = Facts {
        agents: 3,
        ..Facts::default()
    };
    assert_eq!(rail(&node("memory", None), &three, NOW), None);
    let mut curated = node("concept", None);
    curated.scope = Some(Scope::Departmental);
    curated.approved_by = Some("head".into());
    assert_eq!(rail_of(&curated), Some(11));
    curated.expiry_date = Some(smg_format::model::DateOrTime::new("2025-01-01").unwrap());
    assert_eq!(rail_of(&curated), None);
}

#[test]
fn ttl_rows_follow_the_seed_table() {
    let none = Links::default();
    let days = |n: &Node, l: &Links| ttl(n, l).map(|t| t.0);
    assert_eq!(days(&node("notification", Some("read")), &none), Some(7.0));
    let mut unread = node("notification", Some("unread"));
    assert_eq!(days(&unread, &none), Some(30.0));
    unread.severity = Some(Severity::Critical);
    assert_eq!(days(&unread, &none), None);
    assert_eq!(days(&node("session", Some("inactive")), &none), Some(1.0));
    assert_eq!(days(&node("task", Some("completed")), &none), Some(14.0));
    let learned = Links {
        learned_from: true,
        ..Links::default()
    };
    assert_eq!(days(&node("task", Some("completed")), &learned), None);
    assert_eq!(days(&node("task", Some("failed")), &none), Some(90.0));
    let mut belief = node("belief", Some("archived"));
    belief.confidence = Some(Unit::clamped(0.2));
    assert_eq!(days(&belief, &none), Some(30.0));
    let cited = Links {
        from_active_belief: true,
        ..Links::default()
    };
    assert_eq!(days(&belief, &cited), None);
    let mut analysis = node("analysis", None);
    analysis.severity = Some(Severity::Low);
    assert_eq!(days(&analysis, &none), Some(60.0));
    let advised = Links {
        recommendation: true,
        ..Links::default()
    };
    assert_eq!(days(&analysis, &advised), None);
    analysis.severity = Some(Severity::High);
    assert_eq!(days(&analysis, &none), Some(180.0));
    assert_eq!(days(&node("segment", Some("keywords")), &none), Some(45.0));
    assert_eq!(days(&node("segment", None), &none), None);
    let mut synthesis = node("synthesis", None);
    assert_eq!(days(&synthesis, &none), Some(120.0));
    synthesis.access_count = Some(4);
    assert_eq!(days(&synthesis, &none), None);
    // smg's own artifact nodes weigh as syntheses but have no TTL.
    assert_eq!(days(&node("artifact", None), &none), None);
}

#[test]
fn tiers_move_by_use_and_an_absent_tier_is_the_archive() {
    let used = |hours: i64, week: u64| Facts {
        last_used: Some(NOW - hours * 3600),
        accesses_7d: week,
        ..Facts::default()
    };
    let none = Links::default();
    let mut n = node("memory", None);
    assert_eq!(tier(&n), LifecycleTier::Archive);
    assert_eq!(
        tier_move(&n, &used(1, 1), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Cold)
    );
    n.tier = Some(LifecycleTier::Hot);
    assert_eq!(tier_move(&n, &used(11, 0), &none, NOW), None);
    assert_eq!(
        tier_move(&n, &used(13, 0), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Warm)
    );
    let session = Links {
        active_session: true,
        ..Links::default()
    };
    assert_eq!(tier_move(&n, &used(13, 0), &session, NOW), None);
    n.tier = Some(LifecycleTier::Warm);
    assert_eq!(
        tier_move(&n, &used(1, 10), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Hot)
    );
    assert_eq!(
        tier_move(&n, &used(49, 1), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Cold)
    );
    assert_eq!(tier_move(&n, &used(49, 2), &none, NOW), None);
    n.tier = Some(LifecycleTier::Cold);
    assert_eq!(
        tier_move(&n, &used(1, 3), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Warm)
    );
    assert_eq!(
        tier_move(&n, &used(91 * 24, 0), &none, NOW).map(|m| m.0),
        Some(LifecycleTier::Archive)
    );
}

#[test]
fn old_segments_go_by_their_use_and_beliefs_are_archived_first() {
    let old = Facts {
        last_used: Some(NOW - 91 * DAY),
        ..Facts::default()
    };
    let mut seg = node("segment", None);
    assert_eq!(retention(&seg, &old, NOW), Some(true));
    seg.access_count = Some(2);
    assert_eq!(retention(&seg, &old, NOW), Some(false));
    assert_eq!(retention(&node("memory", None), &old, NOW), None);
    let mut belief = node("belief", None);
    belief.confidence = Some(Unit::clamped(0.2));
    assert!(belief_to_archive(&belief, Some(NOW - 60 * DAY), NOW));
    assert!(!belief_to_archive(&belief, Some(NOW - 59 * DAY), NOW));
}
