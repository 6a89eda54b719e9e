//! Memory out to the formats it came from: ChatGPT, Claude and Letta files through a
//! `.smg` and back give the same records; other memories are written and said.

use std::path::{Path, PathBuf};

use crate::common::{fails, ok};
use serde_json::{json, Value};

fn imports(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/imports")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "af"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

/// A file's JSON, a double-encoded one decoded; numbers as JSON means them (`1.0`
/// and `1` are one number; smg keeps a source record's numbers in canonical form).
fn json_of(path: &Path) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let v = match v {
        Value::String(s) => serde_json::from_str(&s).unwrap(),
        v => v,
    };
    numbers(v)
}

fn numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => json!(f as i64),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(numbers).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers(v))).collect()),
        v => v,
    }
}

fn export(file: &str, to: &str, out: &str, d: &Path) -> Value {
    let report = ok(&["export", file, "--to", to, "-o", out, "--json"], d);
    serde_json::from_str(&report).unwrap()
}

#[test]
fn every_sample_comes_back_equal_in_both_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (folder, format) in [
        ("chatgpt", "chatgpt"),
        ("claude", "claude"),
        ("letta", "letta"),
    ] {
        for input in imports(folder) {
            let name = input.to_str().unwrap();
            for layout in ["json", "packed"] {
                ok(
                    &["ingest", "-q", "-o", "m.smg", "--layout", layout, name],
                    d,
                );
                ok(&["validate", "m.smg"], d);
                let report = export("m.smg", format, "back.json", d);
                assert_eq!(report["leftOut"], json!([]), "{name}");
                assert_eq!(
                    json_of(&d.join("back.json")),
                    json_of(&input),
                    "{name} ({layout})"
                );
                std::fs::remove_file(d.join("m.smg")).unwrap();
            }
        }
    }
}

#[test]
fn records_that_became_no_turn_come_back_in_their_places() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let export_file = json!([{
        "uuid": "c1", "name": "Ünïcode ☃", "created_at": "2025-10-01T18:00:00Z",
        "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": "we decided to use postgres", "created_at": "2025-10-01T18:00:00Z", "content": []},
            {"uuid": "m2", "sender": "assistant", "text": "", "content": [{"type": "token_budget"}]},
            {"sender": "human", "text": "a message without its id"},
            {"uuid": "m4", "sender": "", "text": "an empty sender"},
            {"uuid": "m5", "sender": "assistant", "text": "Postgres it is — 日本語 too.", "created_at": "2025-10-01T18:01:00Z", "content": []}
        ]
    }, {"uuid": "c2", "name": "empty", "chat_messages": []}]);
    std::fs::write(d.join("c.json"), export_file.to_string()).unwrap();
    let export_file = json_of(&d.join("c.json"));
    let summary: Value =
        serde_json::from_str(&ok(&["ingest", "-o", "m.smg", "c.json", "--json"], d)).unwrap();
    assert_eq!(summary["turnsAdded"], 2);
    assert_eq!(summary["skipped"].as_array().unwrap().len(), 2);
    ok(&["validate", "m.smg"], d);
    export("m.smg", "claude", "back.json", d);
    assert_eq!(json_of(&d.join("back.json")), export_file);
}

/// The messages' text of an export, in order.
fn texts(format: &str, v: &Value) -> Vec<String> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    match format {
        "chatgpt" => {
            let conv = &v[0];
            let mut out = Vec::new();
            let mut at = conv["current_node"].as_str();
            while let Some(id) = at {
                let node = &conv["mapping"][id];
                if !node["message"].is_null() {
                    out.push(s(&node["message"]["content"]["parts"][0]));
                }
                at = node["parent"].as_str();
            }
            out.reverse();
            out
        }
        "claude" => v[0]["chat_messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| s(&m["text"]))
            .collect(),
        _ => v["agents"][0]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| s(&m["content"][0]["text"]))
            .collect(),
    }
}

#[test]
fn a_conversation_from_elsewhere_is_written_from_its_turns_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let locomo = crate::common::locomo_files()[0].clone();
    ok(
        &["ingest", "-q", "-o", "m.smg", locomo.to_str().unwrap()],
        d,
    );
    let first = ok(&["archive", "show", "m.smg", "1"], d);
    let mut seen: Option<Vec<String>> = None;
    for format in ["chatgpt", "claude", "letta"] {
        let report = export("m.smg", format, "out.json", d);
        let left = report["leftOut"].to_string();
        assert!(
            left.contains("locomo") || left.contains("conversations"),
            "{format}: {left}"
        );
        let said = texts(format, &json_of(&d.join("out.json")));
        assert_eq!(
            report["messages"].as_u64(),
            Some(said.len() as u64),
            "{format}"
        );
        assert_eq!(said[0], first.trim_end_matches('\n'), "{format}");
        // The three formats carry the same turns, in order.
        assert_eq!(seen.get_or_insert_with(|| said.clone()), &said, "{format}");
        // Read back, the export gives the same file again: nothing changed on the way.
        ok(
            &[
                "ingest",
                "-q",
                "-o",
                "again.smg",
                "--from",
                format,
                "out.json",
            ],
            d,
        );
        ok(&["validate", "again.smg"], d);
        export("again.smg", format, "out2.json", d);
        assert_eq!(
            json_of(&d.join("out2.json")),
            json_of(&d.join("out.json")),
            "{format}"
        );
        std::fs::remove_file(d.join("again.smg")).unwrap();
    }
}

#[test]
fn an_appended_conversation_of_another_format_is_said_not_mixed_in() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gpt = imports("chatgpt")[0].clone();
    let claude = imports("claude")[0].clone();
    ok(&["ingest", "-q", "-o", "m.smg", gpt.to_str().unwrap()], d);
    ok(
        &[
            "ingest",
            "-q",
            "--append",
            "m.smg",
            claude.to_str().unwrap(),
        ],
        d,
    );
    let report = export("m.smg", "chatgpt", "out.json", d);
    let back = json_of(&d.join("out.json"));
    let original = json_of(&gpt);
    let n = original.as_array().unwrap().len();
    let back = numbers(back);
    assert_eq!(
        back.as_array().unwrap()[..n],
        original.as_array().unwrap()[..]
    );
    let claude_export = json_of(&claude);
    let claude_ids: Vec<&str> = claude_export
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["uuid"].as_str().unwrap())
        .collect();
    let left = report["leftOut"].to_string();
    for id in &claude_ids {
        assert!(left.contains(id), "{id}: {left}");
    }
    assert_eq!(back.as_array().unwrap().len(), n + claude_ids.len());
}

/// Every key the Letta-written samples have at `pointer` (one object, or each item of
/// an array), with its JSON type.
fn shape(files: &[Value], pick: &dyn Fn(&Value) -> Vec<Value>) -> Vec<(String, &'static str)> {
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let mut out: Vec<(String, &'static str)> = files
        .iter()
        .flat_map(pick)
        .flat_map(|o| {
            o.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), kind(v)))
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_memory_from_elsewhere_becomes_an_agent_file_shaped_as_letta_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let locomo = crate::common::locomo_files()[0].clone();
    ok(
        &["ingest", "-q", "-o", "m.smg", locomo.to_str().unwrap()],
        d,
    );
    let report = export("m.smg", "letta", "out.af", d);
    assert!(report["entities"].as_u64().unwrap() >= 1, "a summary block");
    let ours = json_of(&d.join("out.af"));
    let samples: Vec<Value> = imports("letta").iter().map(|p| json_of(p)).collect();
    let top = |f: &Value| vec![f.clone()];
    let agents = |f: &Value| f["agents"].as_array().unwrap().clone();
    let messages = |f: &Value| {
        f["agents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|a| a["messages"].as_array().unwrap().clone())
            .collect()
    };
    let blocks = |f: &Value| f["blocks"].as_array().unwrap().clone();
    for (what, pick) in [
        ("file", &top as &dyn Fn(&Value) -> Vec<Value>),
        ("agent", &agents),
        ("message", &messages),
        ("block", &blocks),
    ] {
        let theirs = shape(&samples, pick);
        let mine = shape(std::slice::from_ref(&ours), pick);
        // Every field Letta requires is there with a type Letta wrote.
        for key in match what {
            "file" => vec![
                "agents",
                "blocks",
                "tools",
                "groups",
                "files",
                "sources",
                "mcp_servers",
            ],
            "agent" => vec![
                "id",
                "name",
                "block_ids",
                "messages",
                "in_context_message_ids",
                "agent_type",
            ],
            "message" => vec!["id", "role", "content", "created_at"],
            _ => vec!["id", "label", "value", "limit"],
        } {
            let t: Vec<_> = theirs
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, t)| *t)
                .collect();
            let m: Vec<_> = mine
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, t)| *t)
                .collect();
            assert!(!m.is_empty(), "{what}.{key} missing");
            assert!(
                m.iter().all(|t2| t.contains(t2)),
                "{what}.{key}: {m:?} vs {t:?}"
            );
        }
        // No key of a type Letta never writes there.
        for (k, t) in &mine {
            let known: Vec<_> = theirs.iter().filter(|(k2, _)| k2 == k).collect();
            let typed = known.iter().any(|(_, t2)| *t2 != "null");
            assert!(
                !typed || known.iter().any(|(_, t2)| t2 == t) || *t == "null",
                "{what}.{k}: {t}"
            );
        }
    }
    let roles = [
        "assistant",
        "user",
        "tool",
        "function",
        "system",
        "approval",
    ];
    for m in messages(&ours) {
        assert!(roles.contains(&m["role"].as_str().unwrap()));
        let t = m["created_at"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(t).is_ok(), "{t}");
        assert_eq!(m["content"][0]["type"], "text");
    }
    let ids: Vec<&Value> = ours["agents"][0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        ours["agents"][0]["in_context_message_ids"]
            .as_array()
            .unwrap()
            .len(),
        ids.len()
    );
}

#[test]
fn a_file_that_is_no_agent_file_is_named_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, body) in [
        ("empty.af", ""),
        ("shape.af", "{\"agents\": 3}"),
        ("string.af", "\"not json inside\""),
        ("cut.af", "{\"agents\": [{\"id\": \"agent-0\""),
    ] {
        std::fs::write(d.join(name), body).unwrap();
        let out = fails(
            &["ingest", "-o", "m.smg", "--from", "letta", name],
            d,
            1,
            "SMG-E21",
        );
        assert!(crate::common::text(&out.stderr).contains(name));
        assert!(!d.join("m.smg").exists());
    }
}

#[test]
fn rdf_quads_are_well_formed_and_the_same_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gpt = imports("chatgpt")[0].clone();
    ok(&["ingest", "-q", "-o", "m.smg", gpt.to_str().unwrap()], d);
    let first = ok(&["export", "m.smg", "--to", "jsonld-nquads"], d);
    assert_eq!(first, ok(&["export", "m.smg", "--to", "jsonld-nquads"], d));
    let mut n = 0;
    for l in first.lines() {
        assert!(is_quad(l), "{l}");
        n += 1;
    }
    assert!(n > 100);
    assert!(first.contains("<https://w3id.org/smg/v1#label>"));
    assert!(first.contains("<https://w3id.org/smg/v1#SemanticMemoryGraph>"));
}

/// Whether `line` is one N-Quads statement: three or four terms and a final dot.
fn is_quad(line: &str) -> bool {
    let mut rest = line;
    let mut terms = 0;
    loop {
        rest = rest.trim_start();
        if rest == "." {
            return (3..=4).contains(&terms);
        }
        let len = match rest.as_bytes().first() {
            Some(b'<') => rest.find('>').map(|i| i + 1),
            Some(b'_') if rest.starts_with("_:") => Some(rest.find(' ').unwrap_or(rest.len())),
            Some(b'"') => literal_len(rest),
            _ => None,
        };
        let Some(len) = len else { return false };
        rest = &rest[len..];
        terms += 1;
    }
}

/// The length of the literal `s` starts with: a quoted string with escapes, then a
/// datatype IRI or a language tag.
fn literal_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => break,
            _ => i += 1,
        }
    }
    i += 1;
    let tail = s.get(i..)?;
    if let Some(t) = tail.strip_prefix("^^<") {
        return Some(i + 3 + t.find('>')? + 1);
    }
    if let Some(t) = tail.strip_prefix('@') {
        return Some(i + 1 + t.find(' ').unwrap_or(t.len()));
    }
    Some(i)
}
