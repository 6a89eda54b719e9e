//! Deep-archive blocks: base64 of the compressed UTF-8 JSON array of a block's turns.

use std::cell::Cell;
use std::collections::HashMap;

use crate::envelope::{brotli_compress, read_bounded, read_bounded_into};
use crate::error::{Error, Result};
use crate::limits::{Bound, Limits};
use crate::model::{ArtifactVault, Block, BlockData, CompressionMethod, Turn};
use serde_json::value::RawValue;
use serde_json::Value;

mod code;
mod key_points;
mod migrate;
mod naming;
mod stored;
mod writer;

pub(crate) use stored::{parse as parse_turns, Stored};

pub use migrate::{migrate, Migrated};
pub(crate) use migrate::{settle, settled};
pub use writer::{append_turns, append_turns_with, AppendReport, ArchiveOptions};

/// Resolves an artifact version's full content, for turns stored as `parts`.
pub(crate) type Resolve<'r> = dyn FnMut(&str, u64) -> Result<String> + 'r;

/// Decode one block's turns, bounded by `limits`; turns stored as `parts` get their
/// code back from `vault`.
///
/// Only this block is decompressed; the rest of the archive is not touched.
pub fn decode_block(
    block: &Block,
    method: CompressionMethod,
    vault: Option<&ArtifactVault>,
    limits: &Limits,
) -> Result<Vec<Turn>> {
    decode_block_with(block, method, vault, limits, &every_source)
}

/// [`decode_block`], keeping of each turn's source record what `sources` keeps: for
/// a reader that needs few of them (a scan that parses only the records whose text
/// may hold what it seeks).
pub fn decode_block_with(
    block: &Block,
    method: CompressionMethod,
    vault: Option<&ArtifactVault>,
    limits: &Limits,
    sources: &Sources<'_>,
) -> Result<Vec<Turn>> {
    Ok(read_block(block, method, vault, limits, sources)?
        .into_iter()
        .map(|t| t.turn)
        .collect())
}

/// The JSON text a Brotli block compresses (what [`encode_json`] was given).
pub(crate) fn block_json(block: &Block, limits: &Limits) -> Result<Vec<u8>> {
    let fail = |detail: String| Error::Block {
        block: block.id,
        detail,
    };
    if block.compressed_data.turns_json().is_some() {
        return Err(fail(
            "its turns are held in the clear, not in Brotli".into(),
        ));
    }
    let (raw, _) = raw_bytes(block, CompressionMethod::Brotli)?;
    read_bounded(
        brotli::Decompressor::new(raw, 1 << 16),
        limits.for_input(raw.len() as u64),
        "brotli",
        0,
    )
    .map_err(|e| fail(e.to_string()))
}

/// A block's turns as stored (with `parts` where code moved to the vault).
pub(crate) fn stored_turns(
    id: u64,
    raw: &[u8],
    method: CompressionMethod,
    limits: &Limits,
) -> Result<Vec<serde_json::Value>> {
    parse_stored(id, &decompress(id, raw, method, limits)?)
}

/// A block's stored turns from its decompressed JSON.
pub(crate) fn parse_stored(id: u64, json: &[u8]) -> Result<Vec<serde_json::Value>> {
    serde_json::from_slice(json).map_err(|e| Error::Block {
        block: id,
        detail: format!("decoded data is not a JSON array of turns: {e}"),
    })
}

/// A block's data decompressed: the JSON array of its stored turns.
pub(crate) fn decompress(
    id: u64,
    raw: &[u8],
    method: CompressionMethod,
    limits: &Limits,
) -> Result<Vec<u8>> {
    if method == CompressionMethod::None {
        return Ok(raw.to_vec());
    }
    let mut out = Vec::new();
    decompress_into(id, raw, method, limits, &mut out)?;
    Ok(out)
}

/// A compressed block's data decompressed into `out`, which is cleared first.
fn decompress_into(
    id: u64,
    raw: &[u8],
    method: CompressionMethod,
    limits: &Limits,
    out: &mut Vec<u8>,
) -> Result<()> {
    let max = limits.for_input(raw.len() as u64);
    match method {
        CompressionMethod::Brotli => {
            read_bounded_into(crate::brotli_memory::decompressor(raw), max, "brotli", out)
        }
        CompressionMethod::Gzip => {
            read_bounded_into(flate2::read::GzDecoder::new(raw), max, "gzip", out)
        }
        CompressionMethod::None => {
            out.clear();
            out.extend_from_slice(raw);
            Ok(())
        }
    }
    .map_err(|e| Error::Block {
        block: id,
        detail: e.to_string(),
    })
}

/// The most room a thread keeps for the next block it decompresses: blocks hold a few
/// hundred kilobytes; room a larger one took is given back.
const KEPT_ROOM: usize = 8 << 20;

thread_local! {
    /// Each thread's room for the block it decompresses: blocks decoded one after
    /// another reuse it, rather than each taking fresh pages from the system (which
    /// the kernel must zero: most of the cost of decoding a large archive).
    static ROOM: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// `f` of a block's decompressed JSON, decompressed into this thread's reused room.
pub(crate) fn with_block_json<T>(
    id: u64,
    raw: &[u8],
    method: CompressionMethod,
    limits: &Limits,
    f: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<T> {
    if method == CompressionMethod::None {
        return f(raw);
    }
    let mut room = ROOM.take();
    let got = decompress_into(id, raw, method, limits, &mut room).and_then(|()| f(&room));
    if room.capacity() <= KEPT_ROOM {
        room.clear();
        ROOM.set(room);
    }
    got
}

/// One stored turn as the turn that was said: `parts` joined back into `content`,
/// which may not grow past [`Limits::max_turn_bytes`] (parts can name one artifact
/// many times over), and its source record as `sources` keeps it.
pub(crate) fn materialize(
    block: u64,
    stored: Stored<'_>,
    cache: &mut HashMap<(String, u64), String>,
    resolve: &mut Resolve<'_>,
    limits: &Limits,
    sources: &Sources<'_>,
) -> Result<Turn> {
    let Stored {
        mut turn,
        parts,
        source,
    } = stored;
    if let Some(parts) = parts {
        let at = || format!("archive block {block}, turn {}", turn.turn);
        turn.content = join_parts(&parts, cache, resolve, limits, &at).map_err(|e| match e {
            Error::Block { .. } | Error::Artifact { .. } | Error::OverLimit(_) => e,
            other => Error::Block {
                block,
                detail: other.to_string(),
            },
        })?;
    }
    check_turn(&turn, block, limits)?;
    if let Some(raw) = source {
        let kept = sources(&turn, raw).map_err(|e| Error::Block {
            block,
            detail: format!("the source record of turn {} does not read: {e}", turn.turn),
        })?;
        if let Some(kept) = kept {
            turn.extra.insert("source".into(), kept);
        }
    }
    Ok(turn)
}

/// What a reader of the archive keeps of each turn's source record (its `source`
/// member: the record the turn was imported from), given the turn and the record's
/// JSON text: the value kept as the turn's `source`, or nothing. Parsed, a large
/// archive's records take several times the memory of their text, and most readers
/// need few of them; [`read_archive`] keeps each one, parsed ([`every_source`]).
pub type Sources<'a> = dyn Fn(&Turn, &RawValue) -> serde_json::Result<Option<Value>> + Sync + 'a;

/// [`Sources`] that keeps every record, parsed.
pub fn every_source(_: &Turn, record: &RawValue) -> serde_json::Result<Option<Value>> {
    serde_json::from_str(record.get()).map(Some)
}

/// [`Sources`] that keeps no record: for readers of the turns alone.
pub fn no_source(_: &Turn, _: &RawValue) -> serde_json::Result<Option<Value>> {
    Ok(None)
}

/// A decoded turn's content is within [`Limits::max_turn_bytes`].
pub(crate) fn check_turn(turn: &Turn, block: u64, limits: &Limits) -> Result<()> {
    let at = format!("archive block {block}, turn {}", turn.turn);
    Ok(limits.check(Bound::TurnBytes, turn.content.len() as u64, &at)?)
}

/// A turn's content from its `parts`: text as is, artifacts by version.
fn join_parts(
    parts: &serde_json::Value,
    cache: &mut HashMap<(String, u64), String>,
    resolve: &mut Resolve<'_>,
    limits: &Limits,
    at: &dyn Fn() -> String,
) -> Result<String> {
    let parts = parts
        .as_array()
        .ok_or_else(|| Error::InvalidArgument("`parts` is not an array".into()))?;
    let mut out = String::new();
    for p in parts {
        if let Some(text) = p.get("text").and_then(|t| t.as_str()) {
            out.push_str(text);
        } else if let (Some(id), Some(v)) = (
            p.get("artifact").and_then(|a| a.as_str()),
            p.get("version").and_then(|v| v.as_u64()),
        ) {
            let key = (id.to_string(), v);
            if !cache.contains_key(&key) {
                let content = resolve(id, v)?;
                cache.insert(key.clone(), content);
            }
            let piece = &cache[&key];
            let grown = (out.len() + piece.len()) as u64;
            limits.check(Bound::TurnBytes, grown, &at())?;
            out.push_str(piece);
        } else {
            return Err(Error::InvalidArgument(format!(
                "a part is neither text nor an artifact reference: {p}"
            )));
        }
    }
    Ok(out)
}

/// The highest turn number the document has used: in its archive blocks, and in the
/// archive blocks of its sealed sections (whose numbers stay taken while sealed).
/// New turns are numbered after it.
pub fn last_turn(doc: &crate::Document) -> u64 {
    let archived = doc
        .deep_archive
        .iter()
        .flat_map(|a| a.blocks())
        .filter_map(|b| parse_turn_range(&b.turn_range))
        .map(|r| r.1);
    archived.max().unwrap_or(0).max(last_sealed_turn(doc))
}

/// The highest turn number of the archive blocks in the document's sealed sections.
pub(crate) fn last_sealed_turn(doc: &crate::Document) -> u64 {
    doc.sealed_sections
        .iter()
        .flatten()
        .flat_map(|s| s.turn_ranges.iter().flatten())
        .filter_map(|r| parse_turn_range(r))
        .map(|r| r.1)
        .max()
        .unwrap_or(0)
}

/// One archived turn of a fully loaded document (only its block is decompressed).
pub fn find_turn(doc: &crate::Document, n: u64, limits: &Limits) -> Result<Turn> {
    let missing = || Error::InvalidArgument(format!("turn {n} is not in the archive"));
    let archive = doc.deep_archive.as_ref().ok_or_else(missing)?;
    let block = archive
        .blocks()
        .iter()
        .find(|b| parse_turn_range(&b.turn_range).is_some_and(|(a, z)| a <= n && n <= z))
        .ok_or_else(missing)?;
    let method = archive.compression_method.unwrap_or_default();
    decode_block(block, method, doc.artifact_vault.as_ref(), limits)?
        .into_iter()
        .find(|t| t.turn == n)
        .ok_or_else(missing)
}

/// An archived turn as said, with the artifact versions its content holds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ArchivedTurn {
    /// The turn, content byte for byte.
    pub turn: Turn,
    /// `(artifact id, version)` of each vault part of the stored turn, in order.
    pub artifacts: Vec<(String, u64)>,
}

/// Every turn of the archive in order, blocks decoded in parallel.
pub fn read_archive(doc: &crate::Document, limits: &Limits) -> Result<Vec<ArchivedTurn>> {
    read_archive_with(doc, limits, &every_source)
}

/// [`read_archive`], keeping of each turn's source record what `sources` keeps: for
/// a caller that needs less than whole turns (a large archive read back to be
/// appended to need not hold every turn's source record at once).
///
/// ```
/// use smg_format::archive::{append_turns, every_source, no_source, read_archive_with, ArchiveOptions};
/// use smg_format::model::Turn;
/// let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let mut turn = Turn::new(smg_format::model::Ordinal::FIRST, smg_format::model::role::USER, "hi");
/// turn.extra.insert("source".into(), serde_json::json!({"line": 1}));
/// append_turns(&mut doc, &[turn], &ArchiveOptions::default()).unwrap();
/// let back = read_archive_with(&doc, &Default::default(), &no_source).unwrap();
/// assert!(back[0].turn.extra.is_empty());
/// let whole = read_archive_with(&doc, &Default::default(), &every_source).unwrap();
/// assert_eq!(whole[0].turn.extra["source"]["line"], 1);
/// ```
pub fn read_archive_with(
    doc: &crate::Document,
    limits: &Limits,
    sources: &Sources<'_>,
) -> Result<Vec<ArchivedTurn>> {
    use rayon::prelude::*;
    let Some(archive) = doc.deep_archive.as_ref() else {
        return Ok(Vec::new());
    };
    let method = archive.compression_method.unwrap_or_default();
    let vault = doc.artifact_vault.as_ref();
    let blocks: Vec<Vec<ArchivedTurn>> = archive
        .blocks()
        .par_iter()
        .map(|block| read_block(block, method, vault, limits, sources))
        .collect::<Result<_>>()?;
    Ok(blocks.into_iter().flatten().collect())
}

pub(crate) fn read_block(
    block: &Block,
    method: CompressionMethod,
    vault: Option<&ArtifactVault>,
    limits: &Limits,
    sources: &Sources<'_>,
) -> Result<Vec<ArchivedTurn>> {
    let (raw, method) = raw_bytes(block, method)?;
    let mut resolve = |id: &str, v: u64| {
        let art = vault
            .and_then(|a| a.artifacts.as_ref())
            .and_then(|a| a.get(id))
            .ok_or_else(|| Error::Block {
                block: block.id,
                detail: format!("a turn refers to artifact `{id}`, which is not in the vault"),
            })?;
        crate::vault::rebuild_version(id, art, v)
    };
    let mut cache = HashMap::new();
    with_block_json(block.id, raw, method, limits, |json| {
        let stored = stored::parse(block.id, json)?;
        let at = format!("archive block {}", block.id);
        limits.check(Bound::Turns, stored.len() as u64, &at)?;
        stored
            .into_iter()
            .map(|stored| {
                let artifacts = stored.artifacts();
                let turn =
                    materialize(block.id, stored, &mut cache, &mut resolve, limits, sources)?;
                Ok(ArchivedTurn { turn, artifacts })
            })
            .collect()
    })
}

/// A block's bytes and how they are compressed (`method`, the archive's, or none for
/// turns held in the clear), or `SMG-E117` naming it when its text is not base64.
pub(crate) fn raw_bytes(
    block: &Block,
    method: CompressionMethod,
) -> Result<(&[u8], CompressionMethod)> {
    let method = match block.compressed_data.turns_json() {
        Some(_) => CompressionMethod::None,
        None => method,
    };
    let bytes = block.compressed_data.bytes().map_err(|e| Error::Block {
        block: block.id,
        detail: format!("compressedData is not valid base64: {e}"),
    })?;
    Ok((bytes, method))
}

/// Encode turns as a block's `compressedData` (Brotli at `quality`).
pub fn encode_turns(turns: &[Turn], quality: i32) -> Result<BlockData> {
    encode_json(&crate::canonical::to_vec(turns)?, quality)
}

/// Turns as a block of a document of `version`: in the clear for format 2, else
/// Brotli at `quality`.
pub fn encode_turns_for(
    version: &crate::model::FormatVersion,
    turns: &[Turn],
    quality: i32,
) -> Result<BlockData> {
    encode_json_for(version, crate::canonical::to_vec(turns)?, quality)
}

/// A block's canonical JSON as a block of a document of `version`.
pub(crate) fn encode_json_for(
    version: &crate::model::FormatVersion,
    json: Vec<u8>,
    quality: i32,
) -> Result<BlockData> {
    if version.blocks_in_clear() {
        let json = String::from_utf8(json)
            .map_err(|e| Error::InvalidArgument(format!("a block's JSON is not UTF-8: {e}")))?;
        return Ok(BlockData::from_turns_json(json));
    }
    encode_json(&json, quality)
}

/// Brotli of a block's JSON.
pub(crate) fn encode_json(json: &[u8], quality: i32) -> Result<BlockData> {
    let mut out = Vec::with_capacity(json.len() / 4);
    brotli_compress(json, quality, &mut out)?;
    Ok(out.into())
}

/// Parse a `turnRange` of the form `"first-last"` with `first <= last`.
///
/// ```
/// assert_eq!(smg_format::archive::parse_turn_range("1-50"), Some((1, 50)));
/// assert_eq!(smg_format::archive::parse_turn_range("7"), Some((7, 7)));
/// assert_eq!(smg_format::archive::parse_turn_range("9-3"), None);
/// ```
pub fn parse_turn_range(range: &str) -> Option<(u64, u64)> {
    let num = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => {
            let n = num(range)?;
            (n, n)
        }
    };
    (a <= b).then_some((a, b))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn turn(n: u64, content: &str) -> Turn {
        Turn::new(
            crate::model::Ordinal::new(n).unwrap(),
            crate::model::role::USER,
            content,
        )
    }

    #[test]
    fn block_round_trip_is_byte_exact() {
        let turns = vec![
            turn(1, "héllo\r\n\u{0}tabs\t"),
            turn(2, "```rust\nfn main() {}\n```"),
        ];
        let block = Block::new(
            1,
            crate::model::TurnRange::new("1-2").unwrap(),
            encode_turns(&turns, 9).unwrap(),
        );
        let back =
            decode_block(&block, CompressionMethod::Brotli, None, &Limits::default()).unwrap();
        assert_eq!(back, turns);
    }

    #[test]
    fn corrupt_blocks_name_the_block() {
        let block = Block::new(
            7,
            crate::model::TurnRange::new("1-1").unwrap(),
            BlockData::from_base64("!!!"),
        );
        let err =
            decode_block(&block, CompressionMethod::Brotli, None, &Limits::default()).unwrap_err();
        assert_eq!(err.code(), "SMG-E117");
        assert!(err.to_string().contains("block 7"));
    }

    #[test]
    fn gzip_and_stored_blocks_decode() {
        use std::io::Write;
        let json = br#"[{"turn":1,"role":"user","content":"hi"}]"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(json).unwrap();
        for (method, data) in [
            (CompressionMethod::Gzip, gz.finish().unwrap()),
            (CompressionMethod::None, json.to_vec()),
        ] {
            let block = Block::new(1, crate::model::TurnRange::new("1").unwrap(), data.into());
            assert_eq!(
                decode_block(&block, method, None, &Limits::default()).unwrap()[0].content,
                "hi"
            );
        }
    }
}
