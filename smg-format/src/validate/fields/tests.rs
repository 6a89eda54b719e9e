//! The typed check held against the JSON Schema, constraint by constraint.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::test_support::full_fixture;

/// Findings as (code, pointer) pairs.
type Said = BTreeSet<(String, String)>;

/// What the schema says of the JSON `doc` serializes to, and what the typed check
/// says of `doc`.
fn both(doc: &Document) -> (Said, Said) {
    let pairs = |f: Vec<Finding>| {
        f.into_iter()
            .map(|f| (f.code.to_string(), f.pointer))
            .collect()
    };
    let value = serde_json::to_value(doc).unwrap();
    (pairs(schema::check(&value)), pairs(check(doc)))
}

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(dir);
    let mut all: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    all.sort();
    all
}

#[test]
fn the_typed_check_says_what_the_schema_says_of_every_fixture() {
    let mut compared = 0;
    for path in files("valid").into_iter().chain(files("invalid")) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok((doc, _)) = crate::codec::from_bytes(&bytes, &crate::Limits::default()) else {
            continue;
        };
        let (schema, typed) = both(&doc);
        assert_eq!(schema, typed, "{}", path.display());
        compared += 1;
    }
    assert!(compared > 30, "only {compared} fixtures compared");
}

/// A way to break (or keep) one constrained field of the full fixture.
type Mutation = fn(&mut Document, usize);

fn extra(k: usize) -> Map<String, Value> {
    let v = [
        json!(null),
        json!({"format": "jsonl"}),
        json!({"format": 5}),
        json!({}),
        json!("s"),
        json!({"header": 1}),
    ][k % 6]
        .clone();
    Map::from_iter([
        ("source".to_string(), v),
        ("conversations".to_string(), json!({"c": {"format": k}})),
    ])
}

fn node(d: &mut Document) -> &mut Node {
    d.semantic_graph
        .as_mut()
        .unwrap()
        .nodes
        .as_mut()
        .unwrap()
        .first_mut()
        .unwrap()
}

fn edge(d: &mut Document) -> &mut Edge {
    d.semantic_graph
        .as_mut()
        .unwrap()
        .edges
        .as_mut()
        .unwrap()
        .first_mut()
        .unwrap()
}

fn artifact(d: &mut Document) -> &mut Artifact {
    d.artifact_vault
        .as_mut()
        .unwrap()
        .artifacts
        .as_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap()
}

/// The first turn of working memory's recent context.
fn recent(d: &mut Document) -> &mut Turn {
    &mut d
        .working_memory
        .as_mut()
        .unwrap()
        .recent_context
        .as_mut()
        .unwrap()[0]
}

/// The first version of the first artifact.
fn version(d: &mut Document) -> &mut crate::model::ArtifactVersion {
    &mut artifact(d).versions[0]
}

const MUTATIONS: &[Mutation] = &[
    |d, k| d.metadata.extra = extra(k),
    |d, k| node(d).metadata = Some([json!(1), json!({"a": 1}), json!([])][k % 3].clone()),
    |d, k| node(d).extra = extra(k),
    |d, k| edge(d).extra = extra(k),
    |d, k| version(d).extra = extra(k),
    |d, k| d.deep_archive.as_mut().unwrap().extra = extra(k),
    |d, k| recent(d).extra = extra(k),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Any mix of broken and kept fields: the typed check finds what the schema
    /// finds in the JSON, no more and no less.
    #[test]
    fn the_typed_check_says_what_the_schema_says(picks in proptest::collection::vec((0..MUTATIONS.len(), 0usize..64), 1..6)) {
        let mut doc = full_fixture();
        for (m, k) in picks {
            MUTATIONS[m](&mut doc, k);
        }
        let (schema, typed) = both(&doc);
        prop_assert_eq!(schema, typed);
    }
}

/// Where a field is held by its type rather than checked: the JSON the schema refuses
/// is the JSON the typed reader refuses, at the same place.
#[test]
fn the_typed_values_refuse_what_the_schema_refuses() {
    let turn = "/workingMemory/recentContext/0";
    let node = "/semanticGraph/nodes/0";
    let edge = "/semanticGraph/edges/0";
    let doc = full_fixture();
    let arts = doc.artifact_vault.as_ref().unwrap().artifacts.as_ref();
    let id = arts.unwrap().keys().next().unwrap();
    let art = format!("/artifactVault/artifacts/{}", escape_pointer(id));
    let version = format!("{art}/versions/0");
    let (art, version) = (art.as_str(), version.as_str());
    let hex = "ab".repeat(32);
    let access = json!({"at": "2025-12-04T10:30:00Z", "by": "agent"});
    let sealed = "/sealedSections/0";
    let cases = [
        (art, "type", json!("")),
        (art, "type", json!("document")),
        (art, "hash", json!(hex)),
        (art, "hash", json!(format!("sha256:{}", hex.to_uppercase()))),
        (version, "hash", json!(format!("sha256:{}", &hex[1..]))),
        (turn, "role", json!("")),
        (turn, "role", json!("user")),
        (turn, "importance", json!(1.5)),
        (turn, "importance", json!(-0.1)),
        (turn, "importance", json!(0.25)),
        (node, "id", json!("")),
        (node, "id", json!("n")),
        (node, "type", json!("")),
        (node, "type", json!("anything")),
        (node, "status", json!("")),
        (node, "status", json!("active")),
        (edge, "from", json!("")),
        (edge, "to", json!("")),
        (edge, "relation", json!("")),
        (edge, "relation", json!("next")),
        (node, "confidence", json!(1.5)),
        (node, "confidence", json!(0.5)),
        (node, "importance", json!(-0.5)),
        (node, "importance", json!(1)),
        (edge, "strength", json!(7.0)),
        (edge, "strength", json!(0.0)),
        ("/metadata", "created", json!("2025-12-04")),
        ("/metadata", "created", json!("2025-12-04 10:30:00+01:00")),
        ("/metadata", "modified", json!("2025-02-30T00:00:00Z")),
        (turn, "timestamp", json!("yesterday")),
        (turn, "timestamp", json!("2025-12-04T10:30:00.5Z")),
        (node, "created", json!("2025-12-04T10:30")),
        (node, "updated", json!("2025-12-04T10:30:00")),
        (node, "lastAccessed", json!("2025-12-04T10:30:00Z")),
        (node, "deletedAt", json!("")),
        (node, "timestamp", json!("2025-12-04t10:30:00z")),
        (node, "effectiveDate", json!("2025-12-31")),
        (node, "effectiveDate", json!("2025-1-5")),
        (node, "expiryDate", json!("2025-12-31T10:00:00-05:00")),
        (node, "expiryDate", json!("2025-12-31T25:00:00Z")),
        (edge, "timestamp", json!("1 May 2025")),
        (version, "timestamp", json!("+2025-12-04T10:30:00Z")),
        ("/metadata", "branch", json!("")),
        ("/metadata", "branch", json!("main")),
        ("/deepArchive/blocks/0", "turnRange", json!("1-")),
        ("/deepArchive/blocks/0", "turnRange", json!("-2")),
        ("/deepArchive/blocks/0", "turnRange", json!("7")),
        ("/collaborators/0", "id", json!("")),
        (turn, "turn", json!(0)),
        (turn, "turn", json!(3)),
        (node, "version", json!(0)),
        (node, "version", json!(2)),
        (version, "v", json!(0)),
        ("/metadata/lineage/0", "parentSha256", json!("ab")),
        ("/metadata/lineage/0", "branch", json!("")),
        ("/metadata/lineage/0", "forkedAt", json!("now")),
        ("/metadata/links/0", "name", json!("")),
        ("/metadata/links/0", "path", json!("")),
        ("/metadata/links/0", "path", json!("../team.smg")),
        ("/metadata/links/0", "sha256", json!("AB")),
        ("/metadata/links/0", "linkedAt", json!("yesterday")),
        ("/metadata/links/0", "readOnly", json!("yes")),
        ("/metadata/links/0", "readOnly", json!(true)),
        ("", "@type", json!("Other")),
        ("", "@type", json!("SemanticMemoryGraph")),
        ("", "@context", json!(1)),
        ("", "@context", json!(null)),
        ("", "@context", json!([])),
        ("", "@context", json!({"@vocab": "https://example.org/"})),
        ("", "version", json!("1")),
        ("", "version", json!("1.7.2")),
        ("", "version", json!("2.0")),
        ("", "version", json!("01.0")),
        ("", "version", json!("1.x")),
        ("", "version", json!("1.0.0.0")),
        ("/metadata", "compressionRatio", json!(-0.5)),
        ("/metadata", "compressionRatio", json!(0)),
        ("/metadata", "compressionRatio", json!(12.5)),
        (node, "recentAccesses", json!(vec![access.clone(); 65])),
        (node, "recentAccesses", json!(vec![access; 64])),
        (art, "versions", json!([])),
        (sealed, "id", json!("tier:")),
        (sealed, "id", json!("box:a")),
        (sealed, "id", json!("private:alice")),
        (sealed, "id", json!("tier:a\nb")),
        (sealed, "id", json!("tier:a\rb")),
        (sealed, "id", json!("tier:a\u{2028}")),
        (sealed, "id", json!("tier:a\u{2029}b")),
        (sealed, "id", json!("tier:a\u{85}b")),
        (sealed, "id", json!("tier:a\tb")),
        (sealed, "kind", json!("other")),
        (sealed, "kind", json!("privateContext")),
    ];
    let mut full = serde_json::to_value(full_fixture()).unwrap();
    full["collaborators"] = json!([{"id": "c"}]);
    full["sealedSections"] = json!([{"id": "tier:x", "kind": "tier", "size": 0,
        "ciphertext": "", "encryption": {"kdf": "k", "iterations": 1, "salt": "",
        "nonce": "", "keyCheck": ""}}]);
    full["metadata"]["lineage"] = json!([{"parentSha256": hex, "branch": "b",
                                          "forkedAt": "2025-12-04T10:30:00Z"}]);
    full["metadata"]["links"] = json!([{"name": "team", "path": "team.smg", "sha256": hex,
                                        "linkedAt": "2025-12-04T10:30:00Z"}]);
    for (at, field, value) in cases {
        let mut v = full.clone();
        v.pointer_mut(at).unwrap()[field] = value.clone();
        let pointer = format!("{at}/{field}");
        let schema: Vec<_> = schema::check(&v)
            .into_iter()
            .filter(|f| f.pointer == pointer)
            .collect();
        let typed = crate::codec::from_json_slice(&serde_json::to_vec(&v).unwrap());
        match typed {
            Ok(_) => assert!(schema.is_empty(), "{field} = {value}: {schema:?}"),
            Err(e) => {
                assert!(
                    !schema.is_empty(),
                    "{field} = {value}: schema accepts, type refuses"
                );
                if (at, field) == ("", "version") {
                    // A reader says first that it cannot read the version.
                    let codes = ["SMG-E012", "SMG-E013", "SMG-E014"];
                    assert!(codes.contains(&e.code()), "{e}");
                    continue;
                }
                assert_eq!(e.code(), "SMG-E012", "{e}");
                assert_eq!(e.pointer(), pointer, "{e}");
                let time = ["created", "modified", "timestamp", "Date", "At", "updated"];
                if time.iter().any(|t| field.contains(t)) {
                    assert_eq!(schema[0].code, "SMG-E113", "{field} = {value}");
                }
            }
        }
    }
}
