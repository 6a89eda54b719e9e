//! Property tests: any document survives write → read unchanged in every encoding,
//! canonical bytes are a fixed point, and no input makes the reader panic.

use proptest::prelude::*;
use serde_json::{Map, Value};
use smg_format::{
    Block, DeepArchive, Document, Edge, Encoding, Graph, Limits, Node, Turn, ValidateOptions,
    WorkingMemory, WriteOptions,
};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.-]{0,24}",
        any::<String>().prop_map(|s| s.chars().take(40).collect()),
        Just("line\r\nbreaks\ttabs \u{0} nul \u{1F600} emoji".to_string()),
    ]
}

fn unit() -> impl Strategy<Value = f64> {
    prop_oneof![0.0..=1.0f64, Just(0.0), Just(1.0), Just(0.1), Just(1e-7)]
}

fn json_value() -> impl Strategy<Value = Value> {
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
fn extra() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("x-[a-z]{1,5}", json_value(), 0..3)
        .prop_map(|m| m.into_iter().collect())
}

fn node() -> impl Strategy<Value = Node> {
    (
        "[a-z0-9_]{1,8}",
        text(),
        proptest::option::of(unit()),
        proptest::option::of(text()),
        extra(),
    )
        .prop_map(|(id, label, importance, description, extra)| Node {
            id,
            kind: "concept".into(),
            label: Some(label),
            importance,
            description,
            extra,
            ..Node::default()
        })
}

fn turn() -> impl Strategy<Value = Turn> {
    (1..10_000u64, text(), "(user|assistant)", extra()).prop_map(|(n, content, role, extra)| Turn {
        turn: n,
        role,
        content,
        extra,
        ..Turn::default()
    })
}

fn document() -> impl Strategy<Value = Document> {
    (
        prop::collection::vec(node(), 0..6),
        prop::collection::vec(turn(), 0..5),
        prop::collection::vec(turn(), 0..5),
        extra(),
        extra(),
    )
        .prop_map(|(nodes, recent, archived, top, graph_extra)| {
            let mut doc = Document::new("2025-12-04T10:30:00Z");
            let edges = nodes
                .windows(2)
                .map(|w| Edge {
                    from: w[0].id.clone(),
                    to: w[1].id.clone(),
                    relation: "related_to".into(),
                    ..Edge::default()
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
                blocks: Some(vec![Block {
                    id: 1,
                    turn_range: "1-10000".into(),
                    compressed_data: smg_format::encode_turns(&archived, 5).unwrap(),
                    ..Block::default()
                }]),
                ..DeepArchive::default()
            });
            doc.extra = top;
            doc
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn write_then_read_gives_the_same_document(doc in document()) {
        for enc in [Encoding::Json, Encoding::Brotli, Encoding::Zstd] {
            let options = WriteOptions::new(enc).with_level(if enc == Encoding::Brotli { 5 } else { 3 });
            let bytes = smg_format::to_bytes(&doc, &options).unwrap();
            let (back, found) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
            prop_assert_eq!(found, enc);
            prop_assert_eq!(&back, &doc);
            prop_assert_eq!(smg_format::to_bytes(&back, &options).unwrap(), bytes);
        }
    }

    #[test]
    fn a_document_has_no_difference_from_itself_and_differs_from_another(a in document(), b in document()) {
        prop_assert!(smg_format::diff(&a, &a).is_empty());
        prop_assert!(smg_format::diff(&b, &b.clone()).is_empty());
        // Canonical bytes tell whether two documents differ; the semantic diff agrees.
        let canonical = |d: &smg_format::Document| smg_format::to_canonical_json_value(&serde_json::to_value(d).unwrap());
        prop_assert_eq!(smg_format::diff(&a, &b).is_empty(), canonical(&a) == canonical(&b));
    }

    #[test]
    fn archived_turns_come_back_byte_for_byte(turns in prop::collection::vec(turn(), 0..8)) {
        let block = Block { id: 1, turn_range: "1-1".into(), compressed_data: smg_format::encode_turns(&turns, 5).unwrap(), ..Block::default() };
        let back = smg_format::decode_block(&block, smg_format::CompressionMethod::Brotli, None, &Limits::default()).unwrap();
        prop_assert_eq!(back, turns);
    }

    #[test]
    fn archived_chats_with_code_come_back_byte_for_byte(
        chunks in prop::collection::vec((text(), any::<bool>(), 0..4usize, "(rust|py|js)?", any::<bool>()), 1..12),
    ) {
        let bodies = ["fn main() {\n    run();\n}\n\n", "import os\nimport sys\n\nprint(os.name)\n", "a\nb\nc\nd\ne\n", "x = 1\r\ny = 2\r\nz = 3\r\nw = 4\r\n"];
        let turns: Vec<Turn> = chunks
            .into_iter()
            .enumerate()
            .map(|(i, (prose, fenced, which, lang, tilde))| {
                let fence = if tilde { "~~~" } else { "```" };
                let content = if fenced {
                    format!("{prose}\n{fence}{lang}\n{}{fence}\n{prose}", bodies[which])
                } else {
                    prose
                };
                Turn { turn: i as u64 + 1, role: "user".into(), content, ..Turn::default() }
            })
            .collect();
        let mut doc = Document::new("2025-01-01T00:00:00Z");
        let options = smg_format::ArchiveOptions::default();
        smg_format::append_turns(&mut doc, &turns, &options).unwrap();
        for enc in [Encoding::Json, Encoding::Packed] {
            let bytes = smg_format::to_bytes(&doc, &WriteOptions::new(enc)).unwrap();
            let (back, _) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
            for t in &turns {
                prop_assert_eq!(&smg_format::find_turn(&back, t.turn, &Limits::default()).unwrap(), t);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = smg_format::validate(&bytes, &ValidateOptions::default());
        let _ = smg_format::from_bytes(&bytes, &Limits::default());
    }

    #[test]
    fn arbitrary_payloads_behind_a_valid_header_never_panic(
        payload in prop::collection::vec(any::<u8>(), 0..512),
        encoding in 1u8..=3,
        declared in 0u64..4096,
    ) {
        let mut bytes = smg_format::MAGIC.to_vec();
        bytes.extend_from_slice(&[1, encoding, 0, 0]);
        bytes.extend_from_slice(&declared.to_le_bytes());
        bytes.extend_from_slice(&crc32fast_hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let _ = smg_format::validate(&bytes, &ValidateOptions::default());
    }

    #[test]
    fn mutated_documents_never_panic(doc in document(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = smg_format::to_canonical_json(&doc).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let _ = smg_format::validate(&bytes, &ValidateOptions::default());
    }
}

/// The checksum does not matter to these tests (a mismatch is one more error path).
fn crc32fast_hash(payload: &[u8]) -> u32 {
    payload
        .iter()
        .fold(0u32, |a, b| a.rotate_left(5) ^ u32::from(*b))
}
