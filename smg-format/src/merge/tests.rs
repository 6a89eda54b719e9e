use super::*;
use crate::archive::{append_turns, tests::turn};
use crate::model::{Edge, Graph, Node, Turn};
use crate::test_support::node;

fn with_nodes(nodes: Vec<Node>) -> Document {
    let mut doc = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    let edges = nodes
        .windows(2)
        .map(|w| {
            Edge::new(
                crate::model::NonEmpty::new(w[0].id.clone()).unwrap(),
                crate::model::NonEmpty::from_static("related_to"),
                crate::model::NonEmpty::new(w[1].id.clone()).unwrap(),
            )
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
        .map(|a| (a.turn.turn.get(), a.turn.content))
        .collect()
}

fn labels(doc: &Document) -> Vec<(String, Option<String>)> {
    let g = doc.semantic_graph.as_ref().unwrap();
    g.nodes()
        .iter()
        .map(|n| (n.id.to_string(), n.label.clone()))
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
        .importance = Some(crate::model::Unit::clamped(0.9));
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    let pointers: Vec<&str> = m.conflicts.iter().map(|c| c.pointer.as_str()).collect();
    assert_eq!(pointers, ["/semanticGraph/nodes/a"]);
}

/// Turn `n` of conversation `c`, said at minute `n` (message id `c-n`).
fn said(n: u64, content: &str) -> Turn {
    Turn {
        timestamp: Some(crate::model::Timestamp::new(format!("2025-01-01T10:{n:02}:00Z")).unwrap()),
        conversation_id: Some("c".into()),
        message_id: Some(format!("c-{n}").into()),
        ..turn(n, content)
    }
}

fn small_blocks() -> MergeOptions {
    MergeOptions {
        archive: ArchiveOptions {
            max_turns: 2,
            ..ArchiveOptions::default()
        },
        ..MergeOptions::default()
    }
}

/// A base of three turns, and each side with its own new turns appended.
fn forked(ours_new: &[Turn], theirs_new: &[Turn]) -> [Document; 3] {
    let options = small_blocks().archive;
    let mut base = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    let first = [said(1, "one"), said(2, "two"), said(3, "three")];
    append_turns(&mut base, &first, &options).unwrap();
    let mut ours = base.clone();
    append_turns(&mut ours, ours_new, &options).unwrap();
    let mut theirs = base.clone();
    append_turns(&mut theirs, theirs_new, &options).unwrap();
    [base, ours, theirs]
}

#[test]
fn both_sides_appending_turns_keep_every_turn_in_time_order() {
    let ours_new = [said(4, "ours four"), said(5, "ours five")];
    // Said between ours' two turns, archived by theirs as turn 4.
    let theirs_new = [Turn {
        turn: crate::model::Ordinal::new(4).unwrap(),
        timestamp: Some(crate::model::Timestamp::from_static("2025-01-01T10:04:30Z")),
        message_id: Some("t-1".into()),
        ..said(4, "theirs four")
    }];
    let [base, ours, theirs] = forked(&ours_new, &theirs_new);
    let opts = small_blocks();
    let m = merge(&base, &ours, &theirs, &opts).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let got = archived(&m.document);
    let want = [
        (1, "one"),
        (2, "two"),
        (3, "three"),
        (4, "ours four"),
        (5, "theirs four"),
        (6, "ours five"),
    ];
    assert_eq!(got, want.map(|(n, c)| (n, c.to_string())));
    let moved = |side, from, to| Renumbered { side, from, to };
    assert_eq!(
        m.report.renumbered,
        [moved(Side::Ours, 5, 6), moved(Side::Theirs, 4, 5)]
    );
    assert_eq!((m.report.turns.ours, m.report.turns.theirs), (2, 1));
    assert!(m.report.rederive);
    // Base blocks were kept byte for byte.
    let first = &m.document.deep_archive.as_ref().unwrap().blocks()[0];
    assert_eq!(first, &base.deep_archive.as_ref().unwrap().blocks()[0]);
    let swapped = merge(&base, &theirs, &ours, &opts).unwrap();
    assert_eq!(archived(&swapped.document), archived(&m.document));
}

#[test]
fn a_message_both_sides_appended_is_archived_once() {
    let shared = said(5, "said on both");
    let ours_new = [said(4, "ours only"), shared.clone()];
    let theirs_new = [Turn {
        turn: crate::model::Ordinal::new(4).unwrap(),
        ..shared
    }];
    let [base, ours, theirs] = forked(&ours_new, &theirs_new);
    let m = merge(&base, &ours, &theirs, &small_blocks()).unwrap();
    let got = archived(&m.document);
    assert_eq!(got, archived(&ours), "ours holds the union already");
    assert_eq!(m.report.turns.both, 1);
    assert_eq!(m.report.turns.ours, 1);
    assert_eq!(
        m.document.deep_archive.as_ref().unwrap().blocks(),
        ours.deep_archive.as_ref().unwrap().blocks(),
        "ours' blocks are the merge's"
    );
}

#[test]
fn references_are_renumbered_with_their_turns() {
    let ours_new = [said(4, "ours four")];
    let theirs_new = [Turn {
        turn: crate::model::Ordinal::new(4).unwrap(),
        ..said(5, "theirs five")
    }];
    let [base, ours, mut theirs] = forked(&ours_new, &theirs_new);
    // Theirs archived its turn as 4; it comes after ours' in time, so it is 5 now.
    let mut t = archived(&theirs);
    assert_eq!(t.pop(), Some((4, "theirs five".to_string())));
    let note = Node {
        first_mentioned: Some(4),
        last_mentioned: Some(4),
        provenance: Some(vec![crate::model::Provenance {
            conversation_id: Some("c".into()),
            message_ids: Some(vec!["c-5".into()]),
            turns: Some(vec![crate::model::Ordinal::new(4).unwrap()]),
            ..Default::default()
        }]),
        ..node("note", "a note on their turn")
    };
    theirs.semantic_graph = Some(Graph {
        nodes: Some(vec![note]),
        ..Graph::default()
    });
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    let g = m.document.semantic_graph.as_ref().unwrap();
    let n = &g.nodes()[0];
    assert_eq!((n.first_mentioned, n.last_mentioned), (Some(5), Some(5)));
    let turns = n.provenance.as_ref().unwrap()[0].turns.as_ref().unwrap();
    assert_eq!(turns, &[crate::model::Ordinal::new(5).unwrap()]);
    assert_eq!(archived(&m.document)[4], (5, "theirs five".to_string()));
    assert_eq!(m.report.nodes_added, 1);
}

#[test]
fn derived_nodes_and_working_memory_never_conflict() {
    let derived = |id: &str, label: &str| Node {
        created_by: Some(Node::DERIVED_BY.into()),
        ..node(id, label)
    };
    let base = with_nodes(vec![derived("seg-a", "base"), node("mine", "mine")]);
    let mut ours = with_nodes(vec![derived("seg-a", "ours"), node("mine", "mine")]);
    let mut theirs = with_nodes(vec![derived("seg-a", "theirs"), node("mine", "mine")]);
    for (doc, summary) in [(&mut ours, "ours"), (&mut theirs, "theirs")] {
        doc.working_memory = Some(crate::model::WorkingMemory {
            summary: Some(summary.into()),
            ..Default::default()
        });
        doc.metadata.total_exchanges = Some(summary.len() as u64);
        let g = doc.semantic_graph.as_mut().unwrap();
        g.nodes.as_mut().unwrap()[1].importance =
            Some(crate::model::Unit::clamped(summary.len() as f64 / 10.0));
    }
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    assert!(m.report.rederive);
    let mine = &m.document.semantic_graph.as_ref().unwrap().nodes()[1];
    assert_eq!(
        mine.importance.map(f64::from),
        Some(0.6),
        "the greater importance"
    );
}

#[test]
fn turns_read_without_their_records_are_written_again_whole() {
    // Blocks [1, 2], [3, 4], [5]: both sides keep the first two byte for byte, so the
    // plan reads their turns without source records; ours changes turn 5, so the merge
    // writes the archive again, the base's turns with their records.
    let with_source = |t: Turn| {
        let mut t = t;
        let n = t.turn.get();
        t.extra
            .insert("source".into(), serde_json::json!({"record": {"line": n}}));
        t
    };
    let options = small_blocks().archive;
    let mut base = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    let first: Vec<Turn> = (1..=5).map(|n| with_source(said(n, "said"))).collect();
    append_turns(&mut base, &first, &options).unwrap();
    let mut ours = base.clone();
    let mut changed = first.clone();
    changed[4].content = "said again".into();
    ours.deep_archive = None;
    append_turns(&mut ours, &changed, &options).unwrap();
    let mut theirs = base.clone();
    append_turns(&mut theirs, &[with_source(said(6, "theirs"))], &options).unwrap();
    let shared = |d: &Document| d.deep_archive.as_ref().unwrap().blocks()[..2].to_vec();
    assert_eq!(shared(&ours), shared(&base));
    assert_eq!(shared(&theirs), shared(&base));
    let m = merge(&base, &ours, &theirs, &small_blocks()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let got = crate::archive::read_archive(&m.document, &Limits::default()).unwrap();
    let lines: Vec<_> = got
        .iter()
        .map(|a| a.turn.extra["source"]["record"]["line"].clone())
        .collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 6].map(serde_json::Value::from));
    assert_eq!(got[4].turn.content, "said again");
}

#[test]
fn a_turn_changed_differently_on_both_sides_is_a_conflict() {
    let [base, mut ours, mut theirs] = forked(&[], &[]);
    let options = small_blocks().archive;
    for (doc, text) in [(&mut ours, "ours' words"), (&mut theirs, "theirs' words")] {
        let mut turns: Vec<Turn> = crate::archive::read_archive(doc, &Limits::default())
            .unwrap()
            .into_iter()
            .map(|a| a.turn)
            .collect();
        turns[1].content = text.into();
        doc.deep_archive = None;
        append_turns(doc, &turns, &options).unwrap();
    }
    let m = merge(&base, &ours, &theirs, &small_blocks()).unwrap();
    let pointers: Vec<&str> = m.conflicts.iter().map(|c| c.pointer.as_str()).collect();
    assert_eq!(pointers, ["/deepArchive/turns/2"]);
    assert_eq!(m.unresolved().count(), 1);
    let settled = merge(&base, &ours, &theirs, &small_blocks().prefer(Side::Theirs)).unwrap();
    assert_eq!(archived(&settled.document)[1].1, "theirs' words");
}

#[test]
fn artifact_versions_added_on_both_sides_are_all_kept() {
    let code = |body: &str| format!("```python name=app.py\n{body}\n```");
    let lines =
        |extra: &str| format!("import os\nimport sys\n\ndef main():\n    print('{extra}')\n");
    let options = ArchiveOptions::default();
    let mut base = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    append_turns(&mut base, &[turn(1, &code(&lines("v1")))], &options).unwrap();
    let mut ours = base.clone();
    append_turns(&mut ours, &[turn(2, &code(&lines("ours")))], &options).unwrap();
    let mut theirs = base.clone();
    append_turns(&mut theirs, &[turn(2, &code(&lines("theirs")))], &options).unwrap();
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let got = archived(&m.document);
    assert_eq!(got.len(), 3, "{got:?} {:?}", m.report);
    assert_eq!((m.report.versions.ours, m.report.versions.theirs), (1, 1));
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

#[test]
fn curation_logs_of_both_sides_are_kept_in_time_and_sequence_order() {
    use crate::model::{Action, AuditEntry, Curation, CycleSummary};
    let entry = |at: &str, k: u32| AuditEntry {
        action: Action::Demote,
        at: crate::model::Timestamp::new(at).unwrap(),
        before: None,
        changed: None,
        cycle: Some(format!("cycle-{at}")),
        edges_added: None,
        edges_removed: None,
        id: format!("cycle-{at}/{k}"),
        into: None,
        node: "a".into(),
        reason: "r".into(),
        score: None,
        extra: Default::default(),
    };
    let cycle = |at: &str| CycleSummary {
        demoted: 1,
        ..CycleSummary::new(
            format!("cycle-{at}"),
            crate::model::Timestamp::new(at).unwrap(),
        )
    };
    let log = |at: &str, n: u32| Curation {
        audit: Some((1..=n).map(|k| entry(at, k)).collect()),
        cycles: Some(vec![cycle(at)]),
        ..Curation::default()
    };
    let base = with_nodes(vec![node("a", "A")]);
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    ours.curation = Some(log("2026-07-01T00:00:00Z", 11));
    theirs.curation = Some(log("2026-06-01T00:00:00Z", 2));
    let m = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let c = m.document.curation.unwrap();
    let ids: Vec<String> = c.audit.unwrap().into_iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), 13);
    assert_eq!(ids[0], "cycle-2026-06-01T00:00:00Z/1");
    assert_eq!(ids[2], "cycle-2026-07-01T00:00:00Z/1");
    assert_eq!(
        ids[11], "cycle-2026-07-01T00:00:00Z/10",
        "10 after 9, not after 1"
    );
    assert_eq!(c.cycles.unwrap().len(), 2);
}

#[test]
fn a_merge_for_deriving_again_hands_back_its_archive_and_only_marked_stand_ins() {
    let derived = |id: &str| Node {
        created_by: Some(Node::DERIVED_BY.into()),
        ..node(id, id)
    };
    let marked = Node {
        tier: Some(crate::model::LifecycleTier::Cold),
        ..derived("seg-marked")
    };
    let graph = with_nodes(vec![node("mine", "mine"), marked, derived("seg-plain")]);
    let ours_new = [said(4, "ours four")];
    let theirs_new = [Turn {
        message_id: Some("t-4".into()),
        ..said(4, "theirs four")
    }];
    let mut docs = forked(&ours_new, &theirs_new);
    for d in &mut docs {
        d.semantic_graph.clone_from(&graph.semantic_graph);
    }
    let [base, ours, theirs] = &docs;
    let ids = |m: &Merged| -> Vec<String> {
        let g = m.document.semantic_graph.as_ref().unwrap();
        g.nodes().iter().map(|n| n.id.to_string()).collect()
    };
    let whole = merge(base, ours, theirs, &small_blocks()).unwrap();
    assert_eq!(ids(&whole), ["mine", "seg-marked", "seg-plain"]);
    assert!(
        whole.turns.is_none(),
        "turns only for a caller deriving again"
    );
    let lean = merge(base, ours, theirs, &small_blocks().deriving_again()).unwrap();
    assert_eq!(ids(&lean), ["mine", "seg-marked"]);
    let edges = lean.document.semantic_graph.as_ref().unwrap().edges();
    assert_eq!(edges.len(), 1, "the authored node's edge alone: {edges:?}");
    assert_eq!(lean.document.deep_archive, whole.document.deep_archive);
    let read = crate::archive::read_archive(&lean.document, &Limits::default()).unwrap();
    assert_eq!(lean.turns.as_ref(), Some(&read));
    assert_eq!(read.len(), 5);
}

#[test]
fn artifacts_alike_on_every_side_are_kept_and_the_archive_handed_back_names_versions() {
    let code = |name: &str, body: &str| format!("```python name={name}\n{body}\n```");
    let lines =
        |extra: &str| format!("import os\nimport sys\n\ndef main():\n    print('{extra}')\n");
    let options = ArchiveOptions::default();
    let mut base = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    let first = [
        turn(1, &code("app.py", &lines("v1"))),
        turn(2, &code("kept.py", &lines("kept"))),
    ];
    append_turns(&mut base, &first, &options).unwrap();
    let grown = |side: &str| {
        let mut doc = base.clone();
        let new = [turn(3, &code("app.py", &lines(side)))];
        append_turns(&mut doc, &new, &options).unwrap();
        doc
    };
    let (ours, theirs) = (grown("ours"), grown("theirs"));
    let docs = [&base, &ours, &theirs];
    let settled = vault::settled(docs);
    assert_eq!(settled.len(), 1, "kept.py alone is alike everywhere");
    let m = merge(
        &base,
        &ours,
        &theirs,
        &MergeOptions::default().deriving_again(),
    )
    .unwrap();
    assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
    let arts = |d: &Document| d.artifact_vault.clone().unwrap().artifacts.unwrap();
    let (merged, kept) = (arts(&m.document), arts(&base));
    let id = *settled.iter().next().unwrap();
    assert_eq!(merged.get(id), kept.get(id));
    assert_eq!(merged.len(), 2);
    let read = crate::archive::read_archive(&m.document, &Limits::default()).unwrap();
    assert!(read.iter().any(|a| !a.artifacts.is_empty()));
    assert_eq!(m.turns, Some(read));
}

#[test]
fn a_side_that_changed_nothing_leaves_the_other_whole() {
    let [base, mut ours, _] = forked(&[said(4, "ours four")], &[]);
    let mut graph = with_nodes(vec![node("new", "new")]);
    ours.semantic_graph = graph.semantic_graph.take();
    for (o, t, want) in [
        (&ours, &base, &ours),
        (&base, &ours, &ours),
        (&ours, &ours, &ours),
    ] {
        let m = merge(&base, o, t, &small_blocks()).unwrap();
        assert_eq!(&m.document, want);
        assert!(m.conflicts.is_empty() && !m.report.rederive);
        assert_eq!(m.report.nodes_added, 1);
    }
}
