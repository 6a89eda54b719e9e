use super::*;
use smg_format::codec::{from_json_slice, to_canonical_json};
use smg_format::model::{Graph, Timestamp};

/// When a read that finds no memory node creates the metadata.
const NOW: Timestamp = Timestamp::from_static("2030-01-01T00:00:00Z");

fn fixture(name: &str) -> Document {
    let path = format!("{}/../fixtures/valid/{name}", env!("CARGO_MANIFEST_DIR"));
    let (doc, _) =
        smg_format::file::read_file(path.as_ref(), &smg_format::Limits::default()).unwrap();
    doc
}

/// What the database would hand back for a slice: labels and properties as stored.
fn stored(slice: &Slice) -> (Vec<ReadNode>, Vec<ReadEdge>) {
    let nodes = slice
        .nodes
        .iter()
        .map(|n| ReadNode {
            element: n.id.clone(),
            labels: vec![NODE_LABEL.into(), tier_label(n.tier).into()],
            props: n.props.clone(),
        })
        .collect();
    let edges = slice
        .edges
        .iter()
        .map(|e| ReadEdge {
            from: e.from.clone(),
            to: e.to.clone(),
            rel_type: e.rel_type.clone(),
            props: e.props.clone(),
        })
        .collect();
    (nodes, edges)
}

fn graph_json(doc: &Document) -> Vec<u8> {
    let mut only = Document::new(smg_format::model::Timestamp::from_static(
        "2000-01-01T00:00:00Z",
    ));
    only.semantic_graph = doc.semantic_graph.clone();
    to_canonical_json(&only).unwrap()
}

#[test]
fn every_fixture_graph_comes_back_byte_for_byte() {
    for name in [
        "full.smg",
        "curated.smg",
        "unknown-fields-v1.3.smg",
        "seed-appendix-a.smg",
        "code-chat.smg",
    ] {
        let doc = fixture(name);
        let slice = slice(&doc, "m", &TIERS).unwrap();
        let (nodes, edges) = stored(&slice);
        let back = read("m", Some(&slice.memory), nodes, edges, &NOW).unwrap();
        let mut expected = doc.clone();
        // A memory read back always has a graph, if an empty one.
        let g = expected.semantic_graph.get_or_insert_with(|| Graph {
            nodes: Some(vec![]),
            edges: Some(vec![]),
            ..Graph::default()
        });
        {
            // Tombstoned nodes do not go to the database, nor do their edges.
            let gone: Vec<String> = slice.tombstoned.clone();
            g.nodes = Some(
                g.nodes()
                    .iter()
                    .filter(|n| !gone.iter().any(|x| *x == n.id))
                    .cloned()
                    .collect(),
            );
            g.edges = Some(
                g.edges()
                    .iter()
                    .filter(|e| !gone.iter().any(|x| *x == e.from || *x == e.to))
                    .cloned()
                    .collect(),
            );
            g.extra.clear();
        }
        assert_eq!(
            String::from_utf8(graph_json(&back)).unwrap(),
            String::from_utf8(graph_json(&expected)).unwrap(),
            "{name}"
        );
        assert_eq!(back.metadata, doc.metadata, "{name}");
    }
}

#[test]
fn seed_names_tiers_and_relationship_types() {
    let doc = from_json_slice(
        br#"{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","version":"1.0",
        "metadata":{"created":"2025-01-01T00:00:00Z"},
        "semanticGraph":{"nodes":[
          {"id":"k1","type":"knowledge","label":"Deadline","scope":"global","approvedBy":"cfo","confidence":0.95,
           "effectiveDate":"2025-11-01","knowledgeType":"milestone","provenance":[{"turns":[1]}],"x-new":{"a":1}},
          {"id":"c1","type":"concept","label":"Budget","timestamp":"2025-11-29T14:30:00Z"}],
        "edges":[{"from":"c1","to":"k1","relation":"related_to","strength":0.5},
                 {"from":"c1","to":"k1","relation":"related_to"},
                 {"from":"c1","to":"k1","relation":"depends-on"}]}}"#,
    )
    .unwrap();
    let s = slice(&doc, "alice", &TIERS).unwrap();
    let k1 = &s.nodes[0];
    assert_eq!(tier_label(k1.tier), "GlobalKnowledge");
    let prop = |n: &NodeRow, k: &str| n.props.iter().find(|(p, _)| p == k).map(|(_, v)| v.clone());
    assert_eq!(prop(k1, "title"), Some(Value::from("Deadline")));
    assert_eq!(prop(k1, "approved_by"), Some(Value::from("cfo")));
    assert_eq!(prop(k1, "knowledge_type"), Some(Value::from("milestone")));
    assert_eq!(prop(k1, "year"), Some(Value::Int(2025)));
    assert_eq!(
        prop(k1, "smg_extra"),
        Some(Value::from(
            r#"{"provenance":[{"turns":[1]}],"x-new":{"a":1}}"#
        ))
    );
    assert_eq!(tier_label(s.nodes[1].tier), "ConversationMemory");
    let types: Vec<&str> = s.edges.iter().map(|e| e.rel_type.as_str()).collect();
    assert_eq!(types, ["RELATES_TO", "RELATES_TO", "DEPENDS_ON"]);
    assert_ne!(
        s.edges[0].key, s.edges[1].key,
        "equal triples get their own keys"
    );
    let only_global = slice(&doc, "alice", &[Scope::Global]).unwrap();
    assert_eq!((only_global.nodes.len(), only_global.edges.len()), (1, 0));
}

#[test]
fn a_graph_that_does_not_fit_names_the_first_offending_node() {
    let node = |labels: &[&str], props: Vec<(&str, Value)>| ReadNode {
        element: "`n1`".into(),
        labels: labels.iter().map(|s| s.to_string()).collect(),
        props: props.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    };
    let cases = [
        (
            node(
                &["SmgNode"],
                vec![("id", "n1".into()), ("type", "concept".into())],
            ),
            "no tier label",
        ),
        (
            node(
                &["SmgNode", "GlobalKnowledge"],
                vec![
                    ("id", "n1".into()),
                    ("type", "c".into()),
                    ("scope", "personal".into()),
                ],
            ),
            "disagrees",
        ),
        (
            node(
                &["SmgNode", "ConversationMemory"],
                vec![("id", "n1".into())],
            ),
            "type",
        ),
        (
            node(
                &["SmgNode", "ConversationMemory"],
                vec![
                    ("id", "n1".into()),
                    ("type", "c".into()),
                    ("importance", "high".into()),
                ],
            ),
            "importance",
        ),
        (
            node(
                &["SmgNode", "ConversationMemory"],
                vec![
                    ("id", "n1".into()),
                    ("type", "c".into()),
                    ("smg_extra", "[".into()),
                ],
            ),
            "smg_extra",
        ),
    ];
    for (n, why) in cases {
        let err = read("m", None, vec![n], vec![], &NOW).unwrap_err();
        assert_eq!(err.code(), "SMG-E305");
        let text = err.to_string();
        assert!(text.contains("n1") && text.contains(why), "{why}: {text}");
    }
}

#[test]
fn nodes_written_by_others_come_after_and_take_their_tier_from_the_label() {
    let n = ReadNode {
        element: "`g`".into(),
        labels: vec!["SmgNode".into(), "GlobalKnowledge".into()],
        props: vec![
            ("id".into(), "g".into()),
            ("type".into(), "policy".into()),
            ("owner_team".into(), "hr".into()),
        ],
    };
    let doc = read("m", None, vec![n], vec![], &NOW).unwrap();
    let g = &doc.semantic_graph.as_ref().unwrap().nodes()[0];
    assert_eq!(g.scope, Some(Scope::Global));
    assert_eq!(g.extra.get("owner_team"), Some(&serde_json::json!("hr")));
    assert_eq!(doc.metadata.id.as_deref(), Some("m"));
}
