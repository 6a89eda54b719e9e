//! `smg share` and `smg ingest --redact` as users run them: the copy in every layout,
//! `--check`, `--dry-run`, `--json`, an encrypted input, a stored index, stdout.

use std::path::Path;
use std::process::Command;

use crate::common::{fails, ok, smg, succeeds, text};
use serde_json::{json, Value};

const KEY: &str = "AKIAZ7QWERTYUIOP2345";
const MAIL: &str = "ada.planted@example.org";
const CARD: &str = "4111 1111 1111 1111";

/// A JSON Lines transcript with a key, an address and a card said twice over, and
/// a pasted config file long enough for the vault.
fn transcript(d: &Path) {
    let said = [
        format!("Our deploy key is {KEY} and mail goes to {MAIL}."),
        "We decided to keep the invoices in Postgres for the shop.".to_string(),
        format!("Charge the card {CARD} and write to {MAIL} when done."),
        format!("The config:\n```ini\n[aws]\nkey = {KEY}\nregion = eu-west-1\nowner = {MAIL}\n```"),
    ];
    let lines: String = said
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let line = json!({"conversation_id": "c1", "message_id": format!("m{i}"),
                "role": if i % 2 == 0 { "user" } else { "assistant" }, "content": s,
                "timestamp": format!("2025-03-0{}T10:00:00Z", i + 1)});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(d.join("talk.jsonl"), lines).unwrap();
}

/// Everything a reader of `file` can see: the document and every archived turn,
/// with its source record.
fn visible(file: &str, d: &Path) -> String {
    let mut out = ok(&["cat", file], d);
    for n in 1.. {
        let shown = smg(&["archive", "show", file, &n.to_string(), "--json"], d);
        if !shown.status.success() {
            assert!(n > 1, "{}", text(&shown.stderr));
            break;
        }
        out.push_str(&text(&shown.stdout));
    }
    out
}

#[test]
fn a_shared_copy_holds_no_value_in_any_layout_and_check_tells() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    transcript(d);
    succeeds(&["ingest", "talk.jsonl", "-o", "m.smg", "-q"], d);
    assert!(visible("m.smg", d).contains(KEY));
    let check = smg(&["share", "--check", "m.smg"], d);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    succeeds(
        &[
            "convert", "m.smg", "-o", "p.smg", "--layout", "packed", "--index",
        ],
        d,
    );
    for (input, layout) in [("m.smg", "brotli"), ("p.smg", "packed")] {
        let out = format!("{layout}.shared.smg");
        let said = ok(
            &["share", input, "-o", &out, "--at", "2026-01-01T00:00:00Z"],
            d,
        );
        assert!(
            said.contains("aws-key") && said.contains("email") && said.contains("card"),
            "{said}"
        );
        succeeds(&["validate", &out], d);
        let seen = visible(&out, d);
        for value in [KEY, MAIL, CARD] {
            assert!(!seen.contains(value), "{value} left in {out}");
        }
        assert!(seen.contains("[AWS-KEY-1]") && seen.contains("[EMAIL-1]"));
        assert_eq!(smg(&["share", "--check", &out], d).status.code(), Some(0));
        let info: Value = serde_json::from_str(&ok(&["info", &out, "--json"], d)).unwrap();
        assert_eq!(info["encoding"], layout);
        let hits = ok(&["search", &out, "invoices Postgres", "--json"], d);
        assert!(hits.contains("invoices") && !hits.contains(KEY), "{hits}");
        let hits = ok(&["search", &out, "deploy key", "--json"], d);
        assert!(
            hits.contains("[AWS-KEY-1]"),
            "the copy still searches: {hits}"
        );
    }
    let log: Value = serde_json::from_str(&ok(&["log", "brotli.shared.smg", "--json"], d)).unwrap();
    assert_eq!(log["branch"], "shared");
    assert_eq!(log["lineage"][0]["shared"], true);
    let again = ok(
        &[
            "share",
            "m.smg",
            "-o",
            "again.smg",
            "--at",
            "2026-01-01T00:00:00Z",
        ],
        d,
    );
    assert!(!again.is_empty());
    assert_eq!(
        std::fs::read(d.join("again.smg")).unwrap(),
        std::fs::read(d.join("brotli.shared.smg")).unwrap()
    );
}

#[test]
fn dry_run_and_json_report_kinds_and_places_never_values_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    transcript(d);
    succeeds(&["ingest", "talk.jsonl", "-o", "m.smg", "-q"], d);
    let before = std::fs::read(d.join("m.smg")).unwrap();
    let report = ok(&["share", "m.smg", "--dry-run", "--json"], d);
    let v: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(v["written"], Value::Null);
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["kind"].is_string() && f["place"].is_string()));
    assert_eq!(v["distinct"]["email"], 1);
    assert!(v["counts"]["email"]["deepArchive"].as_u64().unwrap() >= 3);
    assert!(
        v["counts"]["aws-key"]["artifactVault"].as_u64().unwrap() >= 1,
        "{v}"
    );
    for value in [KEY, MAIL, CARD] {
        assert!(!report.contains(value));
    }
    assert_eq!(std::fs::read(d.join("m.smg")).unwrap(), before);
    let kept = ok(
        &[
            "share",
            "m.smg",
            "-o",
            "kept.smg",
            "--keep",
            "email,card",
            "--json",
        ],
        d,
    );
    let v: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(v["counts"]["email"], Value::Null);
    let seen = visible("kept.smg", d);
    assert!(seen.contains(MAIL) && seen.contains(CARD) && !seen.contains(KEY));
    let out = fails(
        &["share", "m.smg", "--keep", "mail", "-o", "x.smg"],
        d,
        1,
        "SMG-E020",
    );
    assert!(
        text(&out.stderr).contains("url-credentials"),
        "names the kinds"
    );
    assert!(!d.join("x.smg").exists());
}

#[test]
fn an_encrypted_memory_is_shared_with_its_passphrase_into_a_plain_copy_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    transcript(d);
    succeeds(&["ingest", "talk.jsonl", "-o", "m.smg", "-q"], d);
    std::fs::write(d.join("pass.txt"), "share secret\n").unwrap();
    succeeds(
        &[
            "encrypt",
            "m.smg",
            "-o",
            "e.smg",
            "--passphrase-file",
            "pass.txt",
        ],
        d,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(["share", "e.smg", "-o", "-"])
        .current_dir(d)
        .env("SMG_PASSPHRASE", "share secret")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(d.join("copy.smg"), &out.stdout).unwrap();
    let info: Value = serde_json::from_str(&ok(&["info", "copy.smg", "--json"], d)).unwrap();
    assert_eq!(
        info["encoding"], "brotli",
        "the copy is written unencrypted"
    );
    assert!(!visible("copy.smg", d).contains(KEY));
}

#[test]
fn ingest_redact_stores_no_value_and_an_append_keeps_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    transcript(d);
    let out = succeeds(
        &[
            "ingest",
            "talk.jsonl",
            "-o",
            "r.smg",
            "-q",
            "--redact",
            "--json",
        ],
        d,
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["redacted"]["distinct"]["email"], 1, "{report}");
    assert!(!text(&out.stdout).contains(MAIL));
    assert!(
        text(&out.stderr).contains("redacted"),
        "{}",
        text(&out.stderr)
    );
    let seen = visible("r.smg", d);
    for value in [KEY, MAIL, CARD] {
        assert!(!seen.contains(value), "{value} stored");
    }
    assert_eq!(
        smg(&["share", "--check", "r.smg"], d).status.code(),
        Some(0)
    );
    let more = json!({"conversation_id": "c2", "message_id": "n1", "role": "user",
        "content": format!("Another address: bob.planted@example.org, and again {MAIL}")});
    std::fs::write(d.join("more.jsonl"), format!("{more}\n")).unwrap();
    succeeds(
        &[
            "ingest",
            "--append",
            "r.smg",
            "more.jsonl",
            "-q",
            "--redact",
        ],
        d,
    );
    let seen = visible("r.smg", d);
    assert!(
        !seen.contains("bob.planted") && seen.contains("[EMAIL-2]"),
        "new values numbered after the old"
    );
    succeeds(&["validate", "r.smg"], d);
}
