//! The ABI scenario in Rust, through the exported C functions (the same steps as
//! examples/c/scenario.c, tests/python/test_ffi.py and node/test/scenario.test.js):
//! ingest a LoCoMo file, append to it, open, search, context, expand, save, validate
//! a broken file, and a wrong passphrase.

use std::ffi::{c_char, CStr, CString};
use std::path::Path;
use std::ptr::{null, null_mut};

use smg::*;

fn locomo() -> CString {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/locomo-dev/26.json");
    CString::new(p.to_str().unwrap()).unwrap()
}

/// The string a call returned, freed.
fn take(p: *mut c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: `p` was returned by the library and is NUL-terminated.
    let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    // SAFETY: `p` came from the library and is freed once.
    unsafe { smg_string_free(p) };
    s
}

fn last_error() -> String {
    let mut buf = [0 as c_char; 512];
    let mut n = 0usize;
    // SAFETY: a local buffer of the length given and a local out-pointer.
    unsafe { smg_last_error(buf.as_mut_ptr(), buf.len(), &mut n) };
    // SAFETY: smg_last_error NUL-terminates within the buffer.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let out = CString::new(dir.path().join("m.smg").to_str().unwrap()).unwrap();
    let input = locomo();
    let inputs = [input.as_ptr()];
    let mut s: *mut c_char = null_mut();
    // SAFETY: live C strings and a local out-pointer, as documented.
    assert_eq!(
        unsafe { smg_ingest(inputs.as_ptr(), 1, out.as_ptr(), &mut s) },
        SmgStatus::Ok
    );
    assert_eq!(json(&take(s))["turnsAdded"], 419);
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_ingest_append(out.as_ptr(), inputs.as_ptr(), 1, &mut s) },
        SmgStatus::Ok
    );
    let again = json(&take(s));
    assert_eq!(
        (again["turnsAdded"].as_u64(), again["turnsKnown"].as_u64()),
        (Some(0), Some(419))
    );

    let mut mem: *mut SmgMemory = null_mut();
    // SAFETY: a live path, no passphrase, a local out-pointer.
    assert_eq!(
        unsafe { smg_memory_open(out.as_ptr(), null(), 0, &mut mem) },
        SmgStatus::Ok
    );
    let q = CString::new("When did Caroline go to the LGBTQ support group?").unwrap();
    // SAFETY: a live handle and query.
    assert_eq!(
        unsafe { smg_memory_search(mem, q.as_ptr(), 5, &mut s) },
        SmgStatus::Ok
    );
    let hits = json(&take(s));
    let hits = hits["hits"].as_array().unwrap();
    assert!(hits
        .iter()
        .any(|h| h["content"].as_str().unwrap().contains("support group")));
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_memory_context(mem, q.as_ptr(), 300, &mut s) },
        SmgStatus::Ok
    );
    let pack = json(&take(s));
    assert!(pack["tokens"].as_u64().unwrap() <= 300);
    let seg = CString::new(hits[0]["segment"].as_str().unwrap()).unwrap();
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_memory_expand(mem, seg.as_ptr(), &mut s) },
        SmgStatus::Ok
    );
    assert!(take(s).contains(hits[0]["content"].as_str().unwrap()));
    let unknown = CString::new("seg-999999").unwrap();
    s = null_mut();
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_memory_expand(mem, unknown.as_ptr(), &mut s) },
        SmgStatus::UnknownNode
    );
    assert!(s.is_null(), "nothing is written on failure");
    assert!(last_error().contains("SMG-E201"));
    // SAFETY: two live handles (the same one) and a local out-pointer.
    assert_eq!(unsafe { smg_memory_diff(mem, mem, &mut s) }, SmgStatus::Ok);
    let same = json(&take(s));
    assert!(same["nodesAdded"].as_array().unwrap().is_empty());
    assert!(same["turnsAdded"].as_array().unwrap().is_empty());
    let copy = CString::new(dir.path().join("copy.smg").to_str().unwrap()).unwrap();
    // SAFETY: a live handle and path.
    assert_eq!(
        unsafe { smg_memory_save(mem, copy.as_ptr()) },
        SmgStatus::Ok
    );
    // SAFETY: a live handle, freed once; null is a no-op.
    unsafe {
        smg_memory_free(mem);
        smg_memory_free(null_mut());
    }

    let broken = b"this is not a memory file";
    // SAFETY: a live slice and a local out-pointer.
    assert_eq!(
        unsafe { smg_validate(broken.as_ptr(), broken.len(), &mut s) },
        SmgStatus::Invalid
    );
    assert_eq!(json(&take(s))["findings"][0]["code"], "SMG-E003");
    let copied = std::fs::read(dir.path().join("copy.smg")).unwrap();
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_validate(copied.as_ptr(), copied.len(), &mut s) },
        SmgStatus::Ok
    );
    take(s);

    let plain = std::fs::read(dir.path().join("m.smg")).unwrap();
    let locked =
        smg_format::crypto::encrypt(&plain, b"the right one", smg_format::crypto::MIN_ITERATIONS)
            .unwrap();
    let wrong = b"not it";
    // SAFETY: live slices and a local out-pointer.
    let status = unsafe {
        smg_memory_open_bytes(
            locked.as_ptr(),
            locked.len(),
            wrong.as_ptr(),
            wrong.len(),
            &mut mem,
        )
    };
    assert_eq!(status, SmgStatus::WrongPassphrase);
    assert!(last_error().starts_with("error[SMG-E141]"));
    // SAFETY: null arguments are what is tested; nothing is dereferenced.
    assert_eq!(
        unsafe { smg_memory_open(null(), null(), 0, &mut mem) },
        SmgStatus::NullArgument
    );
}

#[test]
fn a_delta_rebuilds_a_file_and_refuses_another_base() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| CString::new(dir.path().join(n).to_str().unwrap()).unwrap();
    let (a, b, d, out, stray) = (
        path("a.smg"),
        path("b.smg"),
        path("b.smgd"),
        path("b2.smg"),
        path("x.smg"),
    );
    let first = locomo();
    let second = CString::new(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/locomo-dev/30.json")
            .to_str()
            .unwrap(),
    )
    .unwrap();
    let mut s: *mut c_char = null_mut();
    // SAFETY: live C strings and a local out-pointer, as documented.
    assert_eq!(
        unsafe { smg_ingest([first.as_ptr()].as_ptr(), 1, a.as_ptr(), &mut s) },
        SmgStatus::Ok
    );
    take(s);
    std::fs::copy(dir.path().join("a.smg"), dir.path().join("b.smg")).unwrap();
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_ingest_append(b.as_ptr(), [second.as_ptr()].as_ptr(), 1, &mut s) },
        SmgStatus::Ok
    );
    take(s);
    // SAFETY: live C strings, no passphrase, a local out-pointer.
    assert_eq!(
        unsafe { smg_delta_make(a.as_ptr(), b.as_ptr(), null(), 0, d.as_ptr(), &mut s) },
        SmgStatus::Ok
    );
    let header = json(&take(s));
    assert_eq!(header["patch"], "document");
    let target = std::fs::read(dir.path().join("b.smg")).unwrap();
    assert!(header["deltaBytes"].as_u64().unwrap() < target.len() as u64);
    // SAFETY: live C strings, no passphrase.
    assert_eq!(
        unsafe { smg_delta_apply(a.as_ptr(), d.as_ptr(), null(), 0, out.as_ptr()) },
        SmgStatus::Ok
    );
    assert_eq!(std::fs::read(dir.path().join("b2.smg")).unwrap(), target);
    // SAFETY: as above.
    assert_eq!(
        unsafe { smg_delta_apply(b.as_ptr(), d.as_ptr(), null(), 0, stray.as_ptr()) },
        SmgStatus::DeltaBase
    );
    assert!(last_error().starts_with("error[SMG-E160]"));
    assert!(
        !dir.path().join("x.smg").exists(),
        "nothing is written on failure"
    );
}

/// Every answer of an open memory, as JSON text: info, search, context and expand
/// (of segment `seg`).
fn answers(mem: *mut SmgMemory, seg: &str) -> Vec<String> {
    let q = CString::new("When did Caroline go to the LGBTQ support group?").unwrap();
    let seg = CString::new(seg).unwrap();
    let mut out = Vec::new();
    let mut s: *mut c_char = null_mut();
    // SAFETY: a live handle, live strings and a local out-pointer, as documented.
    unsafe {
        assert_eq!(smg_memory_search(mem, q.as_ptr(), 5, &mut s), SmgStatus::Ok);
        out.push(take(s));
        assert_eq!(
            smg_memory_context(mem, q.as_ptr(), 300, &mut s),
            SmgStatus::Ok
        );
        out.push(take(s));
        assert_eq!(smg_memory_expand(mem, seg.as_ptr(), &mut s), SmgStatus::Ok);
        out.push(take(s));
        assert_eq!(smg_memory_info(mem, &mut s), SmgStatus::Ok);
        out.push(take(s));
    }
    out
}

#[test]
fn a_packed_file_with_its_index_opens_by_the_index_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let [plain, packed] = ["m.smg", "p.smg"].map(|n| dir.path().join(n));
    let input = locomo();
    let inputs = [input.as_ptr()];
    let out = CString::new(plain.to_str().unwrap()).unwrap();
    let mut s: *mut c_char = null_mut();
    // SAFETY: live C strings and a local out-pointer, as documented.
    assert_eq!(
        unsafe { smg_ingest(inputs.as_ptr(), 1, out.as_ptr(), &mut s) },
        SmgStatus::Ok
    );
    take(s);
    let limits = smg_format::Limits::default();
    let (doc, _) = smg_format::from_bytes(&std::fs::read(&plain).unwrap(), &limits).unwrap();
    let options = smg_format::WriteOptions::new(smg_format::Encoding::Packed);
    let bytes = smg_format::to_bytes(&doc, &options).unwrap();
    let indexed = smg_engine::search::with_search_index(&bytes, &limits).unwrap();
    // smg_index rewrites a copy of the plain file packed and indexed: the same bytes
    // as packing and indexing in two steps; indexing it again changes nothing.
    std::fs::copy(&plain, &packed).unwrap();
    let path = CString::new(packed.to_str().unwrap()).unwrap();
    for before in [
        std::fs::metadata(&plain).unwrap().len(),
        indexed.len() as u64,
    ] {
        // SAFETY: a live C string and a local out-pointer, as documented.
        assert_eq!(
            unsafe { smg_index(path.as_ptr(), &mut s) },
            SmgStatus::Ok,
            "{}",
            last_error()
        );
        let summary = json(&take(s));
        assert_eq!(summary["bytesBefore"], before);
        assert_eq!(summary["bytesAfter"], indexed.len());
        assert!(std::fs::read(&packed).unwrap() == indexed);
    }
    // What is not a memory file is refused and left as it is.
    let junk = dir.path().join("junk.smg");
    std::fs::write(&junk, b"not a memory").unwrap();
    let junk_path = CString::new(junk.to_str().unwrap()).unwrap();
    // SAFETY: a live C string and a local out-pointer, as documented.
    let status = unsafe { smg_index(junk_path.as_ptr(), &mut s) };
    assert_ne!(status, SmgStatus::Ok);
    assert!(last_error().contains("SMG-E"), "{}", last_error());
    assert_eq!(std::fs::read(&junk).unwrap(), b"not a memory");
    let open = |path: &Path| {
        let c = CString::new(path.to_str().unwrap()).unwrap();
        let mut mem: *mut SmgMemory = null_mut();
        // SAFETY: a live path, no passphrase, a local out-pointer.
        assert_eq!(
            unsafe { smg_memory_open(c.as_ptr(), null(), 0, &mut mem) },
            SmgStatus::Ok
        );
        mem
    };
    let (a, b) = (open(&plain), open(&packed));
    let graph = doc.semantic_graph.as_ref().unwrap();
    let first = graph.nodes().iter().find(|n| n.kind == "segment").unwrap();
    // The document of the packed file is read when info first needs it, from the
    // file as it was opened: another file renamed onto its path since changes nothing.
    std::fs::rename(&junk, &packed).unwrap();
    assert_eq!(answers(b, &first.id), answers(a, &first.id));
    let copy = CString::new(dir.path().join("copy.smg").to_str().unwrap()).unwrap();
    // SAFETY: live handles, a live path, a local out-pointer.
    unsafe {
        assert_eq!(smg_memory_save(b, copy.as_ptr()), SmgStatus::Ok);
        assert_eq!(smg_memory_diff(a, b, &mut s), SmgStatus::Ok);
        let diff = json(&take(s));
        assert!(
            diff.as_object()
                .unwrap()
                .values()
                .all(|v| v.as_array().is_none_or(|a| a.is_empty())),
            "{diff}"
        );
        smg_memory_free(a);
        smg_memory_free(b);
    }
}

#[test]
fn save_refuses_a_memory_that_would_not_validate() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/invalid/conversation-format-not-text.smg");
    let path = CString::new(fixture.to_str().unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("copy.smg");
    let copy = CString::new(target.to_str().unwrap()).unwrap();
    let mut mem: *mut SmgMemory = null_mut();
    // SAFETY: a live path, no passphrase, a local out-pointer; the handle is freed once.
    unsafe {
        assert_eq!(
            smg_memory_open(path.as_ptr(), null(), 0, &mut mem),
            SmgStatus::Ok
        );
        assert_eq!(smg_memory_save(mem, copy.as_ptr()), SmgStatus::Unwritable);
        smg_memory_free(mem);
    }
    let error = last_error();
    assert!(
        error.contains("SMG-E023") && error.contains("SMG-E101"),
        "{error}"
    );
    assert!(
        error.contains("/deepArchive/conversations/c-old/format"),
        "{error}"
    );
    assert!(!target.exists());
}
