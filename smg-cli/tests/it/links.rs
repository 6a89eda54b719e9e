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

/// A team's memory of talk the personal one never had.
const TEAM: &str = r#"{"conversation_id": "t1", "message_id": "1", "role": "user", "content": "The staging cluster runs Kubernetes 1.29 in the Frankfurt region.", "timestamp": "2025-03-01T09:00:00Z"}
{"conversation_id": "t1", "message_id": "2", "role": "assistant", "content": "Noted: staging is in Frankfurt, production stays in Dublin.", "timestamp": "2025-03-01T09:01:00Z"}
"#;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A folder with `mine.smg` (the sample chat) linking `team.smg` (TEAM) as `team`.
fn linked_pair() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chat = fixtures().join("ingest/sample-chat.jsonl");
    std::fs::write(d.join("team.jsonl"), TEAM).unwrap();
    ok(
        &["ingest", chat.to_str().unwrap(), "-o", "mine.smg", "-q"],
        d,
    );
    ok(&["ingest", "team.jsonl", "-o", "team.smg", "-q"], d);
    ok(
        &["link", "add", "mine.smg", "team.smg", "--name", "team"],
        d,
    );
    dir
}

#[test]
fn search_context_and_expand_follow_links_and_say_which_file_answered() {
    let dir = linked_pair();
    let d = dir.path();

    let found = json(&ok(
        &["search", "mine.smg", "Frankfurt staging", "--json"],
        d,
    ));
    let hit = &found["hits"][0];
    assert!(
        hit["content"].as_str().unwrap().contains("Frankfurt"),
        "{found}"
    );
    assert_eq!(hit["file"]["name"], "team");
    assert_eq!(hit["file"]["path"], "team.smg");
    let own = json(&ok(&["search", "mine.smg", "Postgres", "--json"], d));
    assert_eq!(own["hits"][0]["file"]["name"], Value::Null, "{own}");
    assert_eq!(own["hits"][0]["file"]["path"], "mine.smg");
    let alone = json(&ok(
        &["search", "mine.smg", "Frankfurt", "--json", "--no-links"],
        d,
    ));
    assert!(alone["hits"].as_array().unwrap().is_empty(), "{alone}");
    let lines = ok(&["search", "mine.smg", "Frankfurt staging"], d);
    assert!(lines.lines().next().unwrap().contains("[team]"), "{lines}");

    // One budget over both files, each group of turns under a date line naming it.
    let shown = ok(
        &[
            "context",
            "mine.smg",
            "Frankfurt Postgres",
            "--budget",
            "300",
        ],
        d,
    );
    assert!(shown.contains("] · team\n"), "{shown}");
    assert!(shown.contains("] · mine.smg\n"), "{shown}");
    let pack = json(&ok(
        &[
            "context",
            "mine.smg",
            "Frankfurt Postgres",
            "--budget",
            "300",
            "--json",
        ],
        d,
    ));
    assert!(pack["tokens"].as_u64().unwrap() <= 300);
    let segment = hit["segment"].as_str().unwrap();
    let out = smg(&["expand", "mine.smg", segment, "--link", "team"], d);
    assert!(
        text(&out.stdout).contains("Frankfurt"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("linked file `team`"));

    // Encrypted, the linked file takes its own passphrase; without it, it is left
    // out with a warning and the rest answers.
    std::fs::write(d.join("team.pass"), "team secret\n").unwrap();
    ok(
        &[
            "encrypt",
            "team.smg",
            "-o",
            "team.smg",
            "--passphrase-file",
            "team.pass",
        ],
        d,
    );
    let out = smg(&["search", "mine.smg", "Frankfurt staging", "--json"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let left_out = json(&text(&out.stdout));
    let warnings = left_out["warnings"].to_string();
    assert!(
        warnings.contains("SMG-W031") && warnings.contains("SMG-W032"),
        "{warnings}"
    );
    assert!(warnings.contains("SMG-E140"), "{warnings}");
    let given = ["search", "mine.smg", "Frankfurt", "--json"];
    let by_file = [&given[..], &["--link-passphrase-file", "team=team.pass"]].concat();
    let opened = json(&ok(&by_file, d));
    assert_eq!(opened["hits"][0]["file"]["name"], "team", "{opened}");
    let by_env = std::process::Command::new(env!("CARGO_BIN_EXE_smg"))
        .args(given)
        .env("SMG_LINK_PASSPHRASE_TEAM", "team secret")
        .current_dir(d)
        .output()
        .unwrap();
    let opened = json(&text(&by_env.stdout));
    assert_eq!(opened["hits"][0]["file"]["name"], "team", "{opened}");
}

#[test]
fn query_runs_over_every_linked_file_as_one() {
    let dir = linked_pair();
    let d = dir.path();
    let find = "FIND segments ORDER BY timestamp DESC";
    let all = json(&ok(&["query", "mine.smg", find, "--json"], d));
    let all = all.as_array().unwrap();
    // The team's talk is the latest: first in one ordering over both files.
    assert_eq!(all[0]["file"]["name"], "team", "{all:?}");
    let names: std::collections::HashSet<&Value> = all.iter().map(|n| &n["file"]["name"]).collect();
    assert_eq!(names.len(), 2, "both files answered");
    let stamps: Vec<&str> = all
        .iter()
        .map(|n| n["timestamp"].as_str().unwrap())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] >= w[1]), "{stamps:?}");
    let alone = json(&ok(&["query", "mine.smg", find, "--json", "--no-links"], d));
    let alone = alone.as_array().unwrap();
    assert_eq!(alone.len() + 1, all.len(), "the team's one segment");
    assert!(alone.iter().all(|n| n.get("file").is_none()));
    let limited = ok(&["query", "mine.smg", &format!("{find} LIMIT 1")], d);
    assert!(limited.trim_end().ends_with("[team]"), "{limited}");

    std::fs::remove_file(d.join("team.smg")).unwrap();
    let out = smg(&["query", "mine.smg", find, "--json"], d);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("SMG-W030"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn view_holds_every_linked_files_memory_marked_with_its_file() {
    let dir = linked_pair();
    let d = dir.path();
    let page = |args: &[&str]| {
        let stats = json(&ok(&[&["view", "mine.smg", "--json"], args].concat(), d));
        let html = std::fs::read_to_string(d.join("mine.html")).unwrap();
        (stats, html)
    };
    let (alone, own) = page(&["--no-links"]);
    assert_eq!(alone["linked_files"], 0, "{alone}");
    assert!(!own.contains("Frankfurt"));
    let (stats, html) = page(&[]);
    assert_eq!(stats["linked_files"], 1, "{stats}");
    let turns = |v: &Value| v["turns"].as_u64().unwrap();
    assert_eq!(turns(&stats), turns(&alone) + 2);
    assert!(html.contains("staging is in Frankfurt"));
    assert!(html.contains(r#"{"name":"team","path":"team.smg"}"#));

    // A linked file gone: a warning, and the page of the rest.
    std::fs::rename(d.join("team.smg"), d.join("moved.smg")).unwrap();
    let out = smg(&["view", "mine.smg", "--json"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("SMG-W030"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(json(&text(&out.stdout))["linked_files"], 0);
}
