//! Format 1 to format 2: every block's turns taken out of their compression and held
//! in the clear, as canonical JSON (spec §13).

use rayon::prelude::*;

use super::{decompress, raw_bytes};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::{BlockData, Document, FormatVersion};

/// What [`migrate`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Migrated {
    /// The version the document was of.
    pub from: String,
    /// Blocks whose turns were taken out of their compression.
    pub blocks: usize,
    /// Whether a signature was removed: it covered the archive as format 1 spells it
    /// (`smg sign` signs the migrated file anew).
    pub signature_removed: bool,
}

/// Bring `doc` to [`FormatVersion::CURRENT`]: each compressed block's turns
/// decompressed (bounded by `limits`) and held as their canonical JSON, the version
/// set. Every turn reads back as it did, byte for byte; a document already current is
/// left as it is. A block that does not decode is `SMG-E117`, and `doc` is untouched.
/// A signature over the blocks as they were is removed (it would no longer verify).
///
/// ```
/// use smg_format::archive::{append_turns, migrate, read_archive, ArchiveOptions};
/// use smg_format::model::{FormatVersion, Ordinal, Timestamp, Turn, role};
/// let mut doc = smg_format::Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
/// doc.version = FormatVersion::V1;
/// let turns = vec![Turn::new(Ordinal::FIRST, role::USER, "hi")];
/// append_turns(&mut doc, &turns, &ArchiveOptions::default()).unwrap();
/// let done = migrate(&mut doc, &Default::default()).unwrap();
/// assert_eq!((done.from.as_str(), done.blocks), ("1.0", 1));
/// assert_eq!(doc.version, FormatVersion::CURRENT);
/// assert_eq!(read_archive(&doc, &Default::default()).unwrap()[0].turn.content, "hi");
/// ```
pub fn migrate(doc: &mut Document, limits: &Limits) -> Result<Migrated> {
    let from = doc.version.to_string();
    if doc.version.major() >= FormatVersion::CURRENT.major() {
        return Ok(Migrated {
            from,
            ..Migrated::default()
        });
    }
    let blocks = clear_blocks(doc, limits)?;
    doc.version = FormatVersion::CURRENT;
    let signature_removed = blocks > 0 && doc.metadata.extra.remove("signature").is_some();
    Ok(Migrated {
        from,
        blocks,
        signature_removed,
    })
}

/// Whether `doc` is of format 2 and holds a block compressed (taken from a format 1
/// file by a merge, or unsealed from a sealed section made by format 1).
pub(crate) fn unsettled(doc: &Document) -> bool {
    doc.version.blocks_in_clear()
        && doc
            .deep_archive
            .iter()
            .flat_map(|a| a.blocks())
            .any(|b| b.compressed_data.turns_json().is_none() && !b.compressed_data.is_empty())
}

/// `doc` as its version writes it: a format 2 document's compressed blocks taken out
/// of their compression (a copy only when one is).
pub(crate) fn settled(doc: &Document) -> Result<std::borrow::Cow<'_, Document>> {
    if !unsettled(doc) {
        return Ok(std::borrow::Cow::Borrowed(doc));
    }
    let mut doc = doc.clone();
    clear_blocks(&mut doc, &Limits::default())?;
    Ok(std::borrow::Cow::Owned(doc))
}

/// [`settled`], in place.
pub(crate) fn settle(doc: &mut Document) -> Result<()> {
    if unsettled(doc) {
        clear_blocks(doc, &Limits::default())?;
    }
    Ok(())
}

/// Every compressed block of `doc` held in the clear, as canonical JSON; how many.
/// Nothing changes unless every block decodes.
fn clear_blocks(doc: &mut Document, limits: &Limits) -> Result<usize> {
    let Some(archive) = doc.deep_archive.as_mut() else {
        return Ok(0);
    };
    let method = archive.compression_method.unwrap_or_default();
    let clear: Vec<Option<BlockData>> = archive
        .blocks()
        .par_iter()
        .map(|b| {
            if b.compressed_data.turns_json().is_some() || b.compressed_data.is_empty() {
                return Ok(None);
            }
            let (raw, method) = raw_bytes(b, method)?;
            let json = decompress(b.id, raw, method, limits)?;
            BlockData::canonical_turns(&json)
                .map(Some)
                .map_err(|why| Error::Block {
                    block: b.id,
                    detail: format!("decoded data is {why}"),
                })
        })
        .collect::<Result<_>>()?;
    let mut blocks = 0;
    for (b, data) in archive.blocks.iter_mut().flatten().zip(clear) {
        if let Some(data) = data {
            b.compressed_data = data;
            blocks += 1;
        }
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{append_turns, read_archive, ArchiveOptions};
    use crate::model::{role, Ordinal, Timestamp, Turn};

    fn v1(turns: usize) -> Document {
        let mut doc = Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
        doc.version = FormatVersion::V1;
        let turns: Vec<Turn> = (1..=turns as u64)
            .map(|n| {
                Turn::new(
                    Ordinal::new(n).unwrap(),
                    role::USER,
                    format!("turn {n}\r\n ü"),
                )
            })
            .collect();
        let options = ArchiveOptions {
            max_turns: 3,
            ..ArchiveOptions::default()
        };
        append_turns(&mut doc, &turns, &options).unwrap();
        doc
    }

    #[test]
    fn every_block_comes_out_in_the_clear_and_every_turn_reads_the_same() {
        let mut doc = v1(7);
        let before = read_archive(&doc, &Limits::default()).unwrap();
        let blocks = doc.deep_archive.as_ref().unwrap().blocks();
        assert!(blocks
            .iter()
            .all(|b| b.compressed_data.turns_json().is_none()));
        crate::sign::sign(
            &mut doc,
            &crate::sign::generate_key().unwrap().0,
            &Timestamp::from_static("2025-12-05T00:00:00Z"),
        )
        .unwrap();
        let done = migrate(&mut doc, &Limits::default()).unwrap();
        assert_eq!((done.blocks, done.signature_removed), (3, true));
        let blocks = doc.deep_archive.as_ref().unwrap().blocks();
        assert!(blocks
            .iter()
            .all(|b| b.compressed_data.turns_json().is_some()));
        assert_eq!(read_archive(&doc, &Limits::default()).unwrap(), before);
        let text = crate::codec::to_canonical_json(&doc).unwrap();
        assert_eq!(crate::codec::from_json_slice(&text).unwrap(), doc);
        // Twice is once.
        let again = migrate(&mut doc, &Limits::default()).unwrap();
        assert_eq!((again.from.as_str(), again.blocks), ("2.0", 0));
    }

    #[test]
    fn a_block_that_does_not_decode_leaves_the_document_as_it_was() {
        let mut doc = v1(4);
        let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
        blocks[1].compressed_data = BlockData::from_bytes(b"not brotli".to_vec());
        let before = doc.clone();
        let err = migrate(&mut doc, &Limits::default()).unwrap_err();
        assert_eq!(err.code(), "SMG-E117");
        assert_eq!(doc, before);
    }

    #[test]
    fn a_format_2_document_holding_a_compressed_block_is_written_in_the_clear() {
        // As a merge leaves it: format 2, one block still as a format 1 file held it.
        let mut doc = v1(4);
        doc.version = FormatVersion::CURRENT;
        assert!(unsettled(&doc));
        let key = crate::sign::generate_key().unwrap().0;
        crate::sign::sign(
            &mut doc,
            &key,
            &Timestamp::from_static("2025-12-05T00:00:00Z"),
        )
        .unwrap();
        let text = crate::codec::to_canonical_json(&doc).unwrap();
        let streamed = crate::codec::into_bytes(
            doc.clone(),
            &crate::WriteOptions::new(crate::Encoding::Json),
        )
        .unwrap();
        assert_eq!(streamed, text);
        let back = crate::codec::from_json_slice(&text).unwrap();
        assert!(!unsettled(&back));
        let blocks = back.deep_archive.as_ref().unwrap().blocks();
        assert!(blocks
            .iter()
            .all(|b| b.compressed_data.turns_json().is_some()));
        assert_eq!(
            read_archive(&back, &Limits::default()).unwrap(),
            read_archive(&doc, &Limits::default()).unwrap()
        );
        crate::sign::verify(&back, None).unwrap();
    }
}
