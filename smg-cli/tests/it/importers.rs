//! What importers make of records no reader could place: an empty or unknown role or
//! sender is skipped and named (or fails the run under `--strict`), and the file
//! written validates.

use crate::common::{smg, text};

/// Each case: an input file in one export format whose second message has a role or
/// sender no v1 turn can take, and where the skip report must point.
const CASES: &[(&str, &str, &str)] = &[
    (
        "t.jsonl",
        concat!(
            r#"{"conversation_id":"c1","message_id":"m1","role":"user","content":"we decided to use postgres","timestamp":"2025-02-28T10:10:00Z"}"#,
            "\n",
            r#"{"conversation_id":"c1","message_id":"m2","role":"","content":"ok","timestamp":"2025-02-28T10:11:00Z"}"#,
            "\n"
        ),
        "skipped t.jsonl, line 2: the role is empty",
    ),
    (
        "claude.json",
        r#"[{"uuid":"c1","name":"db","created_at":"2025-02-28T10:00:00Z","chat_messages":[
            {"uuid":"m1","sender":"human","text":"we decided to use postgres","created_at":"2025-02-28T10:10:00Z"},
            {"uuid":"m2","sender":"","text":"ok","created_at":"2025-02-28T10:11:00Z"}]}]"#,
        "message 2: the role is empty",
    ),
    (
        "conversations.json",
        r#"[{"id":"c1","title":"db","create_time":1740736200,"current_node":"m2","mapping":{
            "m1":{"id":"m1","parent":null,"children":["m2"],"message":{"id":"m1","author":{"role":"user"},"create_time":1740736200,"content":{"content_type":"text","parts":["we decided to use postgres"]}}},
            "m2":{"id":"m2","parent":"m1","children":[],"message":{"id":"m2","author":{"role":"critic"},"create_time":1740736260,"content":{"content_type":"text","parts":["ok"]}}}}}]"#,
        "role \"critic\" is none of user, assistant, system, tool",
    ),
];

/// `smg ingest NAME -o m.smg ARGS` in a new folder holding `body` as NAME.
fn ingest(name: &str, body: &str, args: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), body).unwrap();
    let command = [&["ingest", name, "-o", "m.smg"], args].concat();
    let out = smg(&command, dir.path());
    (dir, out)
}

#[test]
fn a_record_without_a_v1_role_is_skipped_and_the_file_validates() {
    for (name, body, report) in CASES {
        let (dir, out) = ingest(name, body, &[]);
        let d = dir.path();
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(stderr.contains(report), "{name}: {stderr}");
        let summary = text(&out.stdout) + &stderr;
        assert!(
            summary.contains("1 turns added"),
            "{name}: the good one is kept: {summary}"
        );
        let valid = smg(&["validate", "m.smg"], d);
        assert!(valid.status.success(), "{name}: {}", text(&valid.stdout));
    }
}

#[test]
fn strict_ingest_fails_on_a_record_without_a_v1_role_and_writes_nothing() {
    for (name, body, _) in CASES {
        let (dir, out) = ingest(name, body, &["--strict"]);
        let d = dir.path();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("error[SMG-E210]: {name}")),
            "{name}: {stderr}"
        );
        assert!(
            !d.join("m.smg").exists(),
            "{name}: a failed ingest writes nothing"
        );
    }
}

/// Roles other exports use for the same speakers are mapped, not skipped.
#[test]
fn other_exports_names_for_the_v1_roles_are_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines: String = ["Human", "model", "developer", "function", "bot"]
        .iter()
        .enumerate()
        .map(|(i, role)| {
            format!(
                "{{\"conversation_id\":\"c\",\"message_id\":\"m{i}\",\"role\":\"{role}\",\"content\":\"message {i}\"}}\n"
            )
        })
        .collect();
    std::fs::write(d.join("roles.jsonl"), lines).unwrap();
    let out = smg(&["ingest", "roles.jsonl", "-o", "m.smg", "--strict"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&smg(&["cat", "m.smg"], d).stdout).unwrap();
    let roles: Vec<&str> = doc["workingMemory"]["recentContext"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "system", "tool", "assistant"]);
}
