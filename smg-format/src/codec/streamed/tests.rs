use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::codec::from_json_slice;
use crate::envelope::{decode, Encoding};
use crate::test_support::encodings;

/// The document read from `bytes` in pieces of `piece` bytes; read from a file of
/// them as it decompresses, it is the same.
fn streamed(bytes: &[u8], piece: usize) -> Option<Document> {
    let doc = from_pieces_sized(bytes, &Limits::default(), (0, piece), Mode::Whole).map(|(d, _)| d);
    counted_alike(bytes, piece, doc.as_ref());
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

/// A counted read of `bytes` gives `whole` (the streamed read's document) but the
/// semantic graph's nodes and edges it counted, and nothing when `whole` is nothing.
/// (A list it cannot tell, such as one under an escaped key, stays in the document.)
fn counted_alike(bytes: &[u8], piece: usize, whole: Option<&Document>) {
    let counted = from_pieces_sized(bytes, &Limits::default(), (0, piece), Mode::Counted(0, 0));
    let Some(whole) = whole else {
        assert!(
            counted.is_none(),
            "counted, a document the whole read refuses"
        );
        return;
    };
    let Some((doc, Mode::Counted(nodes, edges))) = counted else {
        panic!("a counted read refused a document the whole read gives");
    };
    let lengths = |d: &Document| {
        d.semantic_graph
            .as_ref()
            .map_or((0, 0), |g| (g.nodes().len() as u64, g.edges().len() as u64))
    };
    let ((kept_nodes, kept_edges), (all_nodes, all_edges)) = (lengths(&doc), lengths(whole));
    assert_eq!(
        (nodes + kept_nodes, edges + kept_edges),
        (all_nodes, all_edges)
    );
    let mut expected = whole.clone();
    if let (Some(g), Some(read)) = (
        expected.semantic_graph.as_mut(),
        doc.semantic_graph.as_ref(),
    ) {
        g.nodes.clone_from(&read.nodes);
        g.edges.clone_from(&read.edges);
    }
    assert_eq!(doc, expected);
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
            let mode = Mode::Lean(LeanLists::default());
            let (doc, Mode::Lean(lean)) = from_pieces_sized(&bytes, &Limits::default(), (0, piece), mode).unwrap() else {
                panic!("a lean read gives what it left out")
            };
            let dropped = lean.dropped;
            let read = crate::merge::Lean::read(doc, lean.left_out);
            prop_assert_eq!(&read, &whole);
            let edges = |d: &Document| d.semantic_graph.as_ref().map_or(0, |g| g.edges().len());
            prop_assert_eq!(dropped as usize + edges(read.document()), ends.len());
        }
    }
}

#[test]
fn a_counted_read_keeps_no_node_or_edge() {
    let nodes: Vec<Value> = (0..40).map(|i| graph_node(i, i % 2 == 0, false)).collect();
    let edges: Vec<Value> = (1..40)
        .map(|i| json!({"from": format!("n{}", i - 1), "relation": "next", "to": format!("n{i}")}))
        .collect();
    let json = with_lists(nodes.into(), edges.into(), json!([]), json!({})).to_string();
    for bytes in encodings(json.as_bytes()) {
        let counted = from_pieces_sized(&bytes, &Limits::default(), (0, 16), Mode::Counted(0, 0));
        let Some((doc, Mode::Counted(nodes, edges))) = counted else {
            panic!("not read")
        };
        let graph = doc.semantic_graph.unwrap();
        assert_eq!((graph.nodes().len(), graph.edges().len()), (0, 0));
        assert_eq!((nodes, edges), (40, 39));
    }
}

/// A document of `n` nodes in a chain, as JSON of more than 4 MiB for `n` of 20,000;
/// labels that do not compress away, so that a packed file's head is large too.
fn chain(n: usize, bad: Option<usize>) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut noise = || {
        (0..13)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                format!("{state:016x}")
            })
            .collect::<String>()
    };
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            let kind = if Some(i) == bad { "" } else { "concept" };
            json!({"id": format!("n{i}"), "type": kind, "label": noise()})
        })
        .collect();
    let edges: Vec<Value> = (1..n)
        .map(|i| json!({"from": format!("n{}", i - 1), "relation": "next", "to": format!("n{i}")}))
        .collect();
    let json = with_lists(nodes.into(), edges.into(), json!([]), json!({})).to_string();
    assert!(json.len() > 4 << 20);
    json.into_bytes()
}

#[test]
fn a_file_is_checked_as_it_is_read_without_keeping_it() {
    let json = chain(20_000, None);
    let too_few = Limits {
        max_edges: 19_998,
        ..Limits::default()
    };
    let bad = chain(20_000, Some(15_000));
    for (bytes, encoding) in
        encodings(&json)
            .into_iter()
            .zip([Encoding::Brotli, Encoding::Zstd, Encoding::ZstdFrame])
    {
        let checked = crate::codec::check_bytes(&bytes, &Limits::default());
        assert_eq!(checked.unwrap(), encoding);
        // …by a counted read, which a file this large qualifies for.
        assert_eq!(
            counted_pieces(&bytes, &Limits::default()).unwrap().1,
            (20_000, 19_999)
        );
        // Over a limit, and a node that does not read: the errors of a read.
        let over = crate::codec::check_bytes(&bytes, &too_few).unwrap_err();
        let read = crate::codec::from_bytes(&bytes, &too_few).unwrap_err();
        assert_eq!(
            (over.code(), over.to_string()),
            (read.code(), read.to_string())
        );
        assert_eq!(over.code(), "SMG-E025");
    }
    for bytes in encodings(&bad) {
        let checked = crate::codec::check_bytes(&bytes, &Limits::default()).unwrap_err();
        let read = crate::codec::from_bytes(&bytes, &Limits::default()).unwrap_err();
        assert_eq!(
            (checked.code(), checked.to_string()),
            (read.code(), read.to_string())
        );
    }
    assert!(crate::codec::check_bytes(&json, &Limits::default()).is_ok());
}
