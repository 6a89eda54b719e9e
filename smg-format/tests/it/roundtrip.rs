//! Property tests: any document survives write → read unchanged in every encoding,
//! canonical bytes are a fixed point, and no input makes the reader panic.

use crate::support::{document, text, turn};
use proptest::prelude::*;
use smg_format::{
    model::{Block, Turn},
    validate::ValidateOptions,
    Document, Encoding, Limits, WriteOptions,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn write_then_read_gives_the_same_document(doc in document()) {
        for enc in [Encoding::Json, Encoding::Brotli, Encoding::Zstd] {
            let options = WriteOptions::new(enc).with_level(if enc == Encoding::Brotli { 5 } else { 3 });
            let bytes = smg_format::to_bytes(&doc, &options).unwrap();
            let (back, found) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
            prop_assert_eq!(found, enc);
            prop_assert_eq!(&back, &doc);
            prop_assert_eq!(smg_format::to_bytes(&back, &options).unwrap(), bytes);
        }
    }

    #[test]
    fn canonical_bytes_do_not_depend_on_the_path_taken(doc in document()) {
        let direct = smg_format::codec::to_canonical_json(&doc).unwrap();
        let via_value = smg_format::codec::to_canonical_json_value(&serde_json::to_value(&doc).unwrap());
        prop_assert_eq!(direct, via_value);
    }

    #[test]
    fn a_document_has_no_difference_from_itself_and_differs_from_another(a in document(), b in document()) {
        prop_assert!(smg_format::diff::diff(&a, &a).is_empty());
        prop_assert!(smg_format::diff::diff(&b, &b.clone()).is_empty());
        // Canonical bytes tell whether two documents differ; the semantic diff agrees.
        let canonical = |d: &smg_format::Document| smg_format::codec::to_canonical_json_value(&serde_json::to_value(d).unwrap());
        prop_assert_eq!(smg_format::diff::diff(&a, &b).is_empty(), canonical(&a) == canonical(&b));
    }

    #[test]
    fn archived_turns_come_back_byte_for_byte(turns in prop::collection::vec(turn(), 0..8)) {
        use smg_format::model::FormatVersion;
        // Compressed (format 1) and in the clear (format 2).
        for version in [FormatVersion::V1, FormatVersion::CURRENT] {
            let data = smg_format::archive::encode_turns_for(&version, &turns, 5).unwrap();
            prop_assert_eq!(data.turns_json().is_some(), version.blocks_in_clear());
            let block = Block::new(1, smg_format::model::TurnRange::span(1, 1), data);
            let back = smg_format::archive::decode_block(&block, smg_format::model::CompressionMethod::Brotli, None, &Limits::default()).unwrap();
            prop_assert_eq!(&back, &turns);
        }
    }

    #[test]
    fn archived_chats_with_code_come_back_byte_for_byte(
        chunks in prop::collection::vec((text(), any::<bool>(), 0..4usize, "(rust|py|js)?", any::<bool>()), 1..12),
    ) {
        let bodies = ["fn main() {\n    run();\n}\n\n", "import os\nimport sys\n\nprint(os.name)\n", "a\nb\nc\nd\ne\n", "x = 1\r\ny = 2\r\nz = 3\r\nw = 4\r\n"];
        let turns: Vec<Turn> = chunks
            .into_iter()
            .enumerate()
            .map(|(i, (prose, fenced, which, lang, tilde))| {
                let fence = if tilde { "~~~" } else { "```" };
                let content = if fenced {
                    format!("{prose}\n{fence}{lang}\n{}{fence}\n{prose}", bodies[which])
                } else {
                    prose
                };
                Turn::new(smg_format::model::Ordinal::new(i as u64 + 1).unwrap(), smg_format::model::role::USER, content)
            })
            .collect();
        let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        let options = smg_format::archive::ArchiveOptions::default();
        smg_format::archive::append_turns(&mut doc, &turns, &options).unwrap();
        for enc in [Encoding::Json, Encoding::Packed] {
            let bytes = smg_format::to_bytes(&doc, &WriteOptions::new(enc)).unwrap();
            let (back, _) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
            for t in &turns {
                prop_assert_eq!(&smg_format::archive::find_turn(&back, t.turn.get(), &Limits::default()).unwrap(), t);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = smg_format::validate::validate(&bytes, &ValidateOptions::default());
        let _ = smg_format::from_bytes(&bytes, &Limits::default());
    }

    #[test]
    fn arbitrary_payloads_behind_a_valid_header_never_panic(
        payload in prop::collection::vec(any::<u8>(), 0..512),
        encoding in 1u8..=3,
        declared in 0u64..4096,
    ) {
        let mut bytes = smg_format::envelope::MAGIC.to_vec();
        bytes.extend_from_slice(&[1, encoding, 0, 0]);
        bytes.extend_from_slice(&declared.to_le_bytes());
        bytes.extend_from_slice(&crc32fast_hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let _ = smg_format::validate::validate(&bytes, &ValidateOptions::default());
    }

    #[test]
    fn mutated_documents_never_panic(doc in document(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = smg_format::codec::to_canonical_json(&doc).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let _ = smg_format::validate::validate(&bytes, &ValidateOptions::default());
    }
}

/// The checksum does not matter to these tests (a mismatch is one more error path).
fn crc32fast_hash(payload: &[u8]) -> u32 {
    payload
        .iter()
        .fold(0u32, |a, b| a.rotate_left(5) ^ u32::from(*b))
}
