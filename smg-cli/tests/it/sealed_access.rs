//! Every way out of a sealed file (spec §10.3): without the key, the MCP server
//! quotes nothing sealed; with it, export, view, a graph-database export and the MCP
//! server see the tier in memory, and every writer that takes the key (ingest, the
//! MCP server's writing tools, `smg scope set`) seals it again before the file is
//! written, so the file never holds it open.

use std::path::Path;

use crate::common::sealed::*;
use crate::common::{mcp, ok};
use serde_json::{json, Value};

const KEY: [&str; 2] = ["--seal-passphrase-file", "seal.txt"];

/// What the MCP server on `file` (`more` arguments) answers to the reading tools for
/// `questions`: every reply's text, and the share of questions whose context quotes
/// a turn that answers them.
fn mcp_answers(
    dir: &Path,
    file: &str,
    more: &[&str],
    questions: &[(String, Vec<String>)],
) -> (String, f64) {
    let mut calls = vec![
        ("tools/call", json!({"name": "read_graph", "arguments": {}})),
        ("resources/read", json!({"uri": "smg://working-memory"})),
        (
            "tools/call",
            json!({"name": "query", "arguments": {"query": "FIND * LIMIT 100000"}}),
        ),
    ];
    for (q, _) in questions {
        for tool in ["search_nodes", "search_memory", "intelligent_search"] {
            calls.push((
                "tools/call",
                json!({"name": tool, "arguments": {"query": q}}),
            ));
        }
        let args = json!({"query": q, "budget": 1000});
        calls.push((
            "tools/call",
            json!({"name": "get_context", "arguments": args}),
        ));
    }
    let args = [&[file, "--read-only"][..], more].concat();
    let replies = mcp(&args, dir, &calls);
    let hits = replies[3..]
        .chunks(4)
        .zip(questions)
        .filter(|(r, (_, evidence))| {
            let text = text_of(&r[3]);
            evidence.iter().any(|e| text.contains(e.as_str()))
        })
        .count();
    // Less the questions, which some tools say back.
    let mut all: String = replies.iter().map(text_of).collect();
    for (q, _) in questions {
        all = all.replace(q.as_str(), " ");
    }
    (all, hits as f64 / questions.len() as f64)
}

/// The text a tool's reply (or a resource) carries.
fn text_of(result: &Value) -> String {
    let tool = result["content"].as_array().into_iter().flatten();
    let resource = result["contents"].as_array().into_iter().flatten();
    tool.chain(resource)
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_way_out_carries_the_sealed_tier_only_with_its_key() {
    let Sealing {
        files,
        public,
        restricted,
        secrets,
        dir: d,
    } = sealing();
    let dir = d.path();
    build(dir, "m.smg", &["--layout", "packed", "--index"], &files);
    seal(dir, "m.smg", &[]);

    let (said, share) = mcp_answers(dir, "m.smg", &[], &restricted.questions);
    let found = leaked(&said, &secrets);
    assert!(
        found.is_empty(),
        "the MCP server quotes {:?}",
        &found[..found.len().min(3)]
    );
    assert_eq!(share, 0.0);
    let (_, public_answered) = mcp_answers(dir, "m.smg", &[], &public.questions);
    assert!(
        public_answered >= 0.5,
        "public questions answered {public_answered}"
    );

    // With the key, each way out carries the tier.
    let (said, answered_key) = mcp_answers(dir, "m.smg", &KEY, &restricted.questions);
    assert!(
        answered_key >= 0.5,
        "with the key the server answers {answered_key}"
    );
    assert!(!leaked(&said, &secrets).is_empty());
    for args in [
        &["export", "m.smg", "--to", "chatgpt"][..],
        &["neo4j", "export", "m.smg"],
        &["view", "m.smg", "-o", "-"],
    ] {
        let without = ok(args, dir);
        assert!(leaked(&without, &secrets).is_empty(), "{args:?}");
        let with = ok(&[args, &KEY[..]].concat(), dir);
        assert!(!leaked(&with, &secrets).is_empty(), "{args:?} with the key");
    }
    // Markdown and the MCP memory format leave the restricted tier out even when it
    // is open, and say so.
    for to in ["markdown", "mcp-memory"] {
        let args = ["export", "m.smg", "--to", to, "--json", "-o", "out"];
        let restricted_left = |more: &[&str]| {
            let report: Value =
                serde_json::from_str(&ok(&[&args[..], more].concat(), dir)).unwrap();
            let left = report["leftOut"].as_array().unwrap().iter();
            left.filter(|l| l["why"] == "restricted tier").count()
        };
        assert_eq!(restricted_left(&[]), 0);
        assert!(restricted_left(&KEY) > 100, "{to}");
    }
    eprintln!(
        "MCP server: restricted questions answered {share} without the key, \
         {answered_key} with it; public {public_answered}"
    );

    // Writers with the key seal the tier again before the file is written.
    let entity = json!({"name": "Quarterly plan", "entityType": "document",
                        "observations": ["shared with the whole team"]});
    let create = json!({"name": "create_entities", "arguments": {"entities": [entity]}});
    let replies = mcp(&["m.smg", KEY[0], KEY[1]], dir, &[("tools/call", create)]);
    assert_ne!(replies[0]["isError"], json!(true), "{}", replies[0]);
    let more = talk(&files[2]);
    let more_secrets = crate::common::sealed::secrets(&public, &more);
    let third = files[2].to_str().unwrap();
    ok(
        &[&restricted_append("m.smg", third)[..], &KEY].concat(),
        dir,
    );
    ok(&["validate", "m.smg"], dir);
    for text in readable(&dir.join("m.smg")) {
        let found: Vec<_> = leaked(&text, &secrets)
            .into_iter()
            .chain(leaked(&text, &more_secrets))
            .collect();
        assert!(
            found.is_empty(),
            "written with the key, the file shows {:?}",
            &found[..found.len().min(3)]
        );
    }
    let graph = ok(
        &[
            "query",
            "m.smg",
            "FIND entity WHERE label = \"Quarterly plan\"",
            "--json",
        ],
        dir,
    );
    assert!(graph.contains("Quarterly plan"), "{graph}");
    let (restricted_key, _) = answered("m.smg", &more.questions, &KEY, dir);
    let (restricted_none, _) = answered("m.smg", &more.questions, &[], dir);
    assert!(
        restricted_key >= 0.5 && restricted_none == 0.0,
        "{restricted_key} {restricted_none}"
    );
    unseal(dir, "m.smg", &[]);
    ok(&["validate", "m.smg"], dir);
    let (restricted_open, _) = answered("m.smg", &more.questions, &[], dir);
    assert_eq!(restricted_open, restricted_key);
}

#[test]
fn a_conversation_is_restricted_by_id_in_any_format_and_rescoped_with_the_key() {
    let Sealing { files, dir: d, .. } = sealing();
    let dir = d.path();
    let (a, b) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let id = files[1].file_stem().unwrap().to_str().unwrap();
    let out = crate::common::fails(
        &[
            "ingest",
            "-q",
            "-o",
            "m.smg",
            a,
            b,
            "--restricted-conversation",
            "no-such",
        ],
        dir,
        1,
        "SMG-E020",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(id));
    assert!(!dir.join("m.smg").exists());
    ok(
        &[
            "ingest",
            "-q",
            "-o",
            "m.smg",
            a,
            b,
            "--restricted-conversation",
            id,
        ],
        dir,
    );
    let scopes = |dir: &Path| -> Vec<(String, String)> {
        let list: Value =
            serde_json::from_str(&ok(&["scope", "list", "m.smg", "--json"], dir)).unwrap();
        let rows = list["conversations"].as_array().unwrap().iter();
        let mut rows: Vec<(String, String)> = rows
            .map(|c| {
                let text = |v: &Value| v.as_str().unwrap().to_string();
                (text(&c["conversation"]), text(&c["scope"]))
            })
            .collect();
        rows.sort();
        rows
    };
    let other = files[0].file_stem().unwrap().to_str().unwrap();
    assert_eq!(
        scopes(dir),
        [
            (other.to_string(), "personal".to_string()),
            (id.to_string(), "restricted".to_string())
        ]
    );

    // Moving a public conversation into the sealed tier needs the key, and seals it.
    seal(dir, "m.smg", &[]);
    let sealed = std::fs::read(dir.join("m.smg")).unwrap();
    let set = [
        "scope",
        "set",
        "m.smg",
        "--conversation",
        other,
        "restricted",
    ];
    crate::common::fails(&set, dir, 1, "SMG-E146");
    assert_eq!(std::fs::read(dir.join("m.smg")).unwrap(), sealed);
    ok(&[&set[..], &KEY].concat(), dir);
    ok(&["validate", "m.smg"], dir);
    assert!(scopes(dir).is_empty(), "every conversation is sealed now");
    let public = talk(&files[0]);
    let (found, _) = answered("m.smg", &public.questions, &[], dir);
    let (found_key, _) = answered("m.smg", &public.questions, &KEY, dir);
    assert!(found == 0.0 && found_key >= 0.5, "{found} {found_key}");
}
