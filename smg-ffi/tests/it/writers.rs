//! The C ABI's writers on existing files (issue 31, item 4): `smg_ingest_append` of
//! records as careless exports give them, then `smg_index`, then open and
//! `smg_memory_save`: each call fails with a status or leaves a file that passes the
//! whole validator.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::ptr::null_mut;

use proptest::prelude::*;
use smg::*;
use smg_format::validate::{validate, ValidateOptions};

fn c(path: &Path) -> CString {
    CString::new(path.to_str().unwrap()).unwrap()
}

/// The file validates, JSON-LD included.
fn assert_valid(path: &Path, after: &str) {
    let report = validate(&std::fs::read(path).unwrap(), &ValidateOptions::default());
    assert!(report.is_valid(), "after {after}: {:?}", report.findings);
}

/// Free a returned string, if any.
fn free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: `s` came from the library and is freed once.
        unsafe { smg_string_free(s) };
    }
}

/// A JSON Lines record with some fields missing or odd.
fn record() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(vec!["c1", "c2", ""]),
        proptest::sample::select(vec!["m1", "m2", "m3", ""]),
        proptest::sample::select(vec!["user", "assistant", "Human", "", "wizard"]),
        ".{0,60}",
        proptest::sample::select(vec!["2025-02-28T10:10:00Z", "soon", ""]),
    )
        .prop_map(|(conversation, message, role, content, time)| {
            serde_json::json!({
                "conversation_id": conversation, "message_id": message, "role": role,
                "content": content, "timestamp": time,
            })
            .to_string()
        })
}

/// Append `records` to a copy of `fixture`, index it, open and save it.
fn write_through_the_abi(fixture: &str, records: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.smg");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid");
    std::fs::copy(src.join(fixture), &file).unwrap();
    let input = dir.path().join("append.jsonl");
    std::fs::write(&input, records.join("\n")).unwrap();
    let (path, inputs) = (c(&file), [c(&input)]);
    let ptrs: Vec<*const c_char> = inputs.iter().map(|s| s.as_ptr()).collect();
    let mut out: *mut c_char = null_mut();
    // SAFETY: live strings, a pointer array of the length given, a local out-pointer.
    let appended = unsafe { smg_ingest_append(path.as_ptr(), ptrs.as_ptr(), 1, &mut out) };
    free(out);
    if appended != SmgStatus::Ok {
        return;
    }
    assert_valid(&file, "smg_ingest_append");
    let mut out: *mut c_char = null_mut();
    // SAFETY: a live string and a local out-pointer.
    assert_eq!(unsafe { smg_index(path.as_ptr(), &mut out) }, SmgStatus::Ok);
    free(out);
    assert_valid(&file, "smg_index");
    let saved = dir.path().join("saved.smg");
    let saved_c = c(&saved);
    let mut mem: *mut SmgMemory = null_mut();
    // SAFETY: live strings, no passphrase, a local out-pointer; the handle is freed once.
    unsafe {
        assert_eq!(
            smg_memory_open(path.as_ptr(), std::ptr::null(), 0, &mut mem),
            SmgStatus::Ok
        );
        assert_eq!(smg_memory_save(mem, saved_c.as_ptr()), SmgStatus::Ok);
        smg_memory_free(mem);
    }
    assert_valid(&saved, "smg_memory_save");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn abi_writers_keep_a_file_valid(
        fixture in proptest::sample::select(vec!["full.smg", "code-chat.smg", "minimal.smg"]),
        records in proptest::collection::vec(record(), 1..5),
    ) {
        write_through_the_abi(fixture, &records);
    }
}

/// An append keeps a packed file's search index, which answers as one made anew of
/// the file after and finds the new turn by its words.
#[test]
fn an_append_keeps_the_search_index_of_a_packed_file() {
    use smg_engine::search::{has_search_index, packed_with_search_index, Retriever};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.smg");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid/code-chat.smg");
    let limits = smg_format::Limits::default();
    let packed = packed_with_search_index(&std::fs::read(src).unwrap(), &limits).unwrap();
    std::fs::write(&file, packed).unwrap();
    let input = dir.path().join("append.jsonl");
    let record = serde_json::json!({
        "conversation_id": "later", "message_id": "1", "role": "user",
        "content": "The quokka sanctuary opens on Rottnest island in March.",
    });
    std::fs::write(&input, record.to_string()).unwrap();
    let (path, inputs) = (c(&file), [c(&input)]);
    let ptrs: Vec<*const c_char> = inputs.iter().map(|s| s.as_ptr()).collect();
    let mut out: *mut c_char = null_mut();
    // SAFETY: live strings, a pointer array of the length given, a local out-pointer.
    let appended = unsafe { smg_ingest_append(path.as_ptr(), ptrs.as_ptr(), 1, &mut out) };
    free(out);
    assert_eq!(appended, SmgStatus::Ok);
    assert_valid(&file, "smg_ingest_append");
    let bytes = std::fs::read(&file).unwrap();
    assert!(has_search_index(&bytes));
    let r = Retriever::open_packed(&file, &limits).unwrap().unwrap();
    assert!(r.used_stored_index());
    let (doc, _) = smg_format::from_bytes(&bytes, &limits).unwrap();
    let anew = Retriever::new(&doc, &limits).unwrap();
    let hits = r.search_turns("quokka sanctuary", 1).unwrap();
    assert!(hits[0].turn.content.contains("quokka"), "{hits:?}");
    for q in ["quokka sanctuary", "rust code", "What did we decide?"] {
        assert_eq!(
            r.search_turns(q, 5).unwrap(),
            anew.search_turns(q, 5).unwrap()
        );
    }
}
