//! Curation as a user runs it: ingest a LoCoMo conversation, curate it a year later,
//! validate, curate again (nothing more), read the audit, restore the cycle (the same
//! document as before); governance refusals with their codes; a tier moved by hand.

use std::path::PathBuf;

use crate::common::{ok, smg, text};
use serde_json::Value;

fn locomo() -> PathBuf {
    crate::common::locomo_files().remove(0)
}

const LATER: &str = "2026-06-01T00:00:00Z";

#[test]
fn a_year_later_curation_is_valid_idempotent_audited_and_undone_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = locomo();
    ok(&["ingest", "-o", "m.smg", input.to_str().unwrap()], d);
    let before = ok(&["cat", "m.smg"], d);
    let bytes = std::fs::read(d.join("m.smg")).unwrap();
    let dry = ok(
        &["curate", "m.smg", "--now", LATER, "--dry-run", "--json"],
        d,
    );
    assert_eq!(
        std::fs::read(d.join("m.smg")).unwrap(),
        bytes,
        "a dry run writes nothing"
    );
    let report: Value =
        serde_json::from_str(&ok(&["curate", "m.smg", "--now", LATER, "--json"], d)).unwrap();
    let dry: Value = serde_json::from_str(&dry).unwrap();
    assert_eq!(dry["actions"], report["actions"]);
    let actions = report["actions"].as_array().unwrap();
    assert!(!actions.is_empty());
    assert!(actions
        .iter()
        .all(|a| a["reason"].as_str().is_some_and(|r| !r.is_empty())));
    ok(&["validate", "m.smg"], d);
    let curated = std::fs::read(d.join("m.smg")).unwrap();
    let again: Value =
        serde_json::from_str(&ok(&["curate", "m.smg", "--now", LATER, "--json"], d)).unwrap();
    assert_eq!(again["actions"].as_array().unwrap().len(), 0);
    assert_eq!(
        std::fs::read(d.join("m.smg")).unwrap(),
        curated,
        "nothing more to do"
    );
    let audit: Value = serde_json::from_str(&ok(&["audit", "m.smg", "--json"], d)).unwrap();
    assert_eq!(audit["audit"].as_array().unwrap().len(), actions.len());
    let cycle = report["cycle"].as_str().unwrap();
    ok(&["restore", "m.smg", cycle], d);
    assert_eq!(
        ok(&["cat", "m.smg"], d),
        before,
        "restoring the cycle is an exact undo"
    );
    assert_eq!(ok(&["audit", "m.smg"], d), "no curation recorded\n");
}

#[test]
fn governance_refuses_by_the_policy_and_tiers_move_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&["init", "m.smg"], d);
    ok(
        &[
            "policy",
            "set",
            "m.smg",
            "--approver",
            "eng=alice",
            "--executive",
            "cfo",
        ],
        d,
    );
    let shown: Value =
        serde_json::from_str(&ok(&["policy", "show", "m.smg", "--json"], d)).unwrap();
    assert_eq!(shown["approvers"]["eng"][0], "alice");
    let add = |confidence: &str, by: &str| {
        smg(
            &[
                "knowledge",
                "add",
                "m.smg",
                "--label",
                "Deploys",
                "--content",
                "Deploy on Tuesdays",
                "--tier",
                "departmental",
                "--department",
                "eng",
                "--confidence",
                confidence,
                "--approved-by",
                by,
                "--id",
                "k1",
                "--now",
                "2025-01-01T00:00:00Z",
            ],
            d,
        )
    };
    let refused = add("0.849", "alice");
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("SMG-E120"));
    let refused = add("0.9", "bob");
    assert!(
        text(&refused.stderr).contains("SMG-E240"),
        "{}",
        text(&refused.stderr)
    );
    assert!(add("0.85", "alice").status.success());
    ok(&["validate", "m.smg"], d);
    let moved = ok(
        &[
            "tier",
            "promote",
            "m.smg",
            "k1",
            "--now",
            "2025-01-02T00:00:00Z",
        ],
        d,
    );
    assert!(moved.contains("ARCHIVE -> COLD"), "{moved}");
    let id = moved
        .trim_end()
        .rsplit('(')
        .next()
        .unwrap()
        .trim_end_matches(')')
        .to_string();
    let before_restore = ok(&["cat", "m.smg"], d);
    assert!(before_restore.contains("\"COLD\""));
    ok(&["restore", "m.smg", &id], d);
    assert!(!ok(&["cat", "m.smg"], d).contains("\"COLD\""));
    // Restricted knowledge is sealed in the same write: never readable in the clear.
    std::fs::write(d.join("seal.txt"), "board only\n").unwrap();
    let added = ok(
        &[
            "knowledge",
            "add",
            "m.smg",
            "--label",
            "Acquisition",
            "--content",
            "We buy Initech in Q3",
            "--tier",
            "restricted",
            "--confidence",
            "0.7",
            "--seal-passphrase-file",
            "seal.txt",
        ],
        d,
    );
    assert!(added.contains("sealed in"), "{added}");
    let clear = ok(&["cat", "m.smg"], d);
    assert!(
        !clear.contains("Initech") && !clear.contains("Acquisition"),
        "{clear}"
    );
    ok(&["validate", "m.smg"], d);
}

#[test]
fn retrieval_records_access_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = locomo();
    ok(&["ingest", "-o", "m.smg", input.to_str().unwrap()], d);
    let bytes = std::fs::read(d.join("m.smg")).unwrap();
    ok(&["search", "m.smg", "support group"], d);
    ok(&["context", "m.smg", "support group", "--budget", "300"], d);
    assert_eq!(
        std::fs::read(d.join("m.smg")).unwrap(),
        bytes,
        "reads never write"
    );
    let found: Value = serde_json::from_str(&ok(
        &[
            "search",
            "m.smg",
            "support group",
            "--json",
            "--track",
            "--by",
            "app",
        ],
        d,
    ))
    .unwrap();
    let node = found["nodes"][0]["id"].as_str().unwrap().to_string();
    let segment = found["hits"][0]["segment"].as_str().unwrap().to_string();
    ok(&["expand", "m.smg", &segment, "--track"], d);
    let doc: Value = serde_json::from_str(&ok(&["cat", "m.smg"], d)).unwrap();
    let nodes = doc["semanticGraph"]["nodes"].as_array().unwrap();
    let of = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap().clone();
    assert_eq!(of(&node)["accessCount"], 1);
    assert_eq!(of(&node)["recentAccesses"][0]["by"], "app");
    assert_eq!(
        of(&segment)["accessCount"],
        2,
        "found by the search, then expanded"
    );
    ok(&["validate", "m.smg"], d);
    let piped = crate::common::smg_stdin(&["search", "-", "x", "--track"], d, &bytes);
    assert_eq!(piped.status.code(), Some(1));
    assert!(text(&piped.stderr).contains("SMG-E020"));
}
