//! Deep-archive blocks: base64 of the compressed UTF-8 JSON array of a block's turns.

use base64::Engine;

use crate::envelope::{brotli_compress, read_bounded};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::{Block, CompressionMethod, Turn};

/// Decode one block's turns, bounded by `limits`.
///
/// Only this block is decompressed; the rest of the archive is not touched.
pub fn decode_block(
    block: &Block,
    method: CompressionMethod,
    limits: &Limits,
) -> Result<Vec<Turn>> {
    let fail = |detail: String| Error::Block {
        block: block.id,
        detail,
    };
    let raw = base64::engine::general_purpose::STANDARD
        .decode(block.compressed_data.as_bytes())
        .map_err(|e| fail(format!("compressedData is not valid base64: {e}")))?;
    let json = match method {
        CompressionMethod::None => raw,
        CompressionMethod::Brotli => read_bounded(
            brotli::Decompressor::new(&raw[..], 1 << 16),
            limits.max_bytes,
            "brotli",
            0,
        )
        .map_err(|e| fail(e.to_string()))?,
        CompressionMethod::Gzip => read_bounded(
            flate2::read::GzDecoder::new(&raw[..]),
            limits.max_bytes,
            "gzip",
            0,
        )
        .map_err(|e| fail(e.to_string()))?,
    };
    serde_json::from_slice::<Vec<Turn>>(&json)
        .map_err(|e| fail(format!("decoded data is not a JSON array of turns: {e}")))
}

/// Encode turns as a block's `compressedData` (Brotli at `quality`).
pub fn encode_turns(turns: &[Turn], quality: i32) -> Result<String> {
    let json = crate::canonical::to_vec(turns)?;
    let mut out = Vec::with_capacity(json.len() / 4);
    brotli_compress(&json, quality, &mut out)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

/// Parse a `turnRange` of the form `"first-last"` with `first <= last`.
///
/// ```
/// assert_eq!(smg_format::parse_turn_range("1-50"), Some((1, 50)));
/// assert_eq!(smg_format::parse_turn_range("7"), Some((7, 7)));
/// assert_eq!(smg_format::parse_turn_range("9-3"), None);
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
mod tests {
    use super::*;

    fn turn(n: u64, content: &str) -> Turn {
        Turn {
            turn: n,
            role: "user".into(),
            content: content.into(),
            ..Turn::default()
        }
    }

    #[test]
    fn block_round_trip_is_byte_exact() {
        let turns = vec![
            turn(1, "héllo\r\n\u{0}tabs\t"),
            turn(2, "```rust\nfn main() {}\n```"),
        ];
        let block = Block {
            id: 1,
            turn_range: "1-2".into(),
            compressed_data: encode_turns(&turns, 9).unwrap(),
            ..Block::default()
        };
        let back = decode_block(&block, CompressionMethod::Brotli, &Limits::default()).unwrap();
        assert_eq!(back, turns);
    }

    #[test]
    fn corrupt_blocks_name_the_block() {
        let block = Block {
            id: 7,
            turn_range: "1-1".into(),
            compressed_data: "!!!".into(),
            ..Block::default()
        };
        let err = decode_block(&block, CompressionMethod::Brotli, &Limits::default()).unwrap_err();
        assert_eq!(err.code(), "SMG-E117");
        assert!(err.to_string().contains("block 7"));
    }

    #[test]
    fn gzip_and_stored_blocks_decode() {
        use std::io::Write;
        let json = br#"[{"turn":1,"role":"user","content":"hi"}]"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(json).unwrap();
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        for (method, data) in [
            (CompressionMethod::Gzip, b64(&gz.finish().unwrap())),
            (CompressionMethod::None, b64(json)),
        ] {
            let block = Block {
                id: 1,
                turn_range: "1".into(),
                compressed_data: data,
                ..Block::default()
            };
            assert_eq!(
                decode_block(&block, method, &Limits::default()).unwrap()[0].content,
                "hi"
            );
        }
    }
}
