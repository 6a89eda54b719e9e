use super::*;
use smg_format::model::{Edge, Graph, NonEmpty, Unit};

fn node(id: &str, kind: &str, label: &str, time: &str) -> Node {
    Node {
        label: Some(label.into()),
        importance: Some(Unit::clamped(0.5)),
        timestamp: (!time.is_empty()).then(|| smg_format::model::Timestamp::new(time).unwrap()),
        ..Node::new(NonEmpty::new(id).unwrap(), NonEmpty::new(kind).unwrap())
    }
}

fn doc() -> Document {
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    let edge = |from: &str, to: &str, relation: &str| {
        Edge::new(
            NonEmpty::new(from).unwrap(),
            NonEmpty::new(relation).unwrap(),
            NonEmpty::new(to).unwrap(),
        )
    };
    doc.semantic_graph = Some(Graph {
        nodes: Some(vec![
            node("ada", "entity", "Ada", ""),
            node(
                "m1",
                "memory",
                "Ada moved to Lisbon",
                "2025-01-01T00:00:00Z",
            ),
            node(
                "m2",
                "memory",
                "The bakery opens at nine",
                "2024-01-01T00:00:00Z",
            ),
            node("seg", "segment", "about Lisbon", ""),
            node("m3", "memory", "She loves the tram", "2025-01-01T00:00:00Z"),
            node("m4", "memory", "Unrelated", "2025-01-01T00:00:00Z"),
        ]),
        edges: Some(vec![
            edge("m1", "ada", "mentions"),
            edge("m1", "seg", "part_of"),
            edge("m3", "seg", "part_of"),
            edge("m1", "m4", "next"),
        ]),
        ..Graph::default()
    });
    doc
}

#[test]
fn names_match_whole_words_in_any_case() {
    let ix = Nodes::new(&doc(), None).unwrap();
    assert_eq!(ix.named_in("What did ADA do?"), [0]);
    assert!(ix.named_in("Adam and canada").is_empty());
    assert!(ix.named_in("").is_empty());
}

#[test]
fn expansion_walks_two_hops_through_segments_but_not_turn_order() {
    let ix = Nodes::new(&doc(), None).unwrap();
    // Every memory matches the query's words; the entity and segment do not.
    let relevance: IdMap<f64> = [(1, 1.0), (2, 1.0), (4, 0.5), (5, 1.0)]
        .into_iter()
        .collect();
    let ids = |out: Vec<(u32, f64)>| -> Vec<String> {
        out.iter().map(|(n, _)| ix.entry(*n).unwrap().id).collect()
    };
    // ada → m1; m3 is three hops out (ada, m1, seg, m3); m4 only by `next`.
    assert_eq!(ids(ix.expand(&[(0, 1.0)], &relevance)), ["ada", "m1"]);
    // m1 → seg, which matches nothing but leads on to m3.
    let out = ix.expand(&[(1, 1.0)], &relevance);
    assert_eq!(ids(out.clone()), ["m1", "m3"]);
    assert!(out[0].1 > out[1].1, "{out:?}");
    assert_eq!(ids(ix.expand(&[(1, 1.0)], &IdMap::default())), ["m1"]);
}

#[test]
fn no_path_passes_through_a_hub() {
    let edge = |from: String, to: &str| {
        Edge::new(
            NonEmpty::new(from).unwrap(),
            NonEmpty::from_static("mentions"),
            NonEmpty::new(to).unwrap(),
        )
    };
    let mut nodes = vec![
        node("seed", "memory", "seed", ""),
        node("hub", "entity", "Everyone", ""),
    ];
    let mut edges = vec![edge("seed".into(), "hub")];
    for i in 0..=HUB {
        nodes.push(node(&format!("m{i}"), "memory", "a memory", ""));
        edges.push(edge(format!("m{i}"), "hub"));
    }
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    doc.semantic_graph = Some(Graph {
        nodes: Some(nodes),
        edges: Some(edges),
        ..Graph::default()
    });
    let ix = Nodes::new(&doc, None).unwrap();
    let relevance: IdMap<f64> = [(2, 1.0), (1, 1.0)].into_iter().collect();
    // m0 is two hops from the seed, but only through the hub; the hub itself is
    // one hop away.
    let out = ix.expand(&[(0, 1.0)], &relevance);
    let ids: Vec<String> = out.iter().map(|(n, _)| ix.entry(*n).unwrap().id).collect();
    assert_eq!(ids, ["seed", "hub"]);
}

#[test]
fn decay_halves_by_type_and_never_erases() {
    let ix = Nodes::new(&doc(), None).unwrap();
    // m2 is a year older than the newest node: 365 days at a 45-day half-life.
    let (fresh, old) = (ix.weight(1), ix.weight(2));
    assert!((fresh - 1.0).abs() < 1e-9, "{fresh}");
    assert!((DECAY_FLOOR..0.3).contains(&old), "{old}");
    assert_eq!(ix.weight(0), 1.0, "no time, no decay");
    assert_eq!(ix.weight(6), 0.0, "no such node");
    let hits = ix
        .by_text(
            &[("bakeri".into(), 1.0)],
            None,
            &crate::search::Period::ALL,
            5,
            None,
        )
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert!(ix
        .by_text(
            &[("lisbon".into(), 1.0)],
            None,
            &crate::search::Period::ALL,
            5,
            None,
        )
        .unwrap()
        .iter()
        .all(|(n, _)| ix.is_hit(*n)));
    assert!(!ix.is_hit(3), "a segment");
    let m1 = ix.entry(1).unwrap();
    assert_eq!((m1.id.as_str(), m1.kind.as_str()), ("m1", "memory"));
    assert_eq!(m1.timestamp.as_deref(), Some("2025-01-01T00:00:00Z"));
    assert!(ix.entry(6).is_err(), "no such node");
}
