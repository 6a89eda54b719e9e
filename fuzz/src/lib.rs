//! What every fuzz target checks: the importers and decoders never panic, and what
//! ingest writes passes the whole validator (a finding is a crash, so that libFuzzer
//! keeps the input).

use smg_engine::ingest::{ingest_into_bytes, Format, IngestOptions, Input, Silent};
use smg_format::validate::{validate, ValidateOptions};
use smg_format::{codec, Document, Encoding, Limits, WriteOptions};

/// Ingest `data` as `format`: an error is a fine answer; a file must validate and
/// read back as it was written.
pub fn ingest_holds(format: Format, data: &[u8]) {
    let mut options = IngestOptions::default();
    options.format = format;
    let input = Input {
        name: "export".into(),
        bytes: data.to_vec(),
    };
    let doc = Document::new("1970-01-01T00:00:00Z");
    let write = WriteOptions::new(Encoding::Brotli);
    let Ok((_, bytes)) = ingest_into_bytes(doc, vec![input], &options, &Silent, &write) else {
        return;
    };
    let report = validate(&bytes, &ValidateOptions::default());
    assert!(
        report.is_valid(),
        "ingest wrote an invalid file: {:?}",
        report.findings
    );
    let (doc, _) = codec::from_bytes(&bytes, &Limits::default()).expect("what ingest wrote reads");
    let again = smg_format::to_bytes(&doc, &write).expect("and writes again");
    assert_eq!(again, bytes, "writing what was read gives other bytes");
}

/// Decode `data` as a file: an error is a fine answer; a document read must write
/// again and read back the same.
pub fn decode_holds(data: &[u8]) {
    let limits = Limits::default().with_max_bytes(64 << 20);
    let Ok((doc, _)) = codec::from_bytes(data, &limits) else {
        return;
    };
    let json = codec::to_canonical_json(&doc).expect("a document read writes");
    let (back, _) = codec::from_bytes(&json, &limits).expect("and reads back");
    assert_eq!(codec::to_canonical_json(&back).expect("writes"), json);
}
