use super::*;
use crate::test_support::full_fixture;

fn grown(doc: &Document) -> Document {
    let mut next = doc.clone();
    next.metadata.project_name = Some("grown".into());
    next.metadata.tags = Some(vec!["checkpoint".into()]);
    next
}

fn round_trip(base: &[u8], target: &[u8], options: &DeltaOptions) -> Vec<u8> {
    let delta = make_delta(base, target, options).unwrap().bytes;
    assert_eq!(apply_delta(base, &delta, options).unwrap(), target);
    delta
}

#[test]
fn every_encoding_and_level_is_rebuilt_byte_for_byte() {
    let doc = full_fixture();
    let options = DeltaOptions::default();
    for write in [
        WriteOptions::new(Encoding::Json),
        WriteOptions::new(Encoding::Brotli),
        WriteOptions::new(Encoding::Brotli).with_level(9),
        WriteOptions::new(Encoding::Zstd).with_level(3),
        WriteOptions::new(Encoding::Packed),
    ] {
        let base = to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
        let target = to_bytes(&grown(&doc), &write).unwrap();
        let delta = round_trip(&base, &target, &options);
        let header = delta_header(&delta, &options).unwrap();
        assert_eq!(header.patch, PatchKind::Document, "{write:?}");
        assert_eq!(header.level, write.level, "{write:?}");
        assert!(delta.len() < 600, "{write:?}: {} bytes", delta.len());
    }
}

#[test]
fn a_target_no_encoding_reproduces_is_patched_as_bytes() {
    let doc = full_fixture();
    let base = to_bytes(&doc, &WriteOptions::new(Encoding::Json)).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&base).unwrap();
    let pretty = serde_json::to_vec_pretty(&value).unwrap();
    let delta = round_trip(&base, &pretty, &DeltaOptions::default());
    let header = delta_header(&delta, &DeltaOptions::default()).unwrap();
    assert_eq!(header.patch, PatchKind::File);
}

#[test]
fn another_base_is_refused_and_chains_work() {
    let options = DeltaOptions::default();
    let write = WriteOptions::new(Encoding::Brotli);
    let v1_doc = full_fixture();
    let v2_doc = grown(&v1_doc);
    let mut v3_doc = v2_doc.clone();
    v3_doc.metadata.total_exchanges = Some(99);
    let [v1, v2, v3] = [&v1_doc, &v2_doc, &v3_doc].map(|d| to_bytes(d, &write).unwrap());
    let d2 = make_delta(&v1, &v2, &options).unwrap().bytes;
    let d3 = make_delta(&v2, &v3, &options).unwrap().bytes;
    let rebuilt = apply_delta(&apply_delta(&v1, &d2, &options).unwrap(), &d3, &options);
    assert_eq!(rebuilt.unwrap(), v3);
    let err = apply_delta(&v1, &d3, &options).unwrap_err();
    assert_eq!(err.code(), "SMG-E160");
    assert!(err.to_string().contains(&hex::encode(Sha256::digest(&v2))));
}

#[test]
fn damaged_deltas_are_refused_without_panicking() {
    let options = DeltaOptions::default();
    let write = WriteOptions::new(Encoding::Zstd);
    let base = to_bytes(&full_fixture(), &write).unwrap();
    let target = to_bytes(&grown(&full_fixture()), &write).unwrap();
    let delta = make_delta(&base, &target, &options).unwrap().bytes;
    for cut in [0, 3, 11, 40, delta.len() - 1] {
        let err = apply_delta(&base, &delta[..cut], &options).unwrap_err();
        assert_eq!(err.code(), "SMG-E161", "cut at {cut}: {err}");
    }
    let mut flipped = delta.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x55;
    let err = apply_delta(&base, &flipped, &options).unwrap_err();
    assert!(
        matches!(err.code(), "SMG-E161" | "SMG-E012" | "SMG-E010"),
        "{err}"
    );
}

#[test]
fn encrypted_files_give_an_encrypted_delta_and_the_same_ciphertext() {
    let options = DeltaOptions::default().with_passphrase(b"correct horse");
    let write = WriteOptions::new(Encoding::Brotli);
    let seal = |d: &Document| {
        crate::crypto::encrypt(&to_bytes(d, &write).unwrap(), b"correct horse", 600_000).unwrap()
    };
    let base = seal(&full_fixture());
    let target = seal(&grown(&full_fixture()));
    let delta = round_trip(&base, &target, &options);
    assert!(is_encrypted(&delta));
    let err = apply_delta(&base, &delta, &DeltaOptions::default()).unwrap_err();
    assert_eq!(err.code(), "SMG-E140");
    let wrong = DeltaOptions::default().with_passphrase(b"wrong");
    assert_eq!(
        apply_delta(&base, &delta, &wrong).unwrap_err().code(),
        "SMG-E141"
    );
}

#[test]
fn a_delta_made_before_packed_heads_went_in_pieces_still_rebuilds_its_target() {
    let options = DeltaOptions::default();
    let target_doc = crate::packed::tests::with_large_head();
    let base = to_bytes(&full_fixture(), &WriteOptions::new(Encoding::Packed)).unwrap();
    let now = to_bytes(&target_doc, &WriteOptions::new(Encoding::Packed)).unwrap();
    let then = crate::packed::pack_one_stream(target_doc).unwrap();
    assert_ne!(now, then);
    let made = make_delta(&base, &now, &options).unwrap();
    assert_eq!(made.header.patch, PatchKind::Document);
    assert_eq!(apply_delta(&base, &made.bytes, &options).unwrap(), now);
    // The delta the older smg made of the file it wrote: the same patch and header,
    // but for the target.
    let header = DeltaHeader {
        target: FileRef::of(&then),
        ..made.header.clone()
    };
    let header_len = u32::from_le_bytes(made.bytes[8..PREFIX_LEN].try_into().unwrap());
    let patch = &made.bytes[PREFIX_LEN + header_len as usize..];
    let json = crate::canonical::to_vec(&header).unwrap();
    let mut old = DELTA_MAGIC.to_vec();
    old.extend([DELTA_VERSION, 0, 0, 0]);
    old.extend((json.len() as u32).to_le_bytes());
    old.extend(json);
    old.extend(patch);
    assert_eq!(apply_delta(&base, &old, &options).unwrap(), then);
}
