//! What every fuzz target checks. Each `*_holds` function takes the fuzzer's bytes:
//! an error is a fine answer to bad input, a panic (or a failed assertion, which is
//! one) is a finding. The cargo-fuzz targets in `fuzz/` call these; `tests/replay.rs`
//! runs them over the committed corpus on stable, in seconds.

use smg_engine::ingest::{ingest_into_bytes, IngestOptions, Silent};
use smg_engine::search::{QueryVector, Retriever, SearchOptions};
use smg_format::model::{Artifact, ArtifactVault};
use smg_format::validate::{validate, ValidateOptions};
use smg_format::vault::{rebuild_version, rebuild_versions, NewContent, VaultWriter};
use smg_format::{codec, crypto, delta, Document, Encoding, Limits, WriteOptions};
use smg_import::{Format, Input};

/// Every target, by the name of its cargo-fuzz binary.
pub const TARGETS: [&str; 13] = [
    "import_chatgpt",
    "import_claude",
    "import_letta",
    "import_mcp",
    "import_locomo",
    "import_jsonl",
    "decode",
    "decrypt",
    "delta",
    "vault",
    "find",
    "index",
    "validate",
];

/// Run target `name` on `data`.
///
/// # Panics
/// On an unknown name, and wherever the target's check fails.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "import_chatgpt" => ingest_holds(Format::Chatgpt, data),
        "import_claude" => ingest_holds(Format::Claude, data),
        "import_letta" => ingest_holds(Format::Letta, data),
        "import_mcp" => ingest_holds(Format::McpMemory, data),
        "import_locomo" => ingest_holds(Format::Locomo, data),
        "import_jsonl" => ingest_holds(Format::Jsonl, data),
        "decode" => decode_holds(data),
        "decrypt" => decrypt_holds(data),
        "delta" => delta_holds(data),
        "vault" => vault_holds(data),
        "find" => find_holds(data),
        "index" => index_holds(data),
        "validate" => validate_holds(data),
        other => panic!("no fuzz target {other}"),
    }
}

/// Small enough that a decompression bomb is refused quickly.
fn limits() -> Limits {
    Limits::default().with_max_bytes(64 << 20)
}

/// The base file of the `delta` target and the document `find` queries.
const MINIMAL: &[u8] = include_bytes!("../../../fixtures/valid/minimal.smg");
const FULL: &[u8] = include_bytes!("../../../fixtures/valid/full.smg");

/// The passphrase of the `decrypt` target's files.
pub const PASSPHRASE: &[u8] = b"fuzz";

/// Ingest `data` as `format`: a file written must validate and read back as written.
pub fn ingest_holds(format: Format, data: &[u8]) {
    let Ok(got) = smg_import::read(Input::bytes("export", data.to_vec()), format, false) else {
        return;
    };
    let doc = Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ));
    let write = WriteOptions::new(Encoding::Brotli);
    let options = IngestOptions::default();
    let Ok((_, bytes)) = ingest_into_bytes(doc, vec![got], &options, &Silent, &write) else {
        return;
    };
    let report = validate(&bytes, &ValidateOptions::default());
    assert!(
        report.is_valid(),
        "ingest wrote an invalid file: {:?}",
        report.findings
    );
    let (doc, _) = codec::from_bytes(&bytes, &limits()).expect("what ingest wrote reads");
    let again = smg_format::to_bytes(&doc, &write).expect("and writes again");
    assert_eq!(again, bytes, "writing what was read gives other bytes");
}

/// Decode `data` as a file: a document read must write again and read back the same.
pub fn decode_holds(data: &[u8]) {
    let Ok((doc, _)) = codec::from_bytes(data, &limits()) else {
        return;
    };
    let json = codec::to_canonical_json(&doc).expect("a document read writes");
    let (back, _) = codec::from_bytes(&json, &limits()).expect("and reads back");
    assert_eq!(codec::to_canonical_json(&back).expect("writes"), json);
}

/// Decrypt `data` with [`PASSPHRASE`] (what opens is decoded as a file); and any bytes,
/// encrypted, decrypt to themselves, while the encrypted file with any one byte
/// changed is refused. Fuzz builds accept one KDF round, so that the fuzzer gets
/// past the key derivation; on stable only the first part runs.
pub fn decrypt_holds(data: &[u8]) {
    if let Ok(inner) = crypto::decrypt(data, PASSPHRASE, &limits()) {
        decode_holds(&inner);
    }
    let salt: [u8; 16] = std::array::from_fn(|i| data.get(i).copied().unwrap_or(0));
    let Ok(sealed) = crypto::encrypt_with(data, PASSPHRASE, 1, &salt, &[7; 12]) else {
        return;
    };
    let opened = crypto::decrypt(&sealed, PASSPHRASE, &Limits::default());
    assert_eq!(
        opened.expect("what was encrypted decrypts").as_slice(),
        data
    );
    let mut bent = sealed;
    let at = data.iter().map(|b| *b as usize).sum::<usize>() % bent.len();
    bent[at] ^= 1 << (data.len() % 8);
    assert!(
        crypto::decrypt(&bent, PASSPHRASE, &Limits::default()).is_err(),
        "the file with byte {at} changed still opened"
    );
}

/// Apply `data` as a delta file to the minimal fixture, and make a delta from it to
/// `data`: what a delta rebuilds is what it names, byte for byte.
pub fn delta_holds(data: &[u8]) {
    let options = delta::DeltaOptions::default().with_limits(limits());
    let _ = delta::delta_header(data, &options);
    if let Ok(rebuilt) = delta::apply_delta(MINIMAL, data, &options) {
        decode_holds(&rebuilt);
    }
    let Ok(made) = delta::make_delta(MINIMAL, data, &options) else {
        return;
    };
    let back = delta::apply_delta(MINIMAL, &made.bytes, &options).expect("a delta made applies");
    assert!(back == data, "the delta rebuilds other bytes");
}

/// Read `data` as an artifact (JSON) and rebuild its versions both ways; and store
/// the 0xFF-separated pieces of `data` as successive versions of one artifact, each
/// of which must rebuild exactly.
pub fn vault_holds(data: &[u8]) {
    if let Ok(art) = serde_json::from_slice::<Artifact>(data) {
        if let Ok(all) = rebuild_versions("fuzz", &art) {
            for (i, whole) in all.iter().enumerate() {
                let one = rebuild_version("fuzz", &art, i as u64 + 1).expect("rebuilds alone");
                assert_eq!(&one, whole, "version {} rebuilt alone differs", i + 1);
            }
        }
    }
    let versions: Vec<String> = data
        .split(|b| *b == 0xFF)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let mut vault = ArtifactVault::default();
    let mut writer = VaultWriter::new(&mut vault);
    let meta = NewContent {
        name: Some("fuzz.txt"),
        ..NewContent::default()
    };
    let mut stored = Vec::new();
    for text in &versions {
        let s = writer.add(text, &meta).expect("any text is stored");
        stored.push((s.artifact, s.version, text));
    }
    for (id, v, text) in stored {
        assert_eq!(
            writer.content(&id, v.get()).expect("rebuilds"),
            *text,
            "{id} v{v}"
        );
    }
}

/// Parse `data` as a FIND query and run it on the full fixture.
pub fn find_holds(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(query) = smg_engine::query::parse(text) else {
        return;
    };
    let (doc, _) = codec::from_bytes(FULL, &Limits::default()).expect("the fixture reads");
    let _ = smg_engine::query::run(&doc, &query);
}

/// Open `data` as a memory file with its stored search index, lazily (from a file)
/// and whole, and search it, by words and with a query vector of the seeds' model
/// (so that stored embeddings are scanned): errors are fine, panics are not.
pub fn index_holds(data: &[u8]) {
    let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
    std::io::Write::write_all(&mut file, data).expect("written");
    if let Ok(Some(lazy)) = Retriever::open_packed(file.path(), &limits()) {
        let _ = lazy.search_turns("database decision", 5);
        let mut options = SearchOptions::new(5);
        options.vector = Some(QueryVector {
            model: "all-MiniLM-L6-v2".into(),
            values: vec![0.5, -1.0, 0.25, 1.0],
        });
        let _ = lazy.search("database decision", &options);
        for i in 0..lazy.turn_count().min(3) {
            let _ = lazy.turn(i);
        }
    }
    if let Ok((doc, _)) = codec::from_bytes(data, &limits()) {
        if let Ok(whole) = Retriever::open(data, &doc, &limits()) {
            let _ = whole.search_turns("database decision", 5);
        }
    }
}

/// Validate `data`, without JSON-LD (a finding is fine, a panic is not).
pub fn validate_holds(data: &[u8]) {
    let mut options = ValidateOptions::default();
    options.limits = limits();
    options.jsonld = false;
    let _ = validate(data, &options);
}
