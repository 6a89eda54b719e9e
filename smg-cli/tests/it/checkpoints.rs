//! `smg diff --delta`, `smg apply`, `smg fork`, `smg log` and `smg merge`, run as users
//! run them.

use std::path::Path;

use crate::common::{fixtures, smg, text};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn ok(args: &[&str], d: &Path) -> String {
    let out = smg(args, d);
    assert!(out.status.success(), "smg {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// v1: the sample chat's first lines; v2: all of it (appended).
fn checkpoints(d: &Path) {
    let sample = std::fs::read_to_string(fixtures().join("ingest/sample-chat.jsonl")).unwrap();
    let lines: Vec<&str> = sample.lines().collect();
    std::fs::write(d.join("early.jsonl"), lines[..6].join("\n") + "\n").unwrap();
    std::fs::write(d.join("all.jsonl"), &sample).unwrap();
    ok(&["ingest", "early.jsonl", "-o", "v1.smg", "-q"], d);
    std::fs::copy(d.join("v1.smg"), d.join("v2.smg")).unwrap();
    ok(&["ingest", "--append", "v2.smg", "all.jsonl", "-q"], d);
}

#[test]
fn deltas_rebuild_files_and_chain() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    checkpoints(d);
    let said = ok(&["diff", "v1.smg", "v2.smg", "--delta", "-o", "d2.smgd"], d);
    assert!(said.contains("document patch"), "{said}");
    ok(&["apply", "v1.smg", "d2.smgd", "-o", "v2.rebuilt.smg"], d);
    let read = |n: &str| std::fs::read(d.join(n)).unwrap();
    assert_eq!(read("v2.rebuilt.smg"), read("v2.smg"));
    assert!(read("d2.smgd").len() < read("v2.smg").len());

    ok(
        &[
            "fork",
            "v2.smg",
            "-o",
            "v3.smg",
            "--branch",
            "next",
            "--at",
            "2026-01-01T00:00:00Z",
        ],
        d,
    );
    ok(
        &[
            "diff", "v2.smg", "v3.smg", "--delta", "-o", "d3.smgd", "--json",
        ],
        d,
    );
    ok(
        &[
            "apply",
            "v1.smg",
            "d2.smgd",
            "d3.smgd",
            "-o",
            "v3.rebuilt.smg",
        ],
        d,
    );
    assert_eq!(read("v3.rebuilt.smg"), read("v3.smg"));

    let wrong = smg(&["apply", "v1.smg", "d3.smgd", "-o", "x.smg"], d);
    assert_eq!(wrong.status.code(), Some(1));
    let err = text(&wrong.stderr);
    assert!(err.contains("SMG-E160") && err.contains("d3.smgd"), "{err}");
    assert!(!d.join("x.smg").exists(), "a refused apply writes nothing");
}

#[test]
fn fork_records_lineage_and_log_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    checkpoints(d);
    ok(
        &[
            "fork",
            "v2.smg",
            "-o",
            "a.smg",
            "--branch",
            "alpha",
            "--at",
            "2026-01-01T00:00:00Z",
        ],
        d,
    );
    ok(
        &[
            "fork",
            "a.smg",
            "-o",
            "b.smg",
            "--branch",
            "beta",
            "--at",
            "2026-01-02T00:00:00Z",
        ],
        d,
    );
    let log: Value = serde_json::from_str(&ok(&["log", "b.smg", "--json"], d)).unwrap();
    assert_eq!(log["branch"], "beta");
    let lineage = log["lineage"].as_array().unwrap();
    assert_eq!(lineage.len(), 2);
    let sha = |n: &str| hex::encode(Sha256::digest(std::fs::read(d.join(n)).unwrap()));
    assert_eq!(lineage[0]["parentSha256"], sha("v2.smg"));
    assert_eq!(lineage[1]["parentSha256"], sha("a.smg"));
    assert_eq!(lineage[1]["parentBranch"], "alpha");
    let printed = ok(&["log", "b.smg"], d);
    assert!(printed.contains("on branch beta"), "{printed}");
    assert!(
        printed.find("`beta`") < printed.find("`alpha`"),
        "newest first: {printed}"
    );
    ok(&["validate", "b.smg"], d);
    let bad = smg(
        &[
            "fork", "v2.smg", "-o", "c.smg", "--branch", "x", "--at", "soon",
        ],
        d,
    );
    assert_eq!(bad.status.code(), Some(1));
}

fn edit(d: &Path, name: &str, project: &str) {
    let path = d.join(name);
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["metadata"]["projectName"] = Value::from(project);
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn merge_takes_both_sides_and_stops_on_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    checkpoints(d);
    ok(
        &["convert", "v1.smg", "-o", "base.smg", "--encoding", "json"],
        d,
    );
    ok(
        &[
            "fork",
            "base.smg",
            "-o",
            "ours.smg",
            "--branch",
            "ours",
            "--at",
            "2026-01-01T00:00:00Z",
        ],
        d,
    );
    ok(
        &[
            "fork",
            "base.smg",
            "-o",
            "theirs.smg",
            "--branch",
            "theirs",
            "--at",
            "2026-01-01T00:00:00Z",
        ],
        d,
    );
    std::fs::write(
        d.join("ours.py"),
        "import os\nimport sys\n\nprint('ours')\n",
    )
    .unwrap();
    std::fs::write(d.join("theirs.md"), "# Notes\n\nfrom their side\n").unwrap();
    ok(&["vault", "add", "ours.smg", "ours.py"], d);
    ok(&["vault", "add", "theirs.smg", "theirs.md"], d);
    let said = ok(
        &["merge", "base.smg", "ours.smg", "theirs.smg", "-o", "m.smg"],
        d,
    );
    assert!(said.contains("took ours /metadata/branch"), "{said}");
    let listed = ok(&["vault", "list", "m.smg"], d);
    assert!(
        listed.contains("ours.py") && listed.contains("theirs.md"),
        "{listed}"
    );
    ok(&["validate", "m.smg"], d);
    merges_from_stdin_and_an_encrypted_side(d);

    edit(d, "ours.smg", "Atlas");
    edit(d, "theirs.smg", "Zephyr");
    let out = smg(
        &["merge", "base.smg", "ours.smg", "theirs.smg", "-o", "c.smg"],
        d,
    );
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout);
    assert!(said.contains("CONFLICT /metadata/projectName"), "{said}");
    assert!(
        !d.join("c.smg").exists(),
        "an unresolved merge writes nothing"
    );
    let out = ok(
        &[
            "merge",
            "base.smg",
            "ours.smg",
            "theirs.smg",
            "-o",
            "c.smg",
            "--prefer",
            "theirs",
            "--json",
        ],
        d,
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["written"], true);
    let doc: Value = serde_json::from_slice(&std::fs::read(d.join("c.smg")).unwrap()).unwrap();
    assert_eq!(doc["metadata"]["projectName"], "Zephyr");
    assert_eq!(doc["metadata"]["branch"], "theirs");
}

/// The merge that made `m.smg`, with the base read from stdin and our side encrypted
/// (read after the others, with its passphrase), gives the same document, written
/// encrypted as our side was.
fn merges_from_stdin_and_an_encrypted_side(d: &Path) {
    let with_pass = |args: &[&str], input: Option<&[u8]>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_smg"));
        cmd.args(args)
            .current_dir(d)
            .env("SMG_PASSPHRASE", "merge secret");
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, input.unwrap_or_default()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "smg {args:?}: {}", text(&out.stderr));
        out.stdout
    };
    with_pass(&["encrypt", "ours.smg", "-o", "ours.enc"], None);
    let base = std::fs::read(d.join("base.smg")).unwrap();
    let args = ["merge", "-", "ours.enc", "theirs.smg", "-o", "e.smg"];
    with_pass(&args, Some(&base));
    let encrypted = std::fs::read(d.join("e.smg")).unwrap();
    assert!(smg_format::crypto::is_encrypted(&encrypted));
    let cat = |file| with_pass(&["cat", file], None);
    assert_eq!(cat("e.smg"), cat("m.smg"));
}
