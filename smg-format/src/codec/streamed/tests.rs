use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::codec::from_json_slice;
use crate::envelope::{decode, Encoding};
use crate::test_support::encodings;

/// The document read from `bytes` in pieces of `piece` bytes; read from a file of
/// them as it decompresses, it is the same.
fn streamed(bytes: &[u8], piece: usize) -> Option<Document> {
    let doc = from_pieces_sized(bytes, &Limits::default(), (0, piece), false).map(|(d, _)| d);
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, bytes).unwrap();
    std::io::Seek::rewind(&mut file).unwrap();
    let len = bytes.len() as u64;
    let from_file = from_file_sized(file, len, &Limits::default(), (0, piece));
    if crate::envelope::detect(bytes).ok() == Some(Encoding::Json) {
        // Its text is already held: only a file of it is read in pieces.
        assert!(doc.is_none(), "plain JSON in memory is parsed whole");
        return from_file.map(|(doc, encoding)| {
            assert_eq!(encoding, Encoding::Json);
            doc
        });
    }
    let encoding = doc
        .as_ref()
        .and_then(|_| crate::envelope::detect(bytes).ok());
    assert_eq!(
        (doc.as_ref(), encoding),
        (
            from_file.as_ref().map(|f| &f.0),
            from_file.as_ref().map(|f| f.1)
        ),
        "read from a file, the document differs"
    );
    doc
}

/// The document a parse of the whole text reads from `bytes`, or its error's code.
fn whole(bytes: &[u8]) -> Result<Document, &'static str> {
    let (_, json) = decode(bytes, &Limits::default()).map_err(|e| e.code())?;
    from_json_slice(&json).map_err(|e| e.code())
}

/// Read in pieces, `json` gives what the whole text gives, or nothing when that
/// is an error.
fn alike(json: &[u8], piece: usize) -> std::result::Result<bool, String> {
    let mut read = false;
    for bytes in encodings(json).into_iter().chain([json.to_vec()]) {
        match (whole(&bytes), streamed(&bytes, piece)) {
            (Ok(doc), Some(split)) if doc == split => read = true,
            (Err(_), None) => {}
            (w, s) => return Err(format!("whole {w:?}, in pieces {s:?}")),
        }
    }
    Ok(read)
}

#[test]
fn every_fixture_reads_in_pieces_as_it_reads_whole() {
    let mut read = 0;
    for path in crate::test_support::fixture_files() {
        let raw = std::fs::read(&path).unwrap();
        // Enveloped fixtures as they are; the JSON ones encoded (a packed or
        // encrypted fixture is not a payload: never streamed).
        let json = match crate::envelope::detect(&raw) {
            Ok(Encoding::Json) => raw,
            Ok(Encoding::Brotli | Encoding::Zstd | Encoding::ZstdFrame) => {
                let whole = whole(&raw).is_ok();
                assert_eq!(streamed(&raw, 97).is_some(), whole, "{}", path.display());
                continue;
            }
            _ => continue,
        };
        for piece in [5, 97, 4096] {
            let same = alike(&json, piece);
            assert!(same.is_ok(), "{}: {same:?}", path.display());
            read += usize::from(same == Ok(true));
        }
    }
    assert!(
        read > 60,
        "only {read} readings: the walk missed the fixtures"
    );
}

/// A document whose lists hold `items`.
fn with_lists(nodes: Value, edges: Value, blocks: Value, artifacts: Value) -> Value {
    json!({
        "@context": crate::model::CONTEXT_IRI, "@type": "SemanticMemoryGraph",
        "version": "1.0", "metadata": {"created": "2025-01-01T00:00:00Z"},
        "semanticGraph": {"nodes": nodes, "edges": edges, "x-graph": 1},
        "deepArchive": {"blocks": blocks},
        "artifactVault": {"artifacts": artifacts},
    })
}

#[test]
fn what_a_whole_parse_might_read_otherwise_is_left_to_it() {
    let doc = |graph: &str| {
        format!(
            r#"{{"@context":"{}","@type":"SemanticMemoryGraph","version":"1.0","metadata":{{"created":"2025-01-01T00:00:00Z"}},"semanticGraph":{graph}}}"#,
            crate::model::CONTEXT_IRI
        )
    };
    let node = r#"{"id":"a","type":"concept"}"#;
    // A list met twice: a duplicate key.
    let twice = doc(&format!(r#"{{"nodes":[{node}],"nodes":[{node}]}}"#));
    // An item that is not an object.
    let scalar = doc(r#"{"nodes":[1]}"#);
    for json in [twice, scalar] {
        for bytes in encodings(json.as_bytes())
            .into_iter()
            .chain([json.clone().into_bytes()])
        {
            assert!(streamed(&bytes, 7).is_none(), "{json}");
        }
    }
    // Nesting over the limit in the whole, though not in the item alone.
    let deep = format!("{}1{}", "[".repeat(125), "]".repeat(125));
    let deep = doc(&format!(
        r#"{{"nodes":[{{"id":"a","type":"concept","metadata":{deep}}}]}}"#
    ));
    assert_eq!(alike(deep.as_bytes(), 7), Ok(false));
    // An escaped key is the same key to a parse: left whole, in the skeleton.
    let escaped = doc(&format!(r#"{{"\u006eodes":[{node}]}}"#));
    assert_eq!(alike(escaped.as_bytes(), 7), Ok(true));
    // The same artifact twice: the later one, as a whole parse keeps it.
    let art = |content: &str| json!({"type": "code", "hash": format!("sha256:{}", "0".repeat(64)), "versions": [{"v": 1, "content": content}]});
    let text = with_lists(json!([]), json!([]), json!([]), json!({"a": art("x")})).to_string();
    let twice = text.replace(
        r#""artifacts":{"#,
        &format!(r#""artifacts":{{"a":{},"#, art("y")),
    );
    assert_eq!(alike(twice.as_bytes(), 7), Ok(true));
}

fn text() -> impl Strategy<Value = String> {
    r#"[a-z"\\{}\[\],: é€𝄞]{0,8}"#
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        text().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An item: mostly well formed, sometimes not (a field of the wrong kind).
fn item(fields: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let field = prop_oneof![
        9 => text().prop_map(|t| Value::from(format!("x{t}"))),
        1 => value(),
    ];
    (
        prop::collection::vec(field, fields.len()),
        prop::option::of(value()),
    )
        .prop_map(move |(values, extra)| {
            let mut item: serde_json::Map<String, Value> =
                fields.iter().map(|f| f.to_string()).zip(values).collect();
            if let Some(extra) = extra {
                item.insert("x-extra".into(), extra);
            }
            Value::Object(item)
        })
}

fn artifact() -> impl Strategy<Value = Value> {
    (text(), prop::bool::weighted(0.9)).prop_map(|(content, good)| {
        let hash = if good {
            format!("sha256:{}", "0".repeat(64))
        } else {
            content.clone()
        };
        json!({"type": "code", "hash": hash, "versions": [{"v": 1, "content": content}]})
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn a_document_reads_in_pieces_as_it_reads_whole(
        nodes in prop::collection::vec(item(&["id", "type", "label"]), 0..6),
        edges in prop::collection::vec(item(&["from", "relation", "to"]), 0..6),
        blocks in prop::collection::vec(
            prop::collection::vec(text(), 1).prop_map(|t| json!({"id": 1, "turnRange": "1-2", "compressedData": t[0]})),
            0..3),
        artifacts in prop::collection::btree_map(text(), artifact(), 0..4),
        pretty in any::<bool>(),
        piece in 4usize..64,
    ) {
        let doc = with_lists(Value::from(nodes), Value::from(edges), Value::from(blocks),
            Value::Object(artifacts.into_iter().collect()));
        let json = if pretty { serde_json::to_vec_pretty(&doc) } else { serde_json::to_vec(&doc) };
        let same = alike(&json.unwrap(), piece);
        prop_assert!(same.is_ok(), "{same:?}");
    }
}

/// A node `n{i}`, derived when `derived`, marked by curation when `marked`.
fn graph_node(i: usize, derived: bool, marked: bool) -> Value {
    let mut n = json!({"id": format!("n{i}"), "type": "segment"});
    if derived {
        n["createdBy"] = json!(crate::model::Node::DERIVED_BY);
    }
    if marked {
        n["tier"] = json!("COLD");
    }
    n
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn a_lean_read_leaves_out_what_a_whole_read_then_lean_leaves_out(
        kinds in prop::collection::vec((any::<bool>(), prop::bool::weighted(0.2)), 0..8),
        ends in prop::collection::vec((0usize..8, 0usize..8), 0..12),
        piece in 4usize..64,
    ) {
        let nodes: Vec<Value> = kinds.iter().enumerate().map(|(i, &(d, m))| graph_node(i, d, m)).collect();
        let edges: Vec<Value> = ends.iter()
            .map(|(a, b)| json!({"from": format!("n{a}"), "relation": "next", "to": format!("n{b}")}))
            .collect();
        let doc = with_lists(Value::from(nodes), Value::from(edges), json!([]), json!({}));
        let json = crate::codec::to_canonical_json(&from_json_slice(&serde_json::to_vec(&doc).unwrap()).unwrap()).unwrap();
        let whole = crate::merge::Lean::new(from_json_slice(&json).unwrap());
        for bytes in encodings(&json) {
            let (doc, lean) = from_pieces_sized(&bytes, &Limits::default(), (0, piece), true).unwrap();
            let lean = lean.unwrap();
            let dropped = lean.dropped;
            let read = crate::merge::Lean::read(doc, lean.left_out);
            prop_assert_eq!(&read, &whole);
            let edges = |d: &Document| d.semantic_graph.as_ref().map_or(0, |g| g.edges().len());
            prop_assert_eq!(dropped as usize + edges(read.document()), ends.len());
        }
    }
}
