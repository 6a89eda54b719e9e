//! The C ABI of smg.
//!
//! Conventions (rustls-ffi's): inputs before outputs; byte spans as pointer + length;
//! outputs written only on success; fixed `#[repr(u32)]` status codes; no panic ever
//! crosses the boundary. Every function here is safe to call from any thread.
#![deny(missing_docs)]

mod curate;
mod delta;
mod hits;
mod index;
mod links;
mod memory;
mod model;
mod neo4j;
mod origin;
mod seal;
mod share;
mod within;

pub use curate::*;
pub use delta::*;
pub use hits::*;
pub use index::*;
pub use links::*;
pub use memory::*;
pub use model::*;
pub use neo4j::*;
pub use seal::*;
pub use share::*;
pub use within::*;

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Status of every call. The numbers are those of the `SMG-E` codes (`SMG-E117` is
/// 117), fixed and never reused; 0 is success and 900 and up are the ABI's own.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmgStatus {
    /// Success; outputs were written.
    Ok = 0,
    /// SMG-E001: a file could not be read or written.
    Io = 1,
    /// SMG-E002: the input is empty.
    Empty = 2,
    /// SMG-E003: not a known encoding.
    UnknownEncoding = 3,
    /// SMG-E004: an envelope version this library does not read.
    UnsupportedEnvelope = 4,
    /// SMG-E005: the input ends too early.
    Truncated = 5,
    /// SMG-E006: decompression failed.
    Decompress = 6,
    /// SMG-E007: a limit was exceeded.
    TooLarge = 7,
    /// SMG-E008: a checksum does not match.
    Checksum = 8,
    /// SMG-E009: not UTF-8.
    InvalidUtf8 = 9,
    /// SMG-E010: not JSON.
    Syntax = 10,
    /// SMG-E011: nested too deeply.
    TooDeep = 11,
    /// SMG-E012: JSON of the wrong shape.
    Shape = 12,
    /// SMG-E013: a format version this library does not read.
    UnsupportedVersion = 13,
    /// SMG-E014: a malformed version.
    BadVersion = 14,
    /// SMG-E015: unknown envelope flags.
    UnsupportedFlags = 15,
    /// SMG-E020: an argument is out of range or malformed.
    InvalidArgument = 20,
    /// SMG-E021: another writer held the file's lock longer than the call waits.
    Locked = 21,
    /// SMG-E022: the file changed between its reading and its replacement; nothing written.
    Changed = 22,
    /// SMG-E023: what the call would write does not validate; nothing written.
    Unwritable = 23,
    /// SMG-E024: more graph nodes than the limit.
    TooManyNodes = 24,
    /// SMG-E025: more graph edges than the limit.
    TooManyEdges = 25,
    /// SMG-E026: more turns than the limit.
    TooManyTurns = 26,
    /// SMG-E027: a turn's content is larger than the limit.
    TurnTooLarge = 27,
    /// SMG-E028: more vault artifacts than the limit.
    TooManyArtifacts = 28,
    /// SMG-E029: an artifact has more versions than the limit.
    TooManyVersions = 29,
    /// SMG-E030: a longer run of diffs between full versions than the limit.
    DeltaChainTooLong = 30,
    /// The document fails validation (the report lists the findings).
    Invalid = 100,
    /// SMG-E110: two nodes share an id.
    DuplicateNode = 110,
    /// SMG-E111: an edge names a node that does not exist.
    DanglingEdge = 111,
    /// SMG-E116: an artifact version cannot be rebuilt.
    Artifact = 116,
    /// SMG-E117: an archive block does not decode.
    Block = 117,
    /// SMG-E120: curated knowledge below its tier's confidence.
    BelowConfidence = 120,
    /// SMG-E121: curated knowledge without an approver.
    NoApprover = 121,
    /// SMG-E140: the file is encrypted and no passphrase was given.
    NeedPassphrase = 140,
    /// SMG-E141: wrong passphrase.
    WrongPassphrase = 141,
    /// SMG-E142: the encrypted file was altered.
    Tampered = 142,
    /// SMG-E143: too few key-derivation iterations.
    WeakKdf = 143,
    /// SMG-E144: too many key-derivation iterations.
    KdfTooCostly = 144,
    /// SMG-E145: an unknown algorithm.
    UnknownAlgorithm = 145,
    /// SMG-E146: the work needs what a sealed section holds.
    Sealed = 146,
    /// SMG-E150: not signed.
    Unsigned = 150,
    /// SMG-E151: the signature does not hold.
    BadSignature = 151,
    /// SMG-E160: the delta was made against another base file.
    DeltaBase = 160,
    /// SMG-E161: the delta is malformed or does not rebuild its target.
    BadDelta = 161,
    /// SMG-E201: no node (or segment) has that id.
    UnknownNode = 201,
    /// SMG-E210: an ingest input is not readable as its format.
    Import = 210,
    /// SMG-E220: a malformed query.
    Query = 220,
    /// SMG-E230: a query vector of another model or size than the file's embeddings.
    Vector = 230,
    /// SMG-E231: the file's embeddings come from another model than the one given.
    OtherModel = 231,
    /// SMG-E232: the embedding model cannot be read or failed.
    Model = 232,
    /// SMG-E240: an approver the file's policy does not list.
    NotApprover = 240,
    /// SMG-E241: no audit entry or cycle has the id given.
    UnknownAudit = 241,
    /// SMG-E242: an audit entry that can no longer be undone (restore later ones first).
    CannotRestore = 242,
    /// SMG-E300: the Bolt server cannot be reached.
    Connect = 300,
    /// SMG-E301: the Bolt server did not connect or answer in time.
    Timeout = 301,
    /// SMG-E302: the Bolt server refused the credentials.
    AuthRefused = 302,
    /// SMG-E303: the Bolt server broke the protocol or dropped the connection.
    Protocol = 303,
    /// SMG-E304: the Bolt server refused a query.
    ServerRefused = 304,
    /// SMG-E305: a graph read back does not fit the smg mapping.
    Mapping = 305,
    /// SMG-E306: a bad server address, TLS setting or certificate file.
    BadAddress = 306,
    /// SMG-E307: the database holds no such memory (or several, none named).
    NoMemory = 307,
    /// A required pointer was null, or a string argument was not UTF-8.
    NullArgument = 900,
    /// smg panicked; this is a bug, and no output was written.
    Panic = 999,
}

impl SmgStatus {
    /// The status of an `SMG-Ennn` code.
    fn of_code(code: &str) -> SmgStatus {
        use SmgStatus::*;
        let n: u32 = code.trim_start_matches("SMG-E").parse().unwrap_or(100);
        [
            Io,
            Empty,
            UnknownEncoding,
            UnsupportedEnvelope,
            Truncated,
            Decompress,
            TooLarge,
            Checksum,
            InvalidUtf8,
            Syntax,
            TooDeep,
            Shape,
            UnsupportedVersion,
            BadVersion,
            UnsupportedFlags,
            InvalidArgument,
            Locked,
            Changed,
            Unwritable,
            TooManyNodes,
            TooManyEdges,
            TooManyTurns,
            TurnTooLarge,
            TooManyArtifacts,
            TooManyVersions,
            DeltaChainTooLong,
            DuplicateNode,
            DanglingEdge,
            Artifact,
            Block,
            BelowConfidence,
            NoApprover,
            NeedPassphrase,
            WrongPassphrase,
            Tampered,
            WeakKdf,
            KdfTooCostly,
            UnknownAlgorithm,
            Sealed,
            Unsigned,
            BadSignature,
            DeltaBase,
            BadDelta,
            UnknownNode,
            Import,
            Query,
            Vector,
            OtherModel,
            Model,
            NotApprover,
            UnknownAudit,
            CannotRestore,
            Connect,
            Timeout,
            AuthRefused,
            Protocol,
            ServerRefused,
            Mapping,
            BadAddress,
            NoMemory,
        ]
        .into_iter()
        .find(|s| *s as u32 == n)
        .unwrap_or(Invalid)
    }
}

/// The library version as a NUL-terminated string owned by the library.
#[no_mangle]
pub extern "C" fn smg_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// Validate the bytes of a `.smg` file; on return `*report_out` holds the report as
/// JSON (`{"valid":…,"encoding":…,"findings":[…]}`), to be freed with
/// [`smg_string_free`]. Returns `Ok` for a valid file and `Invalid` otherwise.
///
/// # Safety
/// `bytes` must point to `len` readable bytes (or be null with `len == 0`), and
/// `report_out` must be a valid pointer to write one pointer to.
#[no_mangle]
pub unsafe extern "C" fn smg_validate(
    bytes: *const u8,
    len: usize,
    report_out: *mut *mut c_char,
) -> SmgStatus {
    if report_out.is_null() || (bytes.is_null() && len != 0) {
        return SmgStatus::NullArgument;
    }
    let input: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `bytes` points to `len` readable bytes.
        unsafe { std::slice::from_raw_parts(bytes, len) }
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let report = smg_format::validate::validate(
            input,
            &smg_format::validate::ValidateOptions::default(),
        );
        let json = serde_json::json!({
            "valid": report.is_valid(),
            "encoding": report.encoding.map(|e| e.name()),
            "findings": report.findings,
        });
        (
            report.is_valid(),
            CString::new(json.to_string()).unwrap_or_default(),
        )
    }));
    match result {
        Ok((valid, text)) => {
            // SAFETY: checked non-null above; the caller guarantees it is writable.
            unsafe { *report_out = text.into_raw() };
            if valid {
                SmgStatus::Ok
            } else {
                SmgStatus::Invalid
            }
        }
        Err(_) => SmgStatus::Panic,
    }
}

/// Free a string returned by this library. Null is a no-op.
///
/// # Safety
/// `s` must be null or a pointer returned by this library and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn smg_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: the caller guarantees `s` came from `CString::into_raw` here.
        drop(unsafe { CString::from_raw(s) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_the_error_codes() {
        assert_eq!(SmgStatus::of_code("SMG-E117") as u32, 117);
        assert_eq!(SmgStatus::of_code("SMG-E141"), SmgStatus::WrongPassphrase);
        assert_eq!(SmgStatus::of_code("SMG-E999"), SmgStatus::Invalid);
    }

    fn validate(bytes: &[u8]) -> (SmgStatus, serde_json::Value) {
        let mut out: *mut c_char = std::ptr::null_mut();
        // SAFETY: a live slice and a local out-pointer.
        let status = unsafe { smg_validate(bytes.as_ptr(), bytes.len(), &mut out) };
        // SAFETY: `out` was just written by smg_validate.
        let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
        // SAFETY: `out` came from this library and is freed once.
        unsafe { smg_string_free(out) };
        (status, serde_json::from_str(&text).unwrap())
    }

    #[test]
    fn version_matches_cargo() {
        // SAFETY: smg_version returns a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(smg_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn validates_through_the_abi() {
        let doc = br#"{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","version":"1.0","metadata":{"created":"2025-12-04T10:30:00Z"}}"#;
        assert_eq!(validate(doc).0, SmgStatus::Ok);
        let (status, report) = validate(b"");
        assert_eq!(status, SmgStatus::Invalid);
        assert_eq!(report["findings"][0]["code"], "SMG-E002");
    }

    #[test]
    fn null_arguments_are_refused() {
        // SAFETY: null pointers are what is being tested; nothing is dereferenced.
        let status = unsafe { smg_validate(std::ptr::null(), 5, std::ptr::null_mut()) };
        assert_eq!(status, SmgStatus::NullArgument);
        // SAFETY: freeing null is a documented no-op.
        unsafe { smg_string_free(std::ptr::null_mut()) };
    }

    #[test]
    fn a_handle_opens_answers_and_frees() {
        let doc = br#"{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","version":"1.0","metadata":{"created":"2025-12-04T10:30:00Z"}}"#;
        let mut mem: *mut SmgMemory = std::ptr::null_mut();
        let mut out: *mut c_char = std::ptr::null_mut();
        // SAFETY: a live slice, no passphrase, local out-pointers; the handle and the
        // string are freed once, and freeing null is a no-op.
        unsafe {
            let opened =
                smg_memory_open_bytes(doc.as_ptr(), doc.len(), std::ptr::null(), 0, &mut mem);
            assert_eq!(opened, SmgStatus::Ok);
            assert_eq!(smg_memory_info(mem, &mut out), SmgStatus::Ok);
            let info = CStr::from_ptr(out).to_str().unwrap().to_string();
            smg_string_free(out);
            smg_memory_free(mem);
            smg_memory_free(std::ptr::null_mut());
            assert!(info.contains("2025-12-04T10:30:00Z"), "{info}");
        }
    }

    /// The info of the memory opened by `open`, or its status.
    fn info_of(open: impl FnOnce(*mut *mut SmgMemory) -> SmgStatus) -> Result<String, SmgStatus> {
        let mut mem: *mut SmgMemory = std::ptr::null_mut();
        let mut out: *mut c_char = std::ptr::null_mut();
        let opened = open(&mut mem);
        if opened != SmgStatus::Ok {
            return Err(opened);
        }
        // SAFETY: `mem` was just opened, `out` is a local out-pointer; both are freed
        // once.
        unsafe {
            assert_eq!(smg_memory_info(mem, &mut out), SmgStatus::Ok);
            let info = CStr::from_ptr(out).to_str().unwrap().to_string();
            smg_string_free(out);
            smg_memory_free(mem);
            Ok(info)
        }
    }

    #[test]
    fn a_large_compressed_file_opens_by_path_as_from_its_bytes() {
        use smg_format::model::{Graph, Node, NonEmpty, Timestamp};
        let mut doc = smg_format::Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
        let nodes = (0..80_000)
            .map(|i| Node {
                label: Some(format!("concept {i} é 𝄞")),
                ..Node::new(
                    NonEmpty::new(format!("c{i}")).unwrap(),
                    NonEmpty::from_static("concept"),
                )
            })
            .collect();
        doc.semantic_graph = Some(Graph {
            nodes: Some(nodes),
            ..Graph::default()
        });
        let options = smg_format::WriteOptions::new(smg_format::Encoding::Brotli);
        let good = smg_format::to_bytes(&doc, &options).unwrap();
        let mut bad = good.clone();
        let middle = bad.len() / 2;
        bad[middle] ^= 0x55;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        for (bytes, opens) in [(good, true), (bad, false)] {
            std::fs::write(&path, &bytes).unwrap();
            // SAFETY: a live NUL-terminated path and slice, no passphrase, and the
            // out-pointer `info_of` gives.
            let by_path = info_of(|mem| unsafe {
                smg_memory_open(c_path.as_ptr(), std::ptr::null(), 0, mem)
            });
            // SAFETY: as above.
            let by_bytes = info_of(|mem| unsafe {
                smg_memory_open_bytes(bytes.as_ptr(), bytes.len(), std::ptr::null(), 0, mem)
            });
            assert_eq!(by_path.is_ok(), opens, "{by_path:?}");
            assert_eq!(by_path, by_bytes);
        }
    }

    #[test]
    fn the_last_error_is_cut_to_the_buffer_and_terminated() {
        let mut mem: *mut SmgMemory = std::ptr::null_mut();
        let mut buf = [1 as c_char; 8];
        let mut n = 0usize;
        // SAFETY: a live slice, local out-pointers and a local buffer of the length
        // given; null buffer and length pointer are documented as allowed.
        unsafe {
            let status = smg_memory_open_bytes(b"{".as_ptr(), 1, std::ptr::null(), 0, &mut mem);
            assert_eq!(status, SmgStatus::Syntax);
            smg_last_error(buf.as_mut_ptr(), buf.len(), &mut n);
            smg_last_error(std::ptr::null_mut(), 0, &mut n);
            smg_last_error(buf.as_mut_ptr(), buf.len(), std::ptr::null_mut());
        }
        assert!(n > buf.len(), "{n}");
        assert_eq!(buf[7], 0);
        // SAFETY: NUL-terminated just above.
        let cut = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
        assert_eq!(cut, "error[S");
    }
}
