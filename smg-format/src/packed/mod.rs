//! The packed layout (envelope encoding 3): the document's head, each artifact and each
//! archive block in its own section, and an index at the end, so that a reader opens
//! the index and reads only the sections it needs (spec §2.5).
//!
//! Extension sections carry what other tools store beside the document (smg's own
//! search index is one); readers that do not know a section skip it.
//!
//! ```
//! use smg_format::packed::{list_extensions, read_extension, with_extension};
//! use smg_format::{to_bytes, Document, Encoding, WriteOptions};
//! let doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let packed = to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
//! let with = with_extension(&packed, "notes", b"hello").unwrap();
//! assert_eq!(read_extension(&with, "notes").unwrap(), Some(&b"hello"[..]));
//! assert_eq!(list_extensions(&with).unwrap()[0].0, "notes");
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::envelope::{
    brotli_compress, brotli_compress_pieces, HEADER_LEN, MAGIC, PACKED, PIECE_BYTES,
};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::{Artifact, BlockData, CompressionMethod, Document};

mod extension;
mod json;
mod reader;

pub use extension::{list_extensions, read_extension, with_extension};
pub use reader::PackedArchive;

use json::{brotli_document, brotli_json};

/// Where a section lies in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Section {
    offset: u64,
    length: u64,
    crc32: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexBlock {
    id: u64,
    turn_range: crate::model::TurnRange,
    section: Section,
}

/// The index at the end of a packed file (canonical JSON, uncompressed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Index {
    head: Section,
    compression_method: CompressionMethod,
    /// Artifact id → the section (in `artifact_sections`) that holds it.
    artifacts: BTreeMap<String, usize>,
    /// Brotli streams of JSON objects `{id: artifact}`, grouped up to
    /// [`ARTIFACT_GROUP_BYTES`] so small files share one compression context.
    artifact_sections: Vec<Section>,
    blocks: Vec<IndexBlock>,
    /// Derived data by name ([`extension`]): never part of the document.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    extensions: BTreeMap<String, extension::Extension>,
}

/// Raw JSON bytes of artifacts grouped into one section (one artifact may exceed it).
const ARTIFACT_GROUP_BYTES: usize = 256 << 10;

struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn section(&mut self, bytes: &[u8]) -> Section {
        let s = Section {
            offset: self.out.len() as u64,
            length: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        };
        self.out.extend_from_slice(bytes);
        s
    }
}

/// Artifacts are read often and their sections are small: always the best quality.
const ARTIFACT_LEVEL: i32 = 11;

/// The canonical JSON of a group of artifacts, to be compressed as one section.
fn artifact_group(group: &mut serde_json::Map<String, serde_json::Value>) -> Vec<u8> {
    let all = serde_json::Value::Object(std::mem::take(group));
    crate::canonical::to_canonical_json_value(&all)
}

/// The groups' sections, compressed on every core and written in order: at the best
/// quality a large vault is most of a packed write (55 MB of artifacts, 70 s on one
/// core), and each group is compressed alone, so the bytes are the same.
fn artifact_sections(w: &mut Writer, groups: &[Vec<u8>]) -> Result<Vec<Section>> {
    let compressed: Vec<Vec<u8>> = groups
        .par_iter()
        .map(|json| {
            let mut buf = Vec::with_capacity(json.len() / 4);
            brotli_compress(json, ARTIFACT_LEVEL, &mut buf)?;
            Ok(buf)
        })
        .collect::<Result<_>>()?;
    Ok(compressed.iter().map(|c| w.section(c)).collect())
}

/// Default Brotli quality of a head of at most [`PIECE_BYTES`].
const HEAD_LEVEL: i32 = 9;

/// Default Brotli quality of a larger head, compressed in pieces side by side: the
/// 155 MB head of a million-turn memory took 23.5 s to convert at 9 in one stream,
/// 5.7 s at 5 in pieces on two cores, for a file 2.3 % larger (bench/RESULTS.md).
const LARGE_HEAD_LEVEL: i32 = 5;

/// Write `doc` in the packed layout; the head is Brotli at `level` (by default
/// [`HEAD_LEVEL`], or [`LARGE_HEAD_LEVEL`] over [`PIECE_BYTES`]), in
/// [`PIECE_BYTES`] pieces compressed side by side when larger.
pub(crate) fn pack(head: Document, level: Option<i32>) -> Result<Vec<u8>> {
    pack_as(head, level, true)
}

/// [`pack`] as smg wrote the packed layout before heads went in pieces (2026-11): the
/// head one stream at quality 9, whatever its size — what a delta file made then
/// rebuilds its target with.
pub(crate) fn pack_one_stream(head: Document) -> Result<Vec<u8>> {
    pack_as(head, Some(HEAD_LEVEL), false)
}

fn pack_as(mut head: Document, level: Option<i32>, pieces: bool) -> Result<Vec<u8>> {
    let mut w = Writer {
        out: Vec::with_capacity(1 << 20),
    };
    w.out.extend_from_slice(&MAGIC);
    w.out.extend_from_slice(&[1, PACKED, 0, 0]);
    w.out.extend_from_slice(&[0; 12]);
    let mut artifacts = BTreeMap::new();
    let mut artifact_sections = Vec::new();
    if let Some(arts) = head
        .artifact_vault
        .as_mut()
        .and_then(|v| v.artifacts.as_mut())
    {
        let mut groups = Vec::new();
        let mut group = serde_json::Map::new();
        let mut group_bytes = 0;
        for (id, art) in std::mem::take(arts) {
            let value =
                serde_json::to_value(&art).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            group_bytes += crate::canonical::to_canonical_json_value(&value).len();
            artifacts.insert(id.clone(), groups.len());
            group.insert(id, value);
            if group_bytes >= ARTIFACT_GROUP_BYTES {
                groups.push(artifact_group(&mut group));
                group_bytes = 0;
            }
        }
        if !group.is_empty() {
            groups.push(artifact_group(&mut group));
        }
        artifact_sections = self::artifact_sections(&mut w, &groups)?;
    }
    let mut blocks = Vec::new();
    let method = head
        .deep_archive
        .as_ref()
        .and_then(|a| a.compression_method)
        .unwrap_or_default();
    let mut compressed = head
        .deep_archive
        .iter()
        .flat_map(|a| a.blocks())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|b| compressed_section(b, method))
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    for b in head
        .deep_archive
        .iter_mut()
        .flat_map(|a| a.blocks.iter_mut().flatten())
    {
        let section = match compressed.next().flatten() {
            Some(bytes) => w.section(&bytes),
            None => w.section(crate::archive::raw_bytes(b, method)?.0),
        };
        b.compressed_data = BlockData::default();
        blocks.push(IndexBlock {
            id: b.id,
            turn_range: b.turn_range.clone(),
            section,
        });
    }
    let json = crate::canonical::to_vec(&head)?;
    drop(head);
    let large = json.len() > PIECE_BYTES;
    let quality = level.unwrap_or(if large { LARGE_HEAD_LEVEL } else { HEAD_LEVEL });
    let mut compressed = Vec::with_capacity(json.len() / 4);
    if pieces {
        let all = [std::borrow::Cow::Borrowed(json.as_slice())];
        brotli_compress_pieces(&all, json.len(), quality, Vec::new(), &mut compressed)?;
    } else {
        brotli_compress(&json, quality, &mut compressed)?;
    }
    drop(json);
    let head = w.section(&compressed);
    let index = Index {
        head,
        compression_method: method,
        artifacts,
        artifact_sections,
        blocks,
        extensions: BTreeMap::new(),
    };
    finish(&mut w.out, &index)?;
    Ok(w.out)
}

/// Append `index` to `out` (the header and sections) and point the header at it.
fn finish(out: &mut Vec<u8>, index: &Index) -> Result<()> {
    let index_json = crate::canonical::to_vec(index)?;
    let index_offset = out.len() as u64;
    out.extend_from_slice(&index_json);
    out[8..16].copy_from_slice(&index_offset.to_le_bytes());
    out[16..20].copy_from_slice(&crc32fast::hash(&index_json).to_le_bytes());
    Ok(())
}

fn read_index(header: &[u8], index_bytes: &[u8], limits: &Limits) -> Result<Index> {
    let crc = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
    let actual = crc32fast::hash(index_bytes);
    if crc != actual {
        return Err(Error::Checksum {
            expected: crc,
            actual,
        });
    }
    if index_bytes.len() as u64 > limits.max_bytes {
        return Err(Error::TooLarge {
            limit: limits.max_bytes,
        });
    }
    serde_json::from_slice(index_bytes)
        .map_err(|e| Error::Truncated(format!("the packed index is malformed: {e}")))
}

fn index_offset(header: &[u8], file_len: u64) -> Result<u64> {
    let offset = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
    if offset < HEADER_LEN as u64 || offset > file_len {
        return Err(Error::Truncated(format!(
            "the packed index offset {offset} lies outside the file ({file_len} bytes)"
        )));
    }
    Ok(offset)
}

/// Check a section against the bytes it points into and return them.
fn slice<'a>(bytes: &'a [u8], s: &Section, what: &dyn Fn() -> String) -> Result<&'a [u8]> {
    let end = s
        .offset
        .checked_add(s.length)
        .filter(|e| *e <= bytes.len() as u64);
    let Some(end) = end else {
        return Err(Error::Truncated(format!(
            "{} lies past the end of the file",
            what()
        )));
    };
    let data = &bytes[s.offset as usize..end as usize];
    let actual = crc32fast::hash(data);
    if actual != s.crc32 {
        return Err(Error::Decompress {
            encoding: "packed",
            detail: format!("{} fails its CRC-32 check", what()),
        });
    }
    Ok(data)
}

/// Read a whole packed file back into the document it was packed from.
pub(crate) fn unpack(bytes: &[u8], limits: &Limits) -> Result<Document> {
    let offset = index_offset(bytes, bytes.len() as u64)? as usize;
    let index = read_index(bytes, &bytes[offset..], limits)?;
    let read = |s: &Section, what: &dyn Fn() -> String| slice(bytes, s, what).map(Cow::Borrowed);
    assemble(&index, limits, &read, Assembly::Whole).map(|(doc, _)| doc)
}

/// [`unpack`] for a check: the document without its semantic graph's nodes and edges
/// (each parsed and dropped) and without its blocks' data (each section read and
/// checked), with how many nodes and edges there were.
pub(crate) fn unpack_counted(bytes: &[u8], limits: &Limits) -> Result<(Document, (u64, u64))> {
    let offset = index_offset(bytes, bytes.len() as u64)? as usize;
    let index = read_index(bytes, &bytes[offset..], limits)?;
    let read = |s: &Section, what: &dyn Fn() -> String| slice(bytes, s, what).map(Cow::Borrowed);
    assemble(&index, limits, &read, Assembly::Counted)
}

/// What [`assemble`] keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Assembly {
    /// The whole document.
    Whole,
    /// As [`unpack_counted`] says.
    Counted,
}

/// A section's bytes, checked against its CRC-32; `what` names it in errors.
type ReadSection<'a> = dyn Fn(&Section, &dyn Fn() -> String) -> Result<Cow<'a, [u8]>> + 'a;

/// The document a packed file holds, given its index and the bytes of each section
/// it names (the head, the artifact sections, the archive blocks; never the
/// extensions).
fn assemble(
    index: &Index,
    limits: &Limits,
    read: &ReadSection<'_>,
    assembly: Assembly,
) -> Result<(Document, (u64, u64))> {
    let head = read(&index.head, &|| "the head section".into())?;
    let what = || "the head section".into();
    let (mut doc, counted) = match assembly {
        Assembly::Whole => (brotli_document(&head, limits, &what)?, (0, 0)),
        Assembly::Counted => json::brotli_document_counted(&head, limits, &what)?,
    };
    drop(head);
    if !index.artifacts.is_empty() {
        let mut arts = BTreeMap::new();
        for (i, s) in index.artifact_sections.iter().enumerate() {
            let what = || format!("artifact section {i}");
            let group: BTreeMap<String, Artifact> = brotli_json(&read(s, &what)?, limits, &what)?;
            arts.extend(group);
        }
        if arts.len() != index.artifacts.len()
            || index.artifacts.keys().any(|k| !arts.contains_key(k))
        {
            return Err(Error::Truncated(
                "the packed index and the artifact sections list different artifacts".into(),
            ));
        }
        doc.artifact_vault
            .get_or_insert_with(Default::default)
            .artifacts = Some(arts);
    }
    let (method, clear) = (index.compression_method, doc.version.blocks_in_clear());
    let blocks: Vec<_> = doc
        .deep_archive
        .iter_mut()
        .flat_map(|a| a.blocks.iter_mut().flatten())
        .collect();
    let ids = |i: &Index| i.blocks.iter().map(|b| b.id).collect::<Vec<_>>();
    if blocks.iter().map(|b| b.id).collect::<Vec<_>>() != ids(index) {
        return Err(Error::Truncated(
            "the packed index and the head list different archive blocks".into(),
        ));
    }
    for (b, entry) in blocks.into_iter().zip(&index.blocks) {
        let data = read(&entry.section, &|| {
            format!("archive block {}'s section", entry.id)
        })?;
        if assembly == Assembly::Whole {
            b.compressed_data = match clear {
                true => held_in_clear(b.id, &data, method, limits)?,
                false => BlockData::from_bytes(data.into_owned()),
            };
        }
    }
    Ok((doc, counted))
}

/// Brotli quality of a block section made from turns held in the clear (format 2):
/// what ingest gave format 1's blocks, quick to write at a million turns.
const SECTION_QUALITY: i32 = 2;

/// The section of a block whose turns are held in the clear, compressed by the
/// archive's `method`; `None` for a block already compressed.
fn compressed_section(
    b: &crate::model::Block,
    method: CompressionMethod,
) -> Result<Option<Vec<u8>>> {
    let Some(json) = b.compressed_data.turns_json() else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(json.len() / 4);
    match method {
        CompressionMethod::Brotli => brotli_compress(json.as_bytes(), SECTION_QUALITY, &mut out)?,
        CompressionMethod::None => out.extend_from_slice(json.as_bytes()),
        CompressionMethod::Gzip => {
            use std::io::Write;
            let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::default());
            gz.write_all(json.as_bytes())
                .and_then(|()| gz.finish().map(drop))
                .map_err(|e| Error::InvalidArgument(format!("gzip failed: {e}")))?;
        }
    }
    Ok(Some(out))
}

/// A block section's turns, held in the clear as a format 2 document holds them.
fn held_in_clear(
    id: u64,
    data: &[u8],
    method: CompressionMethod,
    limits: &Limits,
) -> Result<BlockData> {
    let json = crate::archive::decompress(id, data, method, limits)?;
    let json = String::from_utf8(json).map_err(|e| Error::Block {
        block: id,
        detail: format!("its turns are not UTF-8: {e}"),
    })?;
    Ok(BlockData::from_read_json(json))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::archive::parse_turn_range;
    use crate::model::Turn;
    use crate::{
        archive::{append_turns, ArchiveOptions},
        Encoding, WriteOptions,
    };
    use std::path::Path;

    fn doc_with_code() -> (Document, Vec<Turn>) {
        let mut doc = crate::read_file(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid/full.smg"),
            &Limits::default(),
        )
        .unwrap()
        .0;
        let turns: Vec<Turn> = (7..40)
            .map(|n| {
                Turn::new(
                    crate::model::Ordinal::new(n).unwrap(),
                    crate::model::role::ASSISTANT,
                    format!(
                        "v{n}:\n```python app.py\nimport os\n\ndef main():\n    return {}\n```\n",
                        n % 5
                    ),
                )
            })
            .collect();
        let opts = ArchiveOptions {
            max_turns: 10,
            ..ArchiveOptions::default()
        };
        append_turns(&mut doc, &turns, &opts).unwrap();
        (doc, turns)
    }

    #[test]
    fn packs_and_unpacks_losslessly() {
        let (doc, _) = doc_with_code();
        let packed = crate::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
        let (back, enc) = crate::from_bytes(&packed, &Limits::default()).unwrap();
        assert_eq!(enc, Encoding::Packed);
        assert_eq!(back, doc);
        assert_eq!(
            crate::to_bytes(&back, &WriteOptions::new(Encoding::Packed)).unwrap(),
            packed
        );
        let report =
            crate::validate::validate(&packed, &crate::validate::ValidateOptions::default());
        assert!(report.is_valid(), "{:?}", report.findings);
    }

    /// A document whose head is over [`PIECE_BYTES`] of JSON: the fixture with 12,000
    /// more nodes of generated text.
    pub(crate) fn with_large_head() -> Document {
        let (mut doc, _) = doc_with_code();
        let nodes = doc.semantic_graph.as_mut().unwrap().nodes.as_mut().unwrap();
        let model = nodes[0].clone();
        // Words from a small generator: text that compresses as prose does, not to nothing.
        let mut state = 7u64;
        let mut word = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            [
                "ledger", "postgres", "deploy", "alice", "rust", "budget", "tuesday", "cache",
            ][(state >> 61) as usize]
        };
        for i in 0..12_000 {
            let mut n = model.clone();
            n.id = crate::model::NonEmpty::new(format!("n_bulk_{i}")).unwrap();
            n.content = Some((0..60).map(|_| word()).collect::<Vec<_>>().join(" "));
            nodes.push(n);
        }
        assert!(crate::canonical::to_vec(&doc).unwrap().len() > PIECE_BYTES);
        doc
    }

    #[test]
    fn a_large_head_is_compressed_in_pieces_the_same_on_any_thread_count() {
        let doc = with_large_head();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| pack(doc.clone(), None).unwrap())
        };
        let packed = on(1);
        assert_eq!(packed, on(3), "the bytes do not depend on the threads");
        let (back, _) = crate::from_bytes(&packed, &Limits::default()).unwrap();
        assert_eq!(back, doc);
        let at_nine = pack(doc.clone(), Some(HEAD_LEVEL)).unwrap();
        assert!(at_nine.len() < packed.len(), "a level given is kept");
        assert_eq!(
            crate::from_bytes(&at_nine, &Limits::default()).unwrap().0,
            doc
        );
    }

    #[test]
    fn reads_single_turns_lazily_and_survives_a_corrupt_block() {
        let (doc, turns) = doc_with_code();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.smg");
        let mut bytes = crate::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let archive = PackedArchive::open(&path, &Limits::default()).unwrap();
        for t in &turns {
            assert_eq!(&archive.turn(t.turn.get()).unwrap(), t);
        }
        let all: Vec<Turn> = (0..archive.block_count())
            .flat_map(|k| archive.block(k).unwrap())
            .collect();
        let archived = crate::archive::read_archive(&doc, &Limits::default()).unwrap();
        assert_eq!(
            all,
            archived.into_iter().map(|a| a.turn).collect::<Vec<_>>()
        );
        assert_eq!(
            archive.block(archive.block_count()).unwrap_err().code(),
            "SMG-E020"
        );
        assert_eq!(
            archive.turn(1).unwrap().content,
            "Let's build the checkout with Stripe."
        );
        assert_eq!(archive.turn(10_000).unwrap_err().code(), "SMG-E020");

        let last = archive.index.blocks.last().unwrap().clone();
        bytes[last.section.offset as usize + 3] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let archive = PackedArchive::open(&path, &Limits::default()).unwrap();
        let (first, _) = parse_turn_range(&last.turn_range).unwrap();
        let err = archive.turn(first).unwrap_err();
        assert_eq!(err.code(), "SMG-E006");
        assert!(
            err.to_string()
                .contains(&format!("archive block {}", last.id)),
            "{err}"
        );
        assert_eq!(
            archive.turn(7).unwrap(),
            turns[0],
            "other blocks stay readable"
        );
    }

    #[test]
    fn a_truncated_or_lying_file_is_refused_clearly() {
        let (doc, _) = doc_with_code();
        let bytes = crate::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
        let cut = &bytes[..bytes.len() / 2];
        assert_eq!(
            crate::from_bytes(cut, &Limits::default())
                .unwrap_err()
                .code(),
            "SMG-E005"
        );
        let mut lying = bytes.clone();
        lying[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(
            crate::from_bytes(&lying, &Limits::default())
                .unwrap_err()
                .code(),
            "SMG-E005"
        );
        let mut bad_index = bytes;
        let n = bad_index.len();
        bad_index[n - 2] ^= 1;
        assert_eq!(
            crate::from_bytes(&bad_index, &Limits::default())
                .unwrap_err()
                .code(),
            "SMG-E008"
        );
    }

    #[test]
    fn a_file_read_by_its_sections_gives_the_whole_files_document() {
        let (doc, _) = doc_with_code();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.smg");
        let packed = crate::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
        let bytes = with_extension(&packed, "x-index", &[7u8; 50_000]).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let limits = Limits::default();
        assert_eq!(
            crate::read_file(&path, &limits).unwrap(),
            (doc.clone(), Encoding::Packed)
        );
        let file = PackedArchive::open_if_packed(&path, &limits)
            .unwrap()
            .unwrap();
        assert_eq!(file.file_len(), bytes.len() as u64);
        assert_eq!(file.extensions(), list_extensions(&bytes).unwrap());
        assert_eq!(file.extensions(), [("x-index".to_string(), 50_000, true)]);

        // The extension is not read: damage to it does not stop the document.
        let (at, _) = file.extension_offset("x-index").unwrap();
        let mut damaged = bytes.clone();
        damaged[at as usize + 10] ^= 0xff;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(crate::read_file(&path, &limits).unwrap().0, doc);

        // Damage to what the document is made of is refused as from_bytes refuses it.
        let block = file.index.blocks[0].clone();
        let mut damaged = bytes.clone();
        damaged[block.section.offset as usize + 3] ^= 0xff;
        let cut = bytes[..bytes.len() / 2].to_vec();
        let mut lying = bytes.clone();
        lying[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        for (bad, code) in [
            (damaged, "SMG-E006"),
            (cut, "SMG-E005"),
            (lying, "SMG-E005"),
        ] {
            std::fs::write(&path, &bad).unwrap();
            let whole = crate::from_bytes(&bad, &limits).unwrap_err();
            let by_sections = crate::read_file(&path, &limits).unwrap_err();
            assert_eq!(
                (whole.code(), by_sections.code()),
                (code, code),
                "{by_sections}"
            );
        }
        std::fs::write(&path, &bytes).unwrap();
        let few = Limits {
            max_nodes: 1,
            ..limits
        };
        assert_eq!(
            crate::read_file(&path, &few).unwrap_err().code(),
            crate::from_bytes(&bytes, &few).unwrap_err().code()
        );

        // Any other encoding is read whole.
        let brotli = crate::to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
        std::fs::write(&path, &brotli).unwrap();
        assert!(crate::file::read_packed(&path, &limits).unwrap().is_none());
        assert_eq!(
            crate::read_file(&path, &limits).unwrap(),
            (doc, Encoding::Brotli)
        );
    }
}
