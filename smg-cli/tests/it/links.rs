//! `smg link add | list | remove`, run as users run them: links recorded relative to
//! the file, kept through every write, and what became of each linked file reported
//! with its own code.

use std::path::Path;

use crate::common::{fixtures, smg, text};
use serde_json::Value;

fn ok(args: &[&str], d: &Path) -> String {
    let out = smg(args, d);
    assert!(out.status.success(), "smg {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn listed(d: &Path, file: &str) -> Vec<Value> {
    let out = ok(&["link", "list", file, "--json"], d);
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn links_are_added_listed_followed_to_their_fate_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chat = fixtures().join("ingest/sample-chat.jsonl");
    let chat = chat.to_str().unwrap();
    std::fs::create_dir(d.join("team")).unwrap();
    ok(&["ingest", chat, "-o", "mine.smg", "-q"], d);
    ok(&["ingest", chat, "-o", "team/decisions.smg", "-q"], d);

    let said = ok(&["link", "add", "mine.smg", "team/decisions.smg"], d);
    assert!(
        said.contains("linked `decisions` → team/decisions.smg"),
        "{said}"
    );
    // Cycles are allowed: the team's file links back.
    ok(
        &[
            "link",
            "add",
            "team/decisions.smg",
            "mine.smg",
            "--name",
            "me",
            "--read-only",
        ],
        d,
    );
    let back = listed(d, "team/decisions.smg");
    assert_eq!(back[0]["path"], "../mine.smg");
    assert_eq!(back[0]["readOnly"], true);
    // mine.smg changed when the other link was added? No: only the team's file did.
    let links = listed(d, "mine.smg");
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["name"], "decisions");
    assert_eq!(
        links[0]["status"], "changed",
        "the team's file was rewritten"
    );
    assert_eq!(links[0]["code"], "SMG-W031");

    let again = smg(&["link", "add", "mine.smg", "team/decisions.smg"], d);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("exists already"),
        "{}",
        text(&again.stderr)
    );
    let own = smg(&["link", "add", "mine.smg", "mine.smg"], d);
    assert!(
        text(&own.stderr).contains("itself"),
        "{}",
        text(&own.stderr)
    );
    let not_memory = d.join("notes.txt");
    std::fs::write(&not_memory, "not a memory").unwrap();
    let bad = smg(&["link", "add", "mine.smg", "notes.txt"], d);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("SMG-E"), "{}", text(&bad.stderr));

    ok(&["validate", "mine.smg"], d);
    ok(&["validate", "team/decisions.smg"], d);

    std::fs::rename(d.join("team/decisions.smg"), d.join("elsewhere.smg")).unwrap();
    let text_list = ok(&["link", "list", "mine.smg"], d);
    assert!(text_list.contains("missing (SMG-W030)"), "{text_list}");

    // A write of the file keeps its links.
    ok(&["ingest", "--append", "mine.smg", chat, "-q"], d);
    assert_eq!(listed(d, "mine.smg").len(), 1);
    let removed = ok(&["link", "remove", "mine.smg", "decisions"], d);
    assert!(removed.contains("removed link `decisions`"), "{removed}");
    assert!(listed(d, "mine.smg").is_empty());
    let unknown = smg(&["link", "remove", "mine.smg", "decisions"], d);
    assert!(
        text(&unknown.stderr).contains("no link named"),
        "{}",
        text(&unknown.stderr)
    );
    ok(&["validate", "mine.smg"], d);
}
