//! Document generators shared by the property tests.

// Each test binary compiles this module and uses only some of it.

use proptest::prelude::*;
use serde_json::{Map, Value};
use smg_format::{
    model::{Block, DeepArchive, Edge, Graph, Node, Turn, WorkingMemory},
    Document,
};

pub(crate) fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.-]{0,24}",
        any::<String>().prop_map(|s| s.chars().take(40).collect()),
        Just("line\r\nbreaks\ttabs \u{0} nul \u{1F600} emoji".to_string()),
    ]
}

pub(crate) fn unit() -> impl Strategy<Value = f64> {
    prop_oneof![0.0..=1.0f64, Just(0.0), Just(1.0), Just(0.1), Just(1e-7)]
}

pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e300..1e300f64).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown fields: keys no v1 object defines.
pub(crate) fn extra() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("x-[a-z]{1,5}", json_value(), 0..3)
        .prop_map(|m| m.into_iter().collect())
}

pub(crate) fn node() -> impl Strategy<Value = Node> {
    (
        "[a-z0-9_]{1,8}",
        text(),
        proptest::option::of(unit()),
        proptest::option::of(text()),
        extra(),
    )
        .prop_map(|(id, label, importance, description, extra)| Node {
            label: Some(label),
            importance: importance.map(smg_format::model::Unit::clamped),
            description,
            extra,
            ..Node::new(
                smg_format::model::NonEmpty::new(id).unwrap(),
                smg_format::model::NonEmpty::from_static("concept"),
            )
        })
}

pub(crate) fn turn() -> impl Strategy<Value = Turn> {
    (1..10_000u64, text(), "(user|assistant)", extra()).prop_map(|(n, content, role, extra)| Turn {
        extra,
        ..Turn::new(
            smg_format::model::Ordinal::new(n).unwrap(),
            smg_format::model::NonEmpty::new(role).unwrap(),
            content,
        )
    })
}

pub(crate) fn document() -> impl Strategy<Value = Document> {
    (
        prop::collection::vec(node(), 0..6),
        prop::collection::vec(turn(), 0..5),
        prop::collection::vec(turn(), 0..5),
        extra(),
        extra(),
    )
        .prop_map(|(nodes, recent, archived, top, graph_extra)| {
            let mut doc = Document::new(smg_format::model::Timestamp::from_static(
                "2025-12-04T10:30:00Z",
            ));
            let edges = nodes
                .windows(2)
                .map(|w| {
                    Edge::new(
                        smg_format::model::NonEmpty::new(w[0].id.clone()).unwrap(),
                        smg_format::model::NonEmpty::from_static("related_to"),
                        smg_format::model::NonEmpty::new(w[1].id.clone()).unwrap(),
                    )
                })
                .collect();
            doc.semantic_graph = Some(Graph {
                nodes: Some(nodes),
                edges: Some(edges),
                extra: graph_extra,
            });
            doc.working_memory = Some(WorkingMemory {
                recent_context: Some(recent),
                ..WorkingMemory::default()
            });
            doc.deep_archive = Some(DeepArchive {
                blocks: Some(vec![Block::new(
                    1,
                    smg_format::model::TurnRange::span(1, 10_000),
                    smg_format::archive::encode_turns_for(&doc.version, &archived, 5).unwrap(),
                )]),
                ..DeepArchive::default()
            });
            doc.extra = top;
            doc
        })
}
