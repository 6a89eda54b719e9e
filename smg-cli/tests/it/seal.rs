//! A sealed tier leaves no trace (spec §10.2–10.3): a public and a restricted
//! conversation in one file, the restricted tier sealed; no six words in a row that
//! only the restricted talk says are left anywhere a reader without the key can reach
//! (every byte of the file decoded; every search, context, query, export, view and
//! graph-database export answer), while public questions are still answered, the
//! passphrase finds it all again in memory, and unsealing gives back the file exactly.

use crate::common::sealed::*;
use crate::common::{fails, merged, ok};
use serde_json::Value;

#[test]
fn a_sealed_tier_leaves_no_trace_and_opens_again_with_its_key() {
    let Sealing {
        files,
        public,
        restricted,
        secrets,
        dir: d,
    } = sealing();
    assert!(secrets.len() > 1000, "{} secret runs", secrets.len());
    let dir = d.path();
    build(dir, "m.smg", &["--layout", "packed", "--index"], &files);
    ok(&["validate", "m.smg"], dir);
    let before = canonical("m.smg", dir, &[]);
    let (restricted_before, _) = answered("m.smg", &restricted.questions, &[], dir);
    let (public_before, _) = answered("m.smg", &public.questions, &[], dir);
    assert!(restricted_before >= 0.5 && public_before >= 0.5);

    seal(dir, "m.smg", &[]);
    ok(&["validate", "m.smg"], dir);
    for text in readable(&dir.join("m.smg")) {
        let found = leaked(&text, &secrets);
        assert!(
            found.is_empty(),
            "sealed file shows {:?}",
            &found[..found.len().min(3)]
        );
    }
    let (restricted_after, said) = answered("m.smg", &restricted.questions, &[], dir);
    assert_eq!(restricted_after, 0.0);
    assert!(
        leaked(&said, &secrets).is_empty(),
        "context quotes the sealed talk"
    );
    let (public_after, _) = answered("m.smg", &public.questions, &[], dir);
    assert!(
        public_after >= public_before - 0.1,
        "public questions answered {public_before} before sealing, {public_after} after"
    );
    let mut answers = String::new();
    for (q, _) in &restricted.questions {
        answers.push_str(&ok(&["search", "m.smg", q], dir));
    }
    answers.push_str(&ok(
        &["query", "m.smg", "FIND * LIMIT 100000", "--json"],
        dir,
    ));
    for to in [
        "markdown",
        "chatgpt",
        "claude",
        "letta",
        "mcp-memory",
        "jsonld-nquads",
    ] {
        answers.push_str(&ok(&["export", "m.smg", "--to", to], dir));
    }
    // What a push to the graph database would send, as Cypher.
    answers.push_str(&ok(&["neo4j", "export", "m.smg"], dir));
    ok(&["view", "m.smg", "-o", "view.html"], dir);
    answers.push_str(&std::fs::read_to_string(dir.join("view.html")).unwrap());
    let found = leaked(&answers, &secrets);
    assert!(
        found.is_empty(),
        "answers quote {:?}",
        &found[..found.len().min(3)]
    );

    // An authorised reader finds it all again, in memory: the file stays sealed.
    let key = ["--seal-passphrase-file", "seal.txt"];
    let (restricted_key, _) = answered("m.smg", &restricted.questions, &key, dir);
    assert!(
        restricted_key >= restricted_before - 0.05,
        "with the key {restricted_key}, before sealing {restricted_before}"
    );
    eprintln!(
        "{} secret runs; restricted questions answered {restricted_before:.2} before sealing, \
         {restricted_after:.2} after, {restricted_key:.2} with the key; public {public_before:.2} \
         before, {public_after:.2} after",
        secrets.len()
    );
    fails(
        &["search", "m.smg", "x", "--seal-passphrase-file", "m.smg"],
        dir,
        1,
        "SMG-E141",
    );
    let sealed = std::fs::read(dir.join("m.smg")).unwrap();

    // New restricted talk is refused while its tier is sealed; the file is untouched.
    let more = files[1].to_str().unwrap();
    fails(&restricted_append("m.smg", more), dir, 1, "SMG-E146");
    assert_eq!(std::fs::read(dir.join("m.smg")).unwrap(), sealed);

    unseal(dir, "m.smg", &[]);
    assert!(
        canonical("m.smg", dir, &[]) == before,
        "unsealing is not exact"
    );
}

#[test]
fn an_encrypted_json_file_seals_alike_and_takes_public_talk_after_sealing() {
    let Sealing {
        files,
        secrets,
        dir: d,
        ..
    } = sealing();
    let dir = d.path();
    std::fs::write(dir.join("file.txt"), FILE_PASS).unwrap();
    build(dir, "plain.smg", &[], &files);
    ok(
        &[
            "encrypt",
            "plain.smg",
            "-o",
            "m.smg",
            "--passphrase-file",
            "file.txt",
        ],
        dir,
    );
    let file_key = ["--passphrase-file", "file.txt"];
    let before = canonical("m.smg", dir, &file_key);
    seal(dir, "m.smg", &file_key);
    for text in readable(&dir.join("m.smg")) {
        assert!(
            leaked(&text, &secrets).is_empty(),
            "the encrypted, sealed file leaks"
        );
    }
    unseal(dir, "m.smg", &file_key);
    assert!(
        canonical("m.smg", dir, &file_key) == before,
        "unsealing is not exact"
    );

    // Public talk appended after sealing is numbered after the sealed turns, and the
    // tier still unseals into a valid file.
    seal(dir, "plain.smg", &[]);
    let jsonl = r#"{"conversation_id":"later","message_id":"1","role":"user","content":"We picked the blue paint for the hallway.","timestamp":"2024-01-02T10:00:00Z"}"#;
    std::fs::write(dir.join("later.jsonl"), format!("{jsonl}\n")).unwrap();
    ok(
        &["ingest", "-q", "--append", "plain.smg", "later.jsonl"],
        dir,
    );
    unseal(dir, "plain.smg", &[]);
    ok(&["validate", "plain.smg"], dir);
    let found = ok(
        &["search", "plain.smg", "blue paint hallway", "-k", "1"],
        dir,
    );
    assert!(found.contains("blue paint"), "{found}");
}

#[test]
fn branches_of_a_sealed_file_merge_and_keep_it_sealed() {
    let Sealing {
        files,
        secrets,
        dir: d,
        ..
    } = sealing();
    let dir = d.path();
    build(dir, "base.smg", &[], &files);
    seal(dir, "base.smg", &[]);
    for (side, text) in [
        ("ours", "paint the hallway blue"),
        ("theirs", "buy a red sofa"),
    ] {
        std::fs::copy(dir.join("base.smg"), dir.join(format!("{side}.smg"))).unwrap();
        let line = format!(
            r#"{{"conversation_id":"{side}","message_id":"1","role":"user","content":"We decided to {text}.","timestamp":"2024-01-02T10:00:00Z"}}"#
        );
        std::fs::write(dir.join(format!("{side}.jsonl")), format!("{line}\n")).unwrap();
        ok(
            &[
                "ingest",
                "-q",
                "--append",
                &format!("{side}.smg"),
                &format!("{side}.jsonl"),
            ],
            dir,
        );
    }
    let report = merged("m.smg", dir);
    assert_eq!(report["conflicts"], serde_json::json!([]), "{report}");
    ok(&["validate", "m.smg"], dir);
    for text in readable(&dir.join("m.smg")) {
        assert!(leaked(&text, &secrets).is_empty(), "the merged file leaks");
    }
    unseal(dir, "m.smg", &[]);
    ok(&["validate", "m.smg"], dir);
    for (q, said) in [
        ("hallway blue", "the hallway blue"),
        ("red sofa", "a red sofa"),
        ("Gina dance studio", "dance studio"),
    ] {
        let found = ok(&["search", "m.smg", q, "-k", "1"], dir);
        assert!(found.contains(said), "{q}: {found}");
    }
}

#[test]
fn a_record_can_be_restricted_within_a_public_conversation() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("seal.txt"), PASS).unwrap();
    let line = |id: u32, scope: &str, text: &str| {
        format!(
            r#"{{"conversation_id":"c1","message_id":"{id}","role":"user","content":"{text}","timestamp":"2025-03-0{id}T10:00:00Z"{scope}}}"#
        )
    };
    let lines = [
        line(1, "", "We decided to move the standup to ten o'clock."),
        line(
            2,
            r#","scope":"restricted""#,
            "Confidential: we decided to lay off the Lisbon office team.",
        ),
        line(3, "", "We decided to order new chairs for everyone."),
        line(4, r#","scope":"secret""#, "A scope smg does not know."),
    ];
    std::fs::write(dir.join("t.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = ok(&["ingest", "-q", "-o", "m.smg", "t.jsonl", "--json"], dir);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["skipped"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    fails(
        &["ingest", "-q", "--strict", "-o", "s.smg", "t.jsonl"],
        dir,
        1,
        "scope",
    );
    seal(dir, "m.smg", &[]);
    ok(&["validate", "m.smg"], dir);
    let text: String = readable(&dir.join("m.smg")).join("\n");
    assert!(
        !text.contains("Lisbon"),
        "the restricted record is readable"
    );
    assert!(text.contains("standup") && text.contains("new chairs"));
    let found = ok(
        &[
            "search",
            "m.smg",
            "Lisbon office",
            "--seal-passphrase-file",
            "seal.txt",
        ],
        dir,
    );
    assert!(found.contains("Lisbon"), "{found}");
}

#[test]
fn a_conversation_already_in_takes_a_scope_with_its_code() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("seal.txt"), PASS).unwrap();
    let code = "```python\\ndef payroll_cut(team):\\n    keep = team[:3]\\n    notify(team[3:])\\n    return keep\\n```";
    let line = |c: &str, id: u32, text: &str| {
        format!(
            r#"{{"conversation_id":"{c}","message_id":"{id}","role":"user","content":"{text}","timestamp":"2025-03-0{id}T10:00:00Z"}}"#
        )
    };
    let lines = [
        line("open", 1, "We decided to host the offsite in Porto."),
        line("board", 2, &format!("Here is the script:\\n{code}")),
        line(
            "board",
            3,
            "We decided to run payroll_cut on the Lisbon team.",
        ),
        line("open", 4, "Lunch is at noon on the second day."),
    ];
    std::fs::write(dir.join("t.jsonl"), lines.join("\n") + "\n").unwrap();
    ok(&["ingest", "-q", "-o", "m.smg", "t.jsonl"], dir);
    let board = [
        "scope",
        "set",
        "m.smg",
        "--conversation",
        "board",
        "restricted",
    ];
    let said = ok(&[&board[..], &["--json"]].concat(), dir);
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(said["turns"], 2, "{said}");
    assert_eq!(
        said["artifactsRemoved"].as_array().map(Vec::len),
        Some(1),
        "{said}"
    );
    ok(&["validate", "m.smg"], dir);
    let rescoped = std::fs::read(dir.join("m.smg")).unwrap();
    ok(&board, dir);
    assert_eq!(
        std::fs::read(dir.join("m.smg")).unwrap(),
        rescoped,
        "a scope set twice changes nothing"
    );
    let listed = ok(&["scope", "list", "m.smg"], dir);
    assert!(
        listed.contains("restricted") && listed.contains("board"),
        "{listed}"
    );
    fails(
        &[
            "scope",
            "set",
            "m.smg",
            "--conversation",
            "nope",
            "restricted",
        ],
        dir,
        1,
        "SMG-E020",
    );
    seal(dir, "m.smg", &[]);
    ok(&["validate", "m.smg"], dir);
    let text: String = readable(&dir.join("m.smg")).join("\n");
    for secret in ["payroll_cut", "Lisbon", "notify(team"] {
        assert!(!text.contains(secret), "{secret} is readable after sealing");
    }
    assert!(text.contains("Porto"));
    fails(
        &[
            "scope",
            "set",
            "m.smg",
            "--conversation",
            "open",
            "restricted",
        ],
        dir,
        1,
        "SMG-E146",
    );

    // Code both conversations pasted cannot be kept apart.
    let shared = [
        line("a", 1, &format!("Mine:\\n{code}")),
        line("b", 2, &format!("Same here:\\n{code}")),
    ];
    std::fs::write(dir.join("s.jsonl"), shared.join("\n") + "\n").unwrap();
    ok(&["ingest", "-q", "-o", "s.smg", "s.jsonl"], dir);
    let before = std::fs::read(dir.join("s.smg")).unwrap();
    fails(
        &["scope", "set", "s.smg", "--conversation", "b", "restricted"],
        dir,
        1,
        "other talk",
    );
    assert_eq!(std::fs::read(dir.join("s.smg")).unwrap(), before);
}
