//! The engine's writers on existing memories (issue 31, item 4): `ingest --append` of
//! records as careless exports give them, then `migrate`, give an error or a document
//! that passes the whole validator; appending the same records again adds nothing.

use proptest::prelude::*;
use serde_json::{json, Value};
use smg_engine::ingest::{ingest_into_bytes, ingest_keeping_turns, migrate, IngestOptions, Silent};
use smg_import::{Format, Input};

/// `input` read as JSON Lines, as `smg ingest --from jsonl` reads it.
fn read_jsonl(input: Input) -> Vec<smg_engine::ingest::Imported> {
    vec![smg_import::read(input, Format::Jsonl, false).unwrap()]
}
use smg_format::validate::{ensure_valid, validate, ValidateOptions};
use smg_format::{codec, Document, Encoding, Limits, WriteOptions};

fn fixture(name: &str) -> Document {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/valid")
        .join(name);
    codec::from_bytes(&std::fs::read(path).unwrap(), &Limits::default())
        .unwrap()
        .0
}

/// One JSON Lines record, its fields as an export might have them (or not).
fn record() -> impl Strategy<Value = Value> {
    let maybe = |s: &'static [&'static str]| {
        proptest::option::of(proptest::sample::select(s).prop_map(str::to_string))
    };
    (
        maybe(&["c1", "c2", "conv-9", ""]),
        maybe(&["m1", "m2", "m3", "x", ""]),
        maybe(&[
            "user",
            "assistant",
            "system",
            "tool",
            "Human",
            "bot",
            "",
            "wizard",
        ]),
        ".{0,80}",
        maybe(&[
            "2025-02-28T10:10:00Z",
            "2025-03-01T00:00:00+02:00",
            "yesterday",
            "",
        ]),
    )
        .prop_map(|(conversation, message, role, content, timestamp)| {
            let mut r = json!({ "content": content });
            for (key, v) in [
                ("conversation_id", conversation),
                ("message_id", message),
                ("role", role),
                ("timestamp", timestamp),
            ] {
                if let Some(v) = v {
                    r[key] = Value::String(v);
                }
            }
            r
        })
}

fn jsonl(records: &[Value]) -> Input {
    Input::bytes(
        "append.jsonl",
        records
            .iter()
            .map(|r| format!("{r}\n"))
            .collect::<String>()
            .into_bytes(),
    )
}

fn append(doc: Document, records: &[Value]) -> Option<(usize, Document)> {
    let options = IngestOptions::default();
    let write = WriteOptions::new(Encoding::Brotli);
    let (report, bytes) =
        match ingest_into_bytes(doc, read_jsonl(jsonl(records)), &options, &Silent, &write) {
            Ok(got) => got,
            Err(e) => {
                let code = e.code();
                assert_ne!(
                    code, "SMG-E023",
                    "the writers' gate refused what ingest made: {e}"
                );
                return None;
            }
        };
    let findings = validate(&bytes, &ValidateOptions::default()).findings;
    assert!(
        findings
            .iter()
            .all(|f| f.severity != smg_format::validate::Severity::Error),
        "append wrote an invalid file: {findings:?}"
    );
    let (doc, _) = codec::from_bytes(&bytes, &Limits::default()).unwrap();
    Some((report.turns_added, doc))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(32)))]
    #[test]
    fn appends_and_migrations_keep_a_memory_valid(
        start in 0usize..3,
        records in proptest::collection::vec(record(), 1..6),
    ) {
        let base = fixture(["full.smg", "code-chat.smg", "minimal.smg"][start]);
        let Some((added, doc)) = append(base, &records) else {
            return Ok(());
        };
        let (again, mut doc) = append(doc, &records).expect("what was appended appends again");
        prop_assert_eq!(again, 0, "the same records appended twice ({} the first time)", added);
        migrate(&mut doc, &Limits::default()).unwrap();
        ensure_valid(&doc, &Limits::default()).unwrap();
    }
}

#[test]
fn a_new_message_is_appended_once() {
    let record = json!({
        "conversation_id": "c9", "message_id": "m1", "role": "user",
        "content": "we decided to use postgres", "timestamp": "2025-02-28T10:10:00Z"
    });
    let (added, doc) = append(fixture("full.smg"), std::slice::from_ref(&record)).unwrap();
    assert_eq!(added, 1);
    let (again, _) = append(doc, &[record]).unwrap();
    assert_eq!(again, 0);
}

/// The gate of a writer that holds its turns finds a reference no archived turn
/// answers, as `smg validate` would: a memory that cites words nobody said is
/// never written.
#[test]
fn the_gate_on_held_turns_refuses_a_provenance_that_names_no_turn() {
    let record = json!({
        "conversation_id": "c9", "message_id": "m1", "role": "user",
        "content": "We decided to use Postgres for the billing service.",
        "timestamp": "2025-02-28T10:10:00Z"
    });
    let options = IngestOptions::default();
    let mut doc = fixture("full.smg");
    let limits = Limits::default();
    let (_, held) =
        ingest_keeping_turns(&mut doc, read_jsonl(jsonl(&[record])), &options, &Silent).unwrap();
    held.check(&doc, &limits).unwrap();
    let graph = doc.semantic_graph.as_mut().unwrap();
    let nodes = graph.nodes.as_mut().unwrap();
    let (i, cited) = nodes
        .iter_mut()
        .enumerate()
        .find_map(|(i, n)| n.provenance.as_mut().map(|p| (i, p)))
        .expect("a node that cites its turns");
    cited[0].message_ids = Some(vec!["never-said".into()]);
    let e = held.check(&doc, &limits).unwrap_err();
    let smg_engine::Error::Format(smg_format::Error::Unwritable { code, pointer, .. }) = e else {
        panic!("{e:?}");
    };
    assert_eq!(code, "SMG-E126");
    assert_eq!(
        pointer,
        format!("/semanticGraph/nodes/{i}/provenance/0/messageIds/0")
    );
}
