use super::*;
use crate::archive::{append_turns, tests::turn};
use crate::model::{Edge, Graph, Node};
use crate::test_support::node;

fn with_nodes(nodes: Vec<Node>) -> Document {
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
        ..Graph::default()
    });
    doc
}

fn archived(doc: &Document) -> Vec<(u64, String)> {
    crate::archive::read_archive(doc, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|a| (a.turn.turn, a.turn.content))
        .collect()
}

fn labels(doc: &Document) -> Vec<(String, Option<String>)> {
    let g = doc.semantic_graph.as_ref().unwrap();
    g.nodes()
        .iter()
        .map(|n| (n.id.clone(), n.label.clone()))
        .collect()
}

#[test]
fn one_sided_and_identical_changes_merge_cleanly() {
    let base = with_nodes(vec![node("a", "A"), node("b", "B"), node("c", "C")]);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    let g = ours.semantic_graph.as_mut().unwrap();
    g.nodes.as_mut().unwrap()[0].label = Some("A2".into());
    g.nodes.as_mut().unwrap().push(node("d", "D"));
    let g = theirs.semantic_graph.as_mut().unwrap();
    g.nodes.as_mut().unwrap().retain(|n| n.id != "c");
    g.nodes.as_mut().unwrap().push(node("d", "D"));
    g.nodes.as_mut().unwrap().push(node("e", "E"));
    ours.metadata.tags = Some(vec!["x".into(), "y".into()]);
    theirs.metadata.tags = Some(vec!["z".into()]);
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let got = labels(&m.document);
    let want = [("a", "A2"), ("b", "B"), ("d", "D"), ("e", "E")];
    assert_eq!(got, want.map(|(i, l)| (i.to_string(), Some(l.to_string()))));
    let tags = m.document.metadata.tags.unwrap();
    assert_eq!(tags, ["x", "y", "z"]);
}

#[test]
fn the_same_field_changed_twice_is_a_conflict_unless_a_side_is_preferred() {
    let base = with_nodes(vec![node("a", "A")]);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    ours.semantic_graph
        .as_mut()
        .unwrap()
        .nodes
        .as_mut()
        .unwrap()[0]
        .label = Some("ours".into());
    theirs
        .semantic_graph
        .as_mut()
        .unwrap()
        .nodes
        .as_mut()
        .unwrap()[0]
        .label = Some("theirs".into());
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert_eq!(m.unresolved().count(), 1);
    assert_eq!(m.conflicts[0].pointer, "/semanticGraph/nodes/a/label");
    assert_eq!(m.conflicts[0].theirs, Some(Value::from("theirs")));
    let m = merge(
        &base,
        &ours,
        &theirs,
        &MergeOptions::default().prefer(Side::Theirs),
    )
    .unwrap();
    assert_eq!(m.unresolved().count(), 0);
    assert_eq!(labels(&m.document)[0].1.as_deref(), Some("theirs"));
}

#[test]
fn a_node_removed_on_one_side_and_changed_on_the_other_is_a_conflict() {
    let base = with_nodes(vec![node("a", "A"), node("b", "B")]);
    let mut ours = base.clone();
    ours.semantic_graph
        .as_mut()
        .unwrap()
        .nodes
        .as_mut()
        .unwrap()
        .remove(0);
    let mut theirs = base.clone();
    theirs
        .semantic_graph
        .as_mut()
        .unwrap()
        .nodes
        .as_mut()
        .unwrap()[0]
        .importance = Some(0.9);
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    let pointers: Vec<&str> = m.conflicts.iter().map(|c| c.pointer.as_str()).collect();
    assert_eq!(pointers, ["/semanticGraph/nodes/a"]);
}

#[test]
fn both_sides_appending_turns_keep_every_turn() {
    let options = ArchiveOptions {
        max_turns: 2,
        ..ArchiveOptions::default()
    };
    let mut base = Document::new("2025-12-04T10:30:00Z");
    append_turns(
        &mut base,
        &[turn(1, "one"), turn(2, "two"), turn(3, "three")],
        &options,
    )
    .unwrap();
    let mut ours = base.clone();
    append_turns(
        &mut ours,
        &[turn(4, "ours four"), turn(5, "ours five")],
        &options,
    )
    .unwrap();
    let mut theirs = base.clone();
    append_turns(&mut theirs, &[turn(4, "theirs four")], &options).unwrap();
    let opts = MergeOptions {
        archive: options,
        ..MergeOptions::default()
    };
    let m = merge(&base, &ours, &theirs, &opts).unwrap();
    assert_eq!(m.renumbered, [(4, 6)]);
    let got = archived(&m.document);
    let want = [
        (1, "one"),
        (2, "two"),
        (3, "three"),
        (4, "ours four"),
        (5, "ours five"),
        (6, "theirs four"),
    ];
    assert_eq!(got, want.map(|(n, c)| (n, c.to_string())));
    // Base blocks were kept byte for byte.
    let first = &m.document.deep_archive.as_ref().unwrap().blocks()[0];
    assert_eq!(first, &base.deep_archive.as_ref().unwrap().blocks()[0]);
    let swapped = merge(&base, &theirs, &ours, &opts).unwrap();
    assert_eq!(
        crate::codec::to_canonical_json(&swapped.document).unwrap(),
        crate::codec::to_canonical_json(&m.document).unwrap()
    );
}

#[test]
fn artifact_versions_added_on_both_sides_are_all_kept() {
    let code = |body: &str| format!("```python name=app.py\n{body}\n```");
    let lines =
        |extra: &str| format!("import os\nimport sys\n\ndef main():\n    print('{extra}')\n");
    let options = ArchiveOptions::default();
    let mut base = Document::new("2025-12-04T10:30:00Z");
    append_turns(&mut base, &[turn(1, &code(&lines("v1")))], &options).unwrap();
    let mut ours = base.clone();
    append_turns(&mut ours, &[turn(2, &code(&lines("ours")))], &options).unwrap();
    let mut theirs = base.clone();
    append_turns(&mut theirs, &[turn(2, &code(&lines("theirs")))], &options).unwrap();
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let got = archived(&m.document);
    assert_eq!(got.len(), 3, "{got:?} {:?}", m.renumbered);
    assert!(got.iter().any(|(_, c)| c.contains("'ours'")));
    assert!(got.iter().any(|(_, c)| c.contains("'theirs'")));
    let vault = m
        .document
        .artifact_vault
        .as_ref()
        .unwrap()
        .artifacts
        .as_ref()
        .unwrap();
    let (id, art) = vault.iter().next().unwrap();
    let all = crate::vault::rebuild_versions(id, art).unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(art.hash, crate::vault::content_hash(all.last().unwrap()));
    let report = crate::validate::validate(
        &crate::to_bytes(
            &m.document,
            &crate::WriteOptions::new(crate::Encoding::Json),
        )
        .unwrap(),
        &crate::validate::ValidateOptions::default(),
    );
    assert!(report.is_valid(), "{:?}", report.findings);
}
