//! Ingest on the sample exports in `../shared/data`: every file validates, every
//! original record comes back from the archive, output is deterministic, and
//! appending a grown export equals ingesting it whole.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use smg_engine::ingest::{ingest, ingest_into_bytes, IngestOptions, Silent};
use smg_import::{Format, Input};

use crate::common::read;
use smg_format::{
    archive::read_archive,
    codec::into_bytes,
    to_bytes,
    validate::{validate, Severity, ValidateOptions},
    Document, Encoding, Limits, WriteOptions,
};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

fn samples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["imports/chatgpt", "imports/claude", "locomo-dev"] {
        let dir = data().join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        out.extend(files);
    }
    assert!(out.len() >= 8, "{out:?}");
    out
}

fn input(name: &str, bytes: Vec<u8>) -> Input {
    Input::bytes(name, bytes)
}

fn run(doc: &mut Document, inputs: &[Input]) -> smg_engine::ingest::IngestReport {
    ingest(
        doc,
        read(inputs.to_vec()),
        &IngestOptions::default(),
        &Silent,
    )
    .unwrap()
}

fn bytes(doc: &Document) -> Vec<u8> {
    to_bytes(doc, &WriteOptions::new(Encoding::Json)).unwrap()
}

fn fresh() -> Document {
    Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ))
}

/// The records of a sample that hold a message, as the source wrote them.
fn source_records(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let list = v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]);
    for conv in &list {
        if let Some(mapping) = conv.get("mapping").and_then(Value::as_object) {
            out.extend(
                mapping
                    .values()
                    .filter_map(|n| n.get("message"))
                    .filter(|m| !m.is_null())
                    .cloned(),
            );
        } else if let Some(msgs) = conv.get("chat_messages").and_then(Value::as_array) {
            out.extend(msgs.iter().cloned());
        } else {
            let c = conv.get("conversation").unwrap_or(conv);
            for (k, turns) in c.as_object().unwrap() {
                if k.starts_with("session_") && turns.is_array() {
                    out.extend(turns.as_array().unwrap().iter().cloned());
                }
            }
        }
    }
    out
}

#[test]
fn every_sample_validates_and_gives_back_every_original_turn() {
    for path in samples() {
        let raw = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let mut doc = fresh();
        let report = run(&mut doc, &[input(&name, raw.clone())]);
        assert!(report.skipped.is_empty(), "{name}: {:?}", report.skipped);
        assert!(report.turns_added > 0, "{name}");
        let file = bytes(&doc);
        let checked = validate(&file, &ValidateOptions::default());
        let errors: Vec<_> = checked
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let archived = read_archive(&doc, &Limits::default()).unwrap();
        assert_eq!(archived.len(), report.turns_added, "{name}");
        // Records are kept as JSON data in canonical form (1700000001.0 is 1700000001).
        let canonical = |v: &Value| smg_format::codec::to_canonical_json_value(v);
        let records: Vec<Vec<u8>> = source_records(&serde_json::from_slice(&raw).unwrap())
            .iter()
            .map(canonical)
            .collect();
        for t in &archived {
            let record = smg_engine::ingest::source_record(&t.turn).unwrap();
            assert!(
                records.contains(&canonical(&record)),
                "{name}: turn {} has a record not in the input",
                t.turn.turn
            );
            // Claude's `text` is a plain rendering; its content blocks are the message.
            let first_block = record.pointer("/content/0/text").and_then(Value::as_str);
            let text = first_block
                .or_else(|| record.get("text").and_then(Value::as_str))
                .unwrap_or_default();
            assert!(
                t.turn.content.contains(text),
                "{name}: turn {} lost its text",
                t.turn.turn
            );
        }
        if path.to_string_lossy().contains("locomo") {
            assert_eq!(
                archived.len(),
                records.len(),
                "{name}: every LoCoMo turn is archived"
            );
            let nodes = doc.semantic_graph.as_ref().unwrap().nodes.as_ref().unwrap();
            assert!(
                nodes
                    .iter()
                    .any(|n| n.kind == "memory" && n.timestamp.is_some()),
                "{name}"
            );
            assert!(nodes.iter().any(|n| n.kind == "entity"), "{name}");
        }
    }
}

#[test]
fn the_same_input_gives_the_same_bytes_and_a_second_run_adds_nothing() {
    let path = data().join("locomo-dev/30.json");
    let inputs = [input("30.json", std::fs::read(&path).unwrap())];
    let (mut a, mut b) = (fresh(), fresh());
    run(&mut a, &inputs);
    run(&mut b, &inputs);
    let first = bytes(&a);
    assert!(first == bytes(&b));
    let again = run(&mut a, &inputs);
    assert_eq!(again.turns_added, 0);
    assert_eq!(again.turns_known, again.messages);
    assert!(
        first == bytes(&a),
        "re-ingesting known turns changes nothing"
    );
}

#[test]
fn ingest_into_bytes_writes_what_ingest_then_into_bytes_writes() {
    let inputs: Vec<Input> = samples()
        .iter()
        .map(|p| input(&p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    // An unknown member before the vault, over two 4 MiB cuts long, so that whole
    // cuts are compressed ahead.
    let mut large = fresh();
    let words = "memory graph vault turn ".repeat(360_000);
    large.extra.insert("archiveNotes".into(), words.into());
    for doc in [fresh(), large] {
        for write in [
            WriteOptions::new(Encoding::Brotli),
            WriteOptions::new(Encoding::Zstd),
        ] {
            let options = IngestOptions::default();
            let mut whole = doc.clone();
            let report = ingest(&mut whole, read(inputs.clone()), &options, &Silent).unwrap();
            let expected = into_bytes(whole, &write).unwrap();
            let (got_report, got) =
                ingest_into_bytes(doc.clone(), read(inputs.clone()), &options, &Silent, &write)
                    .unwrap();
            assert_eq!(got_report, report);
            assert!(got == expected, "{write:?}");
        }
    }
}

/// LoCoMo 26 cut after `sessions` sessions: the export as it was earlier.
fn locomo_prefix(v: &Value, sessions: usize) -> Value {
    let mut v = v.clone();
    let obj = v.as_object_mut().unwrap();
    obj.retain(|k, _| {
        let n = k
            .strip_prefix("session_")
            .and_then(|r| r.split('_').next()?.parse::<usize>().ok());
        n.is_none_or(|n| n <= sessions)
    });
    v
}

#[test]
fn appending_a_grown_export_equals_ingesting_it_whole() {
    let full: Value =
        serde_json::from_slice(&std::fs::read(data().join("locomo-dev/26.json")).unwrap()).unwrap();
    let whole_input = input("26.json", serde_json::to_vec(&full).unwrap());
    let mut whole = fresh();
    run(&mut whole, std::slice::from_ref(&whole_input));
    for cut in [1, 7, 18] {
        let mut doc = fresh();
        run(
            &mut doc,
            &[input(
                "26.json",
                serde_json::to_vec(&locomo_prefix(&full, cut)).unwrap(),
            )],
        );
        let report = run(&mut doc, std::slice::from_ref(&whole_input));
        assert!(report.turns_known > 0 && report.turns_added > 0);
        assert!(bytes(&doc) == bytes(&whole), "cut after session {cut}");
    }
}

#[test]
fn a_grown_chatgpt_thread_appends_only_its_new_messages() {
    let raw = std::fs::read(data().join("imports/chatgpt/branching.conversations.json")).unwrap();
    let full: Value = serde_json::from_slice(&raw).unwrap();
    let mut earlier = full.clone();
    earlier[0]["current_node"] = json!("msg-3");
    let mut whole = fresh();
    run(&mut whole, &[input("c.json", raw.clone())]);
    let mut doc = fresh();
    let first = run(
        &mut doc,
        &[input("c.json", serde_json::to_vec(&earlier).unwrap())],
    );
    let second = run(&mut doc, &[input("c.json", raw)]);
    assert_eq!(
        first.turns_added + second.turns_added,
        whole.metadata.total_exchanges.unwrap() as usize
    );
    assert_eq!(second.turns_known, first.turns_added);
    assert!(bytes(&doc) == bytes(&whole));
}

#[test]
fn malformed_records_are_skipped_or_fail_under_strict() {
    let text = "{\"conversation_id\":\"a\",\"message_id\":\"1\",\"role\":\"user\",\"content\":\"We decided to use Postgres because of JSONB.\"}\n{broken\n";
    let mut doc = fresh();
    let report = run(&mut doc, &[input("chat.jsonl", text.as_bytes().to_vec())]);
    assert_eq!(report.turns_added, 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].position, "line 2");
    let err = smg_import::read(
        input("chat.jsonl", text.as_bytes().to_vec()),
        Format::Auto,
        true,
    )
    .unwrap_err();
    assert_eq!(err.code(), "SMG-E210");
    assert_eq!(
        err.to_string().split(':').next().unwrap(),
        "chat.jsonl, line 2"
    );
    let err = smg_import::read(
        input("chat.jsonl", text.as_bytes().to_vec()),
        Format::Claude,
        false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[test]
fn nodes_and_edges_made_elsewhere_survive_a_new_ingest() {
    let mut doc = fresh();
    let line = |id: u32, text: &str| {
        format!("{{\"conversation_id\":\"c\",\"message_id\":\"{id}\",\"role\":\"user\",\"content\":\"{text}\",\"timestamp\":\"2025-01-0{id}T10:00:00Z\"}}\n")
    };
    run(
        &mut doc,
        &[input(
            "a.jsonl",
            line(1, "I love climbing with my friend Ada in Yosemite.").into_bytes(),
        )],
    );
    let graph = doc.semantic_graph.as_mut().unwrap();
    let ours = graph
        .nodes
        .as_ref()
        .unwrap()
        .iter()
        .find(|n| n.kind == "entity")
        .unwrap()
        .id
        .clone();
    graph
        .nodes
        .as_mut()
        .unwrap()
        .push(smg_format::model::Node::new(
            smg_format::model::NonEmpty::from_static("mine"),
            smg_format::model::NonEmpty::from_static("concept"),
        ));
    graph
        .edges
        .get_or_insert_with(Vec::new)
        .push(smg_format::model::Edge::new(
            smg_format::model::NonEmpty::from_static("mine"),
            smg_format::model::NonEmpty::from_static("references"),
            ours.clone(),
        ));
    run(
        &mut doc,
        &[input(
            "b.jsonl",
            line(2, "I went to Paris last week.").into_bytes(),
        )],
    );
    let graph = doc.semantic_graph.as_ref().unwrap();
    assert!(graph.nodes.as_ref().unwrap().iter().any(|n| n.id == "mine"));
    assert!(graph
        .edges
        .as_ref()
        .unwrap()
        .iter()
        .any(|e| e.from == "mine" && e.to == ours));
    assert_eq!(doc.metadata.total_exchanges, Some(2));
}

#[test]
fn a_message_given_twice_is_archived_once_and_counted() {
    let line = |c: &str, m: &str, text: &str| {
        json!({"conversation_id": c, "message_id": m, "role": "user", "content": text}).to_string()
    };
    let first = [
        line("c1", "m1", "hello there"),
        line("c1", "m2", "and more"),
    ]
    .join("\n");
    let mut doc = fresh();
    run(&mut doc, &[input("a.jsonl", first.into_bytes())]);
    // Again m1 (known now), m3 twice in one input and once in another.
    let again = [
        line("c1", "m1", "hello there"),
        line("c1", "m3", "third"),
        line("c1", "m3", "third, said again"),
    ]
    .join("\n");
    let other = line("c1", "m3", "third, from elsewhere");
    let report = run(
        &mut doc,
        &[
            input("b.jsonl", again.into_bytes()),
            input("c.jsonl", other.into_bytes()),
        ],
    );
    assert_eq!(report.messages, 4);
    assert_eq!(report.turns_known, 1);
    assert_eq!(report.duplicates, 2);
    assert_eq!(report.turns_added, 1);
    let archived = read_archive(&doc, &Limits::default()).unwrap();
    let texts: Vec<&str> = archived.iter().map(|t| t.turn.content.as_str()).collect();
    assert_eq!(texts, ["hello there", "and more", "third"]);
}

/// An ingest that writes its document frees the turns' text once the rules have read
/// it; the one that keeps the turns for a search index does not. Both make the same
/// document, working memory's last turns whole, when the latest talk is restricted
/// (the turns working memory copies are then earlier ones) and when it is not.
#[test]
fn freeing_the_texts_leaves_the_document_as_keeping_them_makes_it() {
    let line = |c: &str, m: usize, minute: usize| {
        json!({"conversation_id": c, "message_id": format!("{c}{m}"), "role": "user",
               "content": format!("We decided to ship the {c} parser, step {m}."),
               "timestamp": format!("2025-01-01T10:{minute:02}:00Z")})
        .to_string()
    };
    let lines: Vec<String> = (0..12)
        .map(|m| line("a", m, m))
        .chain((0..3).map(|m| line("b", m, 30 + m)))
        .collect();
    let jsonl = input("talk.jsonl", lines.join("\n").into_bytes());
    for restricted in [vec![], vec!["b".to_string()]] {
        let mut options = IngestOptions::default();
        options.restricted_conversations = restricted.clone();
        let (mut freed, mut kept) = (fresh(), fresh());
        ingest(&mut freed, read(vec![jsonl.clone()]), &options, &Silent).unwrap();
        let (_, archived) = smg_engine::ingest::ingest_keeping_turns(
            &mut kept,
            read(vec![jsonl.clone()]),
            &options,
            &Silent,
        )
        .unwrap();
        drop(archived);
        assert!(bytes(&freed) == bytes(&kept), "{restricted:?}");
        let memory = freed.working_memory.as_ref();
        let recent = memory.and_then(|m| m.recent_context.as_ref()).unwrap();
        assert_eq!(recent.len(), 8);
        let last = if restricted.is_empty() {
            "b parser, step 2"
        } else {
            "a parser, step 11"
        };
        assert!(recent.iter().all(|t| t.content.starts_with("We decided")));
        assert!(
            recent.last().unwrap().content.contains(last),
            "{restricted:?}"
        );
    }
}
