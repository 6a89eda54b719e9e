//! Every importer, on real exports mutated at random (issue 31, item 4): an input gives
//! a clear error or a file that passes the whole validator (JSON-LD included) and
//! comes back the same through every encoding and layout. Never a panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};
use smg_engine::ingest::{ingest_into_bytes, IngestOptions, Silent};
use smg_format::validate::{validate, ValidateOptions};
use smg_format::{codec, Document, Encoding, Limits, WriteOptions};
use smg_import::{Format, Input};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap()
}

/// Seeds of each format: the format, and the export as JSON (JSON Lines as an array).
fn seeds() -> Vec<(Format, Value)> {
    let imports = data().join("imports");
    let mut locomo = read_json(&data().join("locomo-dev/26.json"));
    // One short session keeps a case fast; the reader's paths are the same.
    if let Some(c) = locomo.as_object_mut() {
        c.retain(|k, _| {
            ["speaker_a", "speaker_b", "session_1", "session_1_date_time"].contains(&k.as_str())
        });
        if let Some(Value::Array(turns)) = c.get_mut("session_1") {
            turns.truncate(6);
        }
    }
    let jsonl = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ingest/sample-chat.jsonl"),
    )
    .unwrap();
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chatgpt = |f: &str| read_json(&imports.join("chatgpt").join(f));
    let claude = |f: &str| read_json(&imports.join("claude").join(f));
    vec![
        (Format::Chatgpt, chatgpt("branching.conversations.json")),
        (Format::Chatgpt, chatgpt("content-types.conversations.json")),
        (Format::Claude, claude("conversations.json")),
        (Format::Claude, claude("thinking.conversations.json")),
        (Format::Locomo, locomo),
        (Format::Jsonl, Value::Array(lines)),
    ]
}

/// The paths of every value in `v`, depth first.
fn paths(v: &Value, here: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(here.clone());
    let children: Vec<(String, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (k, child) in children {
        here.push(k);
        paths(child, here, out);
        here.pop();
    }
}

fn at<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| match v {
        Value::Object(m) => m.get_mut(k),
        Value::Array(a) => a.get_mut(k.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Replace, remove or copy one value, as a damaged or unusual export would have it.
fn mutate(doc: &mut Value, pick: usize, how: usize) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = &all[pick % all.len()];
    if how % 13 == 12 {
        // Remove the value from its parent.
        if let Some((last, parent)) = path.split_last() {
            match at(doc, parent) {
                Some(Value::Object(m)) => drop(m.remove(last)),
                Some(Value::Array(a)) => drop(a.remove(last.parse::<usize>().unwrap())),
                _ => {}
            }
        }
        return;
    }
    let Some(target) = at(doc, path) else { return };
    *target = match how % 13 {
        0 => Value::Null,
        1 => json!(""),
        2 => json!(0),
        3 => json!(-1),
        4 => json!(1e300),
        5 => json!(true),
        6 => json!([]),
        7 => json!({}),
        8 => json!("\u{0}\u{7}\u{202e} ünïcødé 🙂 \\ \" </script>"),
        9 => json!("x".repeat(5000)),
        10 => json!([target.clone(), target.clone()]),
        _ => json!("2025-13-45T99:99:99Z"),
    };
}

fn encoded(value: &Value, format: Format) -> Vec<u8> {
    if format == Format::Jsonl {
        let lines = value
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![value.clone()]);
        lines
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    } else {
        serde_json::to_vec(value).unwrap()
    }
}

/// The file ingest writes of `input` read as `format` validates, and reads back the
/// same in every encoding and layout; or ingest says what is wrong.
fn holds(format: Format, input: Vec<u8>) -> Result<(), TestCaseError> {
    let doc = Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ));
    let inputs = vec![Input::bytes("export", input)];
    let options = IngestOptions::default();
    let write = WriteOptions::new(Encoding::Brotli);
    let read = |input: Input| smg_import::read(input, format, false).map(|got| vec![got]);
    let got = inputs.into_iter().next().map(read).expect("one input");
    let bytes = match got.and_then(|got| ingest_into_bytes(doc, got, &options, &Silent, &write)) {
        Ok((_, bytes)) => bytes,
        Err(e) => {
            prop_assert!(e.code().starts_with("SMG-E"), "{e}");
            prop_assert!(!e.to_string().is_empty());
            return Ok(());
        }
    };
    let report = validate(&bytes, &ValidateOptions::default());
    prop_assert!(report.is_valid(), "{:?}", report.findings);
    let (doc, _) = codec::from_bytes(&bytes, &Limits::default()).unwrap();
    let canonical = codec::to_canonical_json(&doc).unwrap();
    for encoding in [Encoding::Json, Encoding::Zstd, Encoding::Packed] {
        let again = smg_format::to_bytes(&doc, &WriteOptions::new(encoding)).unwrap();
        let report = validate(&again, &ValidateOptions::default());
        prop_assert!(report.is_valid(), "{encoding:?}: {:?}", report.findings);
        let (back, _) = codec::from_bytes(&again, &Limits::default()).unwrap();
        prop_assert_eq!(
            &codec::to_canonical_json(&back).unwrap(),
            &canonical,
            "{:?}",
            encoding
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(96)))]
    #[test]
    fn a_mutated_export_gives_a_valid_file_or_a_clear_error(
        seed in 0usize..6,
        changes in proptest::collection::vec((any::<usize>(), 0usize..13), 1..4),
    ) {
        let (format, mut value) = seeds().swap_remove(seed);
        for (pick, how) in changes {
            mutate(&mut value, pick, how);
        }
        holds(format, encoded(&value, format))?;
    }

    #[test]
    fn arbitrary_bytes_give_a_clear_error_or_a_valid_file(
        format in prop::sample::select(vec![Format::Auto, Format::Chatgpt, Format::Claude, Format::Locomo, Format::Jsonl]),
        input in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        holds(format, input)?;
    }
}

#[test]
fn the_seeds_themselves_ingest_into_valid_files() {
    for (format, value) in seeds() {
        holds(format, encoded(&value, format)).unwrap();
    }
}
