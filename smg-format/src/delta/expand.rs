//! Archive blocks in a document patch.
//!
//! Compressed data never matches across versions: a block filled up by an append is
//! compressed anew, and one changed turn changes every byte after it. So a target
//! block that rewrites a base block (their turn ranges overlap, their data differ)
//! travels as the JSON it compresses, which matches the base block's JSON, and is
//! compressed again, at the quality that reproduces it, when the delta is applied.
//! The rewritten base blocks' JSON joins the patch's reference prefix. A block with
//! no counterpart in the base stays compressed: its data is new either way, and
//! already compressed.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::archive::{block_json, encode_json, parse_turn_range};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::{Block, BlockData, CompressionMethod, Document};

/// Brotli qualities to try, the ones smg writes first (ingest 5, archive default 11).
const QUALITIES: [i32; 12] = [5, 11, 9, 0, 1, 2, 3, 4, 6, 7, 8, 10];

/// A target block carried as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ExpandedBlock {
    /// Position in the target's `deepArchive.blocks`.
    pub index: usize,
    /// The Brotli quality that compresses it back to the same bytes.
    pub quality: i32,
    /// Length of its JSON in the patch.
    pub bytes: u64,
}

fn brotli_blocks(doc: &Document) -> &[Block] {
    match &doc.deep_archive {
        Some(a) if a.compression_method.unwrap_or_default() == CompressionMethod::Brotli => {
            a.blocks()
        }
        _ => &[],
    }
}

/// Whether two blocks' turn ranges overlap.
fn overlap(a: &Block, b: &Block) -> bool {
    match (
        parse_turn_range(&a.turn_range),
        parse_turn_range(&b.turn_range),
    ) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => false,
    }
}

/// The base blocks no target block shares, whose JSON joins the prefix.
pub(super) fn base_only(base: &Document, target: &Document, limits: &Limits) -> Vec<usize> {
    let shared: HashSet<&BlockData> = brotli_blocks(target)
        .iter()
        .map(|b| &b.compressed_data)
        .collect();
    brotli_blocks(base)
        .iter()
        .enumerate()
        .filter(|(_, b)| !shared.contains(&b.compressed_data))
        .filter(|(_, b)| block_json(b, limits).is_ok())
        .map(|(i, _)| i)
        .collect()
}

/// The patch's reference: the base's canonical JSON, then the JSON of `listed` blocks.
pub(super) fn prefix(base: &Document, listed: &[usize], limits: &Limits) -> Result<Vec<u8>> {
    let mut out = crate::canonical::to_vec(base)?;
    let blocks = brotli_blocks(base);
    for &i in listed {
        let block = blocks.get(i).ok_or_else(|| {
            Error::BadDelta(format!(
                "the delta names base block {i}, which the base lacks"
            ))
        })?;
        out.extend(block_json(block, limits)?);
    }
    Ok(out)
}

/// What the patch holds for `target`: its canonical JSON with the data of the blocks
/// the base lacks left empty, then those blocks' JSON; and the blocks so carried.
pub(super) fn content(
    base: &Document,
    target: &Document,
    limits: &Limits,
) -> Result<(Vec<u8>, u64, Vec<ExpandedBlock>)> {
    let known: HashSet<&BlockData> = brotli_blocks(base)
        .iter()
        .map(|b| &b.compressed_data)
        .collect();
    let kept: HashSet<&BlockData> = brotli_blocks(target)
        .iter()
        .map(|b| &b.compressed_data)
        .collect();
    let rewritten: Vec<&Block> = brotli_blocks(base)
        .iter()
        .filter(|b| !kept.contains(&b.compressed_data))
        .collect();
    let mut doc = target.clone();
    let mut carried = Vec::new();
    let mut raws = Vec::new();
    for (index, block) in brotli_blocks(target).iter().enumerate() {
        if known.contains(&block.compressed_data) || !rewritten.iter().any(|b| overlap(b, block)) {
            continue;
        }
        let Ok(json) = block_json(block, limits) else {
            continue;
        };
        let found = QUALITIES
            .into_iter()
            .find(|&q| encode_json(&json, q).is_ok_and(|data| data == block.compressed_data));
        if let Some(quality) = found {
            carried.push(ExpandedBlock {
                index,
                quality,
                bytes: json.len() as u64,
            });
            raws.push(json);
        }
    }
    if let Some(blocks) = doc.deep_archive.as_mut().and_then(|a| a.blocks.as_mut()) {
        for c in &carried {
            blocks[c.index].compressed_data = BlockData::default();
        }
    }
    let mut out = crate::canonical::to_vec(&doc)?;
    let json_bytes = out.len() as u64;
    for raw in raws {
        out.extend(raw);
    }
    Ok((out, json_bytes, carried))
}

/// The target document back from the patch's content.
pub(super) fn rebuild(
    content: &[u8],
    json_bytes: u64,
    carried: &[ExpandedBlock],
) -> Result<Document> {
    let split = usize::try_from(json_bytes)
        .ok()
        .filter(|&n| n <= content.len())
        .ok_or_else(|| {
            Error::BadDelta(format!(
                "jsonBytes {json_bytes} is past the end of the patch"
            ))
        })?;
    let mut doc = crate::codec::from_json_slice(&content[..split])?;
    let mut rest = &content[split..];
    let blocks = doc.deep_archive.as_mut().and_then(|a| a.blocks.as_mut());
    let blocks = match (blocks, carried.is_empty()) {
        (Some(b), _) => b,
        (None, true) => return Ok(doc),
        (None, false) => {
            return Err(Error::BadDelta(
                "carried blocks, but the target has no archive".into(),
            ))
        }
    };
    for c in carried {
        let n = usize::try_from(c.bytes).unwrap_or(usize::MAX);
        if n > rest.len() || c.index >= blocks.len() || !(0..=11).contains(&c.quality) {
            return Err(Error::BadDelta(format!(
                "carried block {} does not fit the patch",
                c.index
            )));
        }
        let (json, tail) = rest.split_at(n);
        blocks[c.index].compressed_data = encode_json(json, c.quality)?;
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(Error::BadDelta(format!(
            "{} bytes of the patch are not accounted for",
            rest.len()
        )));
    }
    Ok(doc)
}
