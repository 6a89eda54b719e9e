use proptest::prelude::*;
use smg_format::codec::to_canonical_json;
use smg_format::limits::Limits;
use smg_format::model::{
    Edge, Graph, LifecycleTier, Node, NonEmpty, Policy, Provenance, Scope, Unit,
};
use smg_format::validate::check_document;
use smg_format::Document;

use super::governance::{add_knowledge, check_approval, Knowledge};
use super::*;

const NOW: &str = "2025-06-15T12:00:00Z";

fn node(id: &str, kind: &str, created: &str) -> Node {
    Node {
        created: Some(smg_format::model::Timestamp::new(created).unwrap()),
        ..Node::new(NonEmpty::new(id).unwrap(), NonEmpty::new(kind).unwrap())
    }
}

fn edge(from: &str, relation: &str, to: &str) -> Edge {
    Edge::new(
        NonEmpty::new(from).unwrap(),
        NonEmpty::new(relation).unwrap(),
        NonEmpty::new(to).unwrap(),
    )
}

fn doc(nodes: Vec<Node>, edges: Vec<Edge>) -> Document {
    let mut d = Document::new(smg_format::model::Timestamp::from_static(
        "2024-01-01T00:00:00Z",
    ));
    d.semantic_graph = Some(Graph {
        nodes: Some(nodes),
        edges: (!edges.is_empty()).then_some(edges),
        ..Graph::default()
    });
    d
}

fn nodes(d: &Document) -> &[Node] {
    d.semantic_graph.as_ref().map_or(&[], |g| g.nodes())
}

fn errors(d: &Document) -> Vec<String> {
    check_document(d, &Limits::default())
        .into_iter()
        .filter(|f| f.severity == smg_format::validate::Severity::Error)
        .map(|f| format!("{} {} {}", f.code, f.pointer, f.message))
        .collect()
}

/// Every kind of thing a cycle does, in one graph.
fn busy() -> Document {
    let mut read = node("note-read", "notification", "2025-05-01T00:00:00Z");
    read.status = Some(NonEmpty::from_static("read"));
    let mut gone = node("note-old", "notification", "2025-01-01T00:00:00Z");
    gone.tombstone = Some(true);
    gone.deleted_at = Some(smg_format::model::Timestamp::from_static(
        "2025-05-01T00:00:00Z",
    ));
    let mut hot = node("hot", "memory", "2025-01-01T00:00:00Z");
    hot.tier = Some(LifecycleTier::Hot);
    hot.content = Some("a fact that was hot once".into());
    let mut a = node("m-a", "memory", "2025-06-01T00:00:00Z");
    a.content = Some("the team prefers postgres for billing data".into());
    a.confidence = Some(Unit::clamped(0.6));
    a.access_count = Some(2);
    a.provenance = Some(vec![Provenance {
        conversation_id: Some("c1".into()),
        ..Provenance::default()
    }]);
    let mut b = a.clone();
    b.id = NonEmpty::from_static("m-b");
    b.content = Some("the team prefers postgres for the billing data".into());
    b.access_count = Some(3);
    b.provenance = Some(vec![Provenance {
        conversation_id: Some("c2".into()),
        ..Provenance::default()
    }]);
    b.related_nodes = Some(vec!["hot".into()]);
    let mut task = node("task", "task", "2025-01-01T00:00:00Z");
    task.status = Some(NonEmpty::from_static("in_progress"));
    let mut done = node("done", "task", "2025-01-01T00:00:00Z");
    done.status = Some(NonEmpty::from_static("completed"));
    done.related_nodes = Some(vec!["note-old".into()]);
    doc(
        vec![read, gone, hot, a, b, task, done],
        vec![
            edge("m-b", "mentions", "hot"),
            edge("done", "part_of", "task"),
            edge("note-old", "references", "task"),
        ],
    )
}

#[test]
fn a_cycle_does_each_thing_once_and_writes_a_valid_file() {
    let mut d = busy();
    let report = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    let did: Vec<(&str, &str)> = report
        .actions
        .iter()
        .map(|a| (a.node.as_str(), a.action.name()))
        .collect();
    assert!(did.contains(&("note-read", "tombstone")), "{did:?}");
    assert!(did.contains(&("note-old", "purge")), "{did:?}");
    assert!(did.contains(&("hot", "demote")), "{did:?}");
    assert!(did.contains(&("done", "tombstone")), "{did:?}");
    assert!(
        did.contains(&("m-a", "merge")) || did.contains(&("m-b", "merge")),
        "{did:?}"
    );
    assert!(
        !did.iter().any(|(n, _)| *n == "task"),
        "an active task is never pruned"
    );
    assert_eq!(errors(&d), Vec::<String>::new());
    let kept = nodes(&d).iter().find(|n| n.id.starts_with("m-")).unwrap();
    assert_eq!(kept.access_count, Some(5));
    assert_eq!(kept.confidence.map(f64::from), Some(0.65));
    assert_eq!(kept.provenance.as_ref().unwrap().len(), 2);
    let summary = &d.curation.as_ref().unwrap().cycles.as_ref().unwrap()[0];
    assert_eq!((summary.purged, summary.merged), (1, 1));
}

#[test]
fn a_second_cycle_at_the_same_time_changes_nothing() {
    let mut d = busy();
    curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    let once = to_canonical_json(&d).unwrap();
    let again = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    assert!(again.actions.is_empty(), "{:?}", again.actions);
    assert_eq!(to_canonical_json(&d).unwrap(), once);
}

#[test]
fn restoring_a_cycle_gives_back_the_same_bytes_and_entries_one_by_one_too() {
    let before = busy();
    let mut d = before.clone();
    let report = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    let mut whole = d.clone();
    restore(&mut whole, report.cycle.as_deref().unwrap()).unwrap();
    assert_eq!(
        to_canonical_json(&whole).unwrap(),
        to_canonical_json(&before).unwrap()
    );
    for a in report.actions.iter().rev() {
        restore(&mut d, &a.id).unwrap();
    }
    assert_eq!(
        to_canonical_json(&d).unwrap(),
        to_canonical_json(&before).unwrap()
    );
}

#[test]
fn restore_refuses_an_unknown_id_and_an_entry_a_later_one_depends_on() {
    let mut d = busy();
    let err = restore(&mut d, "cycle-nope").unwrap_err();
    assert_eq!(err.code(), "SMG-E241");
    let first = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    let hot = first
        .actions
        .iter()
        .find(|a| a.node == "hot")
        .unwrap()
        .id
        .clone();
    move_tier(
        &mut d,
        "hot",
        Direction::Warmer,
        &smg_format::model::Timestamp::from_static("2025-06-16T00:00:00Z"),
        "needed",
    )
    .unwrap();
    let err = restore(&mut d, &hot).unwrap_err();
    assert_eq!(err.code(), "SMG-E242");
}

#[test]
fn tombstones_are_purged_after_the_policys_days_and_not_before() {
    let mut n = node("x", "memory", "2024-01-01T00:00:00Z");
    n.tombstone = Some(true);
    n.deleted_at = Some(smg_format::model::Timestamp::from_static(
        "2025-05-17T12:00:00Z",
    )); // 29 days before NOW
    let mut d = doc(vec![n.clone()], vec![]);
    assert!(curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap())
    )
    .unwrap()
    .actions
    .is_empty());
    n.deleted_at = Some(smg_format::model::Timestamp::from_static(
        "2025-05-16T12:00:00Z",
    )); // 30 days
    let mut d = doc(vec![n], vec![]);
    let r = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    assert_eq!(r.actions[0].action.name(), "purge");
    assert!(nodes(&d).is_empty());
}

#[test]
fn the_hot_tier_keeps_its_budget_least_recently_used_first() {
    let list: Vec<Node> = (0..6)
        .map(|i| {
            let mut n = node(&format!("h{i}"), "belief", "2025-01-01T00:00:00Z");
            n.tier = Some(LifecycleTier::Hot);
            n.confidence = Some(Unit::clamped(0.95));
            n.content = Some("x".repeat(4 * 500));
            n.last_accessed =
                Some(smg_format::model::Timestamp::new(format!("2025-06-15T0{i}:00:00Z")).unwrap());
            n
        })
        .collect();
    let mut d = doc(list, vec![]);
    let r = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    let hot: Vec<&str> = nodes(&d)
        .iter()
        .filter(|n| n.tier == Some(LifecycleTier::Hot))
        .map(|n| n.id.as_str())
        .collect();
    assert_eq!(hot, ["h3", "h4", "h5"], "{:?}", r.actions);
    let (_, _, tokens) = r.tokens.iter().find(|t| t.1 == LifecycleTier::Hot).unwrap();
    assert!(*tokens <= 1600);
}

#[test]
fn near_but_not_same_nodes_are_related_not_merged() {
    let mut a = node("a", "memory", "2025-01-01T00:00:00Z");
    a.content = Some("alpha beta gamma delta epsilon zeta eta theta".into());
    a.confidence = Some(Unit::clamped(0.9));
    let mut b = a.clone();
    b.id = NonEmpty::from_static("b");
    b.content = Some("alpha beta gamma delta epsilon zeta iota kappa lambda mu".into());
    let mut d = doc(vec![a, b], vec![]);
    let r = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()),
    )
    .unwrap();
    assert_eq!(r.actions.len(), 1, "{:?}", r.actions);
    assert_eq!(r.actions[0].action.name(), "relate");
    let g = d.semantic_graph.as_ref().unwrap();
    assert_eq!(g.nodes().len(), 2);
    assert_eq!(g.edges()[0].relation, "related_to");
    let off = curate(
        &mut doc(vec![], vec![]),
        &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap()).with_dedup(false),
    )
    .unwrap();
    assert!(off.actions.is_empty());
}

#[test]
fn retrievals_reactivate_a_node_and_are_kept_for_90_days_at_most_64() {
    let mut d = doc(vec![node("a", "memory", "2024-01-01T00:00:00Z")], vec![]);
    for day in 1..=70 {
        let at = format!("2025-03-{:02}T00:00:00Z", day.min(31));
        record_access(
            &mut d,
            &["a", "missing"],
            &smg_format::model::Timestamp::new(at).unwrap(),
            Some("agent-1"),
        )
        .unwrap();
    }
    let n = &nodes(&d)[0];
    assert_eq!(n.access_count, Some(70));
    assert_eq!(n.recent_accesses.as_ref().unwrap().len(), 64);
    let r = curate(
        &mut d,
        &CurateOptions::at(smg_format::model::Timestamp::from_static(
            "2025-03-31T12:00:00Z",
        )),
    )
    .unwrap();
    assert_eq!(
        r.actions[0].reason,
        "ARCHIVE -> COLD: used again (SMG §9.2 reactivation)"
    );
    // A time that is not RFC 3339 cannot be given at all.
    assert!(smg_format::model::Timestamp::new("yesterday").is_err());
}

#[test]
fn governance_thresholds_and_approvers_come_from_the_policy() {
    let policy = Policy {
        approvers: Some([("finance".to_string(), vec!["head".to_string()])].into()),
        executives: Some(vec!["cfo".into()]),
        ..Policy::default()
    };
    let p = Some(&policy);
    let dept = |c: f64, who: Option<&str>| {
        check_approval(p, Scope::Departmental, Some("finance"), c, who).map_err(|e| e.code())
    };
    assert_eq!(dept(0.849, Some("head")), Err("SMG-E120"));
    assert_eq!(dept(0.85, Some("head")), Ok(()));
    assert_eq!(dept(0.9, None), Err("SMG-E121"));
    assert_eq!(dept(0.9, Some("cfo")), Err("SMG-E240"));
    let global = |c: f64, who: &str| {
        check_approval(p, Scope::Global, None, c, Some(who)).map_err(|e| e.code())
    };
    assert_eq!(global(0.899, "cfo"), Err("SMG-E120"));
    assert_eq!(global(0.90, "cfo"), Ok(()));
    assert_eq!(global(0.95, "head"), Err("SMG-E240"));
    let mut d = Document::new(smg_format::model::Timestamp::new(NOW).unwrap());
    d.curation = Some(smg_format::model::Curation {
        policy: Some(policy),
        ..Default::default()
    });
    let mut k = Knowledge::new(
        "Close books",
        "Books close on the 3rd",
        0.9,
        smg_format::model::Timestamp::new(NOW).unwrap(),
    );
    k.scope = Some(Scope::Departmental);
    k.department = Some("finance".into());
    k.approved_by = Some("head".into());
    let id = add_knowledge(&mut d, k).unwrap();
    assert!(id.starts_with("know-"));
    assert_eq!(errors(&d), Vec::<String>::new());
}

fn arb_node(i: usize) -> impl Strategy<Value = Node> {
    let kinds = prop::sample::select(vec![
        "memory",
        "notification",
        "task",
        "belief",
        "session",
        "segment",
        "decision",
    ]);
    let status = prop::option::of(prop::sample::select(vec![
        "active",
        "read",
        "unread",
        "completed",
        "inactive",
        "in_progress",
    ]));
    let words = prop::sample::select(vec![
        "alpha", "beta", "gamma", "delta", "postgres", "billing",
    ]);
    (
        kinds,
        status,
        0u32..400,
        prop::option::of(0.0f64..1.0),
        prop::option::of(prop::sample::select(vec![
            LifecycleTier::Hot,
            LifecycleTier::Warm,
            LifecycleTier::Cold,
        ])),
        prop::collection::vec(words, 0..6),
        any::<bool>(),
    )
        .prop_map(move |(kind, status, age, confidence, tier, words, dead)| {
            let day = chrono::DateTime::parse_from_rfc3339(NOW).unwrap()
                - chrono::Duration::days(age as i64);
            let at = day
                .to_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Node {
                status: status.map(NonEmpty::from_static),
                created: Some(smg_format::model::Timestamp::new(at.clone()).unwrap()),
                confidence: confidence.map(|c| Unit::clamped((c * 100.0).round() / 100.0)),
                tier,
                content: Some(words.join(" ")),
                tombstone: dead.then_some(true),
                deleted_at: dead.then_some(smg_format::model::Timestamp::new(at).unwrap()),
                ..Node::new(
                    NonEmpty::new(format!("n{i}")).unwrap(),
                    NonEmpty::new(kind).unwrap(),
                )
            }
        })
}

fn arb_doc() -> impl Strategy<Value = Document> {
    (1usize..24).prop_flat_map(|n| {
        let list: Vec<_> = (0..n).map(arb_node).collect();
        let edges = prop::collection::vec((0..n, 0..n), 0..n * 2);
        (list, edges).prop_map(|(list, pairs)| {
            let edges = pairs
                .into_iter()
                .map(|(a, b)| edge(&format!("n{a}"), "related_to", &format!("n{b}")))
                .collect::<Vec<_>>();
            let mut seen = std::collections::BTreeSet::new();
            let edges = edges
                .into_iter()
                .filter(|e| seen.insert((e.from.clone(), e.to.clone())))
                .collect();
            doc(list, edges)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn any_cycle_writes_a_valid_file_is_idempotent_and_undoes_exactly(d in arb_doc()) {
        let before = to_canonical_json(&d).unwrap();
        let protected: Vec<String> = nodes(&d)
            .iter()
            .filter(|n| n.kind == "task" && n.status.as_deref() == Some("in_progress"))
            .filter(|n| n.tombstone.is_none())
            .map(|n| n.id.to_string())
            .collect();
        let mut d = d;
        let r = curate(&mut d, &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap())).unwrap();
        prop_assert_eq!(errors(&d), Vec::<String>::new());
        for id in &protected {
            let n = nodes(&d).iter().find(|n| n.id == *id);
            prop_assert!(n.is_some_and(|n| n.tombstone.is_none()), "{} pruned", id);
        }
        let after = to_canonical_json(&d).unwrap();
        prop_assert!(curate(&mut d, &CurateOptions::at(smg_format::model::Timestamp::new(NOW).unwrap())).unwrap().actions.is_empty());
        prop_assert_eq!(&to_canonical_json(&d).unwrap(), &after);
        if let Some(cycle) = r.cycle {
            restore(&mut d, &cycle).unwrap();
        }
        prop_assert_eq!(to_canonical_json(&d).unwrap(), before);
    }
}

#[test]
fn scores_weigh_without_changing_and_fade_with_time() {
    let d = doc(
        vec![
            node("t1", "task", "2025-06-15T00:00:00Z"),
            node("t2", "task", "2025-05-18T12:00:00Z"),
            node("a1", "agent", "2020-01-01T00:00:00Z"),
        ],
        vec![],
    );
    let before = d.clone();
    let s: Vec<Score> = scores(
        d.semantic_graph.as_ref().unwrap(),
        &smg_format::model::Timestamp::new(NOW).unwrap(),
    );
    assert_eq!(d, before);
    assert_eq!(s.len(), 3, "one score per node, in graph order");
    // A task's half-life is 14 days: 28 days old is a quarter as fresh.
    assert!((s[1].recency - 0.75).abs() < 1e-9, "{:?}", s[1]);
    assert!(s[0].recency > 2.9);
    // Agents never decay.
    assert_eq!(s[2].recency, 3.0);
}
