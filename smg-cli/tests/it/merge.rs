//! The merge a user makes first: ingest a conversation, fork it twice, append a
//! different new session on each branch, merge. On the LoCoMo dev files: exit 0 with
//! no --prefer, nothing lost, the graph of one ingest of all the sessions. And old
//! files' position-based ids made stable by `smg migrate`.

use std::path::{Path, PathBuf};

use crate::common::{merged, ok};
use serde_json::{json, Value};
use smg_format::{
    archive::read_archive,
    model::{Node, ShortText},
    Document, Limits,
};

fn locomo() -> Vec<PathBuf> {
    crate::common::locomo_files()
}

/// The LoCoMo conversation `v` with only the sessions `keep` (numbers from 1).
fn sessions(v: &Value, id: &str, keep: impl Iterator<Item = usize>) -> Value {
    let mut out =
        json!({"sample_id": id, "speaker_a": v["speaker_a"], "speaker_b": v["speaker_b"]});
    for n in keep {
        for key in [format!("session_{n}"), format!("session_{n}_date_time")] {
            out[&key] = v[&key].clone();
        }
    }
    out
}

fn load(path: &Path) -> Document {
    smg_format::read_file(path, &Limits::default()).unwrap().0
}

/// Every archived turn, as (conversation, message, content).
fn said(doc: &Document) -> Vec<(Option<ShortText>, Option<ShortText>, String)> {
    let turns = read_archive(doc, &Limits::default()).unwrap();
    turns
        .into_iter()
        .map(|a| (a.turn.conversation_id, a.turn.message_id, a.turn.content))
        .collect()
}

#[test]
fn two_branches_of_a_locomo_conversation_merge_without_help() {
    for file in locomo() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        branches(&file, d, |_| {});
        let report = merged("merged.smg", d);
        assert_eq!(report["written"], true, "{report}");
        let unsettled: Vec<&Value> = report["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["resolved"].is_null())
            .collect();
        assert!(unsettled.is_empty(), "{unsettled:?}");
        ok(&["validate", "merged.smg"], d);

        let merged = said(&load(&d.join("merged.smg")));
        let (ours, theirs) = (
            said(&load(&d.join("ours.smg"))),
            said(&load(&d.join("theirs.smg"))),
        );
        for turn in ours.iter().chain(&theirs) {
            assert!(merged.contains(turn), "{}: lost {turn:?}", file.display());
        }
        let base_turns = said(&load(&d.join("base.smg"))).len();
        assert_eq!(merged.len(), ours.len() + theirs.len() - base_turns);
        assert_eq!(report["turns"]["ours"], ours.len() - base_turns);
        assert_eq!(report["turns"]["theirs"], theirs.len() - base_turns);

        // The graph of one ingest of all three parts.
        ok(&["ingest", "base.json", "-o", "one.smg", "-q"], d);
        ok(
            &["ingest", "--append", "one.smg", "a.json", "b.json", "-q"],
            d,
        );
        same_memory("one.smg", "merged.smg", d);
    }
}

/// `base.smg` ingested from the first sessions of a LoCoMo `file` (then given to
/// `made`), forked into `ours.smg` and `theirs.smg`, each appended one more session
/// (`a.json`, `b.json`).
fn branches(file: &Path, d: &Path, made: impl FnOnce(&Path)) {
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let last = (1..)
        .take_while(|n| v.get(format!("session_{n}")).is_some())
        .last()
        .unwrap();
    let id = file.file_stem().unwrap().to_str().unwrap();
    let parts = [
        ("base.json", sessions(&v, id, 1..last - 1)),
        ("a.json", sessions(&v, id, std::iter::once(last - 1))),
        ("b.json", sessions(&v, id, std::iter::once(last))),
    ];
    for (name, part) in &parts {
        std::fs::write(d.join(name), serde_json::to_vec(part).unwrap()).unwrap();
    }
    ok(&["ingest", "base.json", "-o", "base.smg", "-q"], d);
    made(d);
    for (side, input) in [("ours", "a.json"), ("theirs", "b.json")] {
        let out = format!("{side}.smg");
        ok(&["fork", "base.smg", "-o", &out, "--branch", side], d);
        ok(&["ingest", "--append", &out, input, "-q"], d);
    }
}

/// `smg diff` finds nothing between the memories `a` and `b` but their metadata.
fn same_memory(a: &str, b: &str, d: &Path) {
    let diff: Value = serde_json::from_str(&ok(&["diff", a, b, "--json"], d)).unwrap();
    for key in [
        "nodesAdded",
        "nodesRemoved",
        "nodesChanged",
        "edgesAdded",
        "edgesRemoved",
        "edgesChanged",
        "turnsAdded",
        "turnsRemoved",
        "workingMemory",
    ] {
        assert_eq!(diff[key], json!([]), "{a} and {b}: {key} {diff}");
    }
}

/// Memories large enough to be read as they decompress (a 6 MB document in the
/// vault) are read lean, without their derived graphs: they merge into one ingest of
/// both sides all the same (and are appended to as when read whole), and a merge that
/// needs what was left out (a side that changed nothing) reads them again whole.
#[test]
fn large_branches_read_lean_merge_as_one_ingest_of_both() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    branches(&locomo()[0], d, |d| {
        let line = "The quarterly plan keeps the storage budget flat and the team small.\n";
        std::fs::write(d.join("plan.txt"), line.repeat(6_000_000 / line.len())).unwrap();
        ok(
            &["vault", "add", "base.smg", "plan.txt", "--kind", "document"],
            d,
        );
        std::fs::copy(d.join("base.smg"), d.join("one.smg")).unwrap();
    });
    let report = merged("merged.smg", d);
    assert_eq!(report["written"], true, "{report}");
    assert!(
        report["nodes"]["rederived"].as_u64().unwrap() > 0,
        "{report}"
    );
    ok(&["validate", "merged.smg"], d);
    // The file is appended to read lean; from stdin (to stdout) it is read whole: the
    // same bytes.
    let whole = crate::common::smg_stdin(
        &["ingest", "--append", "-", "a.json", "b.json", "-q"],
        d,
        &std::fs::read(d.join("one.smg")).unwrap(),
    );
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    ok(
        &["ingest", "--append", "one.smg", "a.json", "b.json", "-q"],
        d,
    );
    assert!(
        std::fs::read(d.join("one.smg")).unwrap() == whole.stdout,
        "an append read lean writes what one read whole writes"
    );
    same_memory("one.smg", "merged.smg", d);
    assert!(load(&d.join("merged.smg")).artifact_vault.is_some());

    ok(
        &[
            "merge",
            "base.smg",
            "base.smg",
            "theirs.smg",
            "-o",
            "same.smg",
        ],
        d,
    );
    same_memory("theirs.smg", "same.smg", d);
    let canonical = |f: &str| smg_format::codec::to_canonical_json(&load(&d.join(f))).unwrap();
    assert!(canonical("theirs.smg") == canonical("same.smg"));
}

/// The position-based id an older smg gave a derived node.
fn legacy_id(node: &Node) -> String {
    let turn = node.provenance.as_ref().unwrap()[0].turns.as_ref().unwrap()[0];
    let (kind, rest) = node.id.split_once('-').unwrap();
    match rest.split_once('-') {
        Some((_, k)) => format!("{kind}-{turn}-{k}"),
        None => format!("{kind}-{turn}"),
    }
}

#[test]
fn migrate_gives_old_files_stable_ids_and_keeps_references() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sample = crate::common::fixtures().join("ingest/sample-chat.jsonl");
    ok(
        &[
            "ingest",
            sample.to_str().unwrap(),
            "-o",
            "new.smg",
            "--encoding",
            "json",
            "-q",
        ],
        d,
    );
    let fresh = load(&d.join("new.smg"));
    let mut old = fresh.clone();
    let graph = old.semantic_graph.as_mut().unwrap();
    let renamed: std::collections::HashMap<String, String> = graph
        .nodes()
        .iter()
        .filter(|n| ["segment", "decision", "memory"].contains(&n.kind.as_str()))
        .map(|n| (n.id.to_string(), legacy_id(n)))
        .collect();
    for n in graph.nodes.as_mut().unwrap() {
        if let Some(old_id) = renamed.get(n.id.as_str()) {
            n.id = smg_format::model::NonEmpty::new(old_id.clone()).unwrap();
        }
    }
    for e in graph.edges.as_mut().unwrap() {
        for end in [&mut e.from, &mut e.to] {
            if let Some(old_id) = renamed.get(end.as_str()) {
                *end = smg_format::model::NonEmpty::new(old_id.clone()).unwrap();
            }
        }
    }
    let (new_seg, old_seg) = renamed.iter().find(|(k, _)| k.starts_with("seg-")).unwrap();
    let mut note = serde_json::from_value::<Node>(
        json!({"id": "note", "type": "concept", "label": "my note"}),
    )
    .unwrap();
    note.related_nodes = Some(vec![old_seg.clone()]);
    graph.nodes.as_mut().unwrap().push(note);
    let bytes = smg_format::to_bytes(
        &old,
        &smg_format::WriteOptions::new(smg_format::Encoding::Json),
    )
    .unwrap();
    std::fs::write(d.join("old.smg"), bytes).unwrap();

    let said = ok(&["migrate", "old.smg", "--json"], d);
    let report: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(report["renamed"], renamed.len(), "{report}");
    let migrated = load(&d.join("old.smg"));
    let g = migrated.semantic_graph.as_ref().unwrap();
    let note = g.nodes().iter().find(|n| n.id == "note").unwrap();
    assert_eq!(note.related_nodes, Some(vec![new_seg.clone()]));
    let derived: Vec<&Node> = g.nodes().iter().filter(|n| n.id != "note").collect();
    let want: Vec<&Node> = fresh
        .semantic_graph
        .as_ref()
        .unwrap()
        .nodes()
        .iter()
        .collect();
    assert_eq!(derived, want);
    ok(&["validate", "old.smg"], d);
}

#[test]
fn migrate_brings_a_format_1_file_to_format_2_in_its_own_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let v1 = root.join("fixtures/valid/full-brotli.smg");
    std::fs::copy(&v1, d.join("old.smg")).unwrap();
    let before = load(&d.join("old.smg"));
    assert_eq!(before.version.as_str(), "1.0");
    let said = ok(&["migrate", "old.smg", "-o", "new.smg", "--json"], d);
    let report: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(report["format"]["from"], "1.0", "{report}");
    assert_eq!(report["format"]["to"], "2.0");
    assert!(report["format"]["blocks"].as_u64().unwrap() > 0);
    let bytes = std::fs::read(d.join("new.smg")).unwrap();
    assert_eq!(&bytes[..4], b"\x89SMG");
    assert_eq!(bytes[5], 1, "still Brotli");
    let after = load(&d.join("new.smg"));
    assert_eq!(after.version.as_str(), "2.0");
    assert_eq!(said_turns(&after), said_turns(&before));
    ok(&["validate", "new.smg"], d);
    // The old file is as it was; a second migrate changes no block.
    assert_eq!(
        std::fs::read(d.join("old.smg")).unwrap(),
        std::fs::read(&v1).unwrap()
    );
    let again: Value = serde_json::from_str(&ok(&["migrate", "new.smg", "--json"], d)).unwrap();
    assert_eq!(again["format"]["blocks"], 0);
}

/// Every archived turn whole, as JSON.
fn said_turns(doc: &Document) -> Vec<Value> {
    let turns = read_archive(doc, &Limits::default()).unwrap();
    turns
        .iter()
        .map(|t| serde_json::to_value(&t.turn).unwrap())
        .collect()
}
