//! The deep archive: every original turn, in compressed blocks, and the vector index.

use super::block_data::InlineTurns;
use super::{BlockData, Timestamp, TurnRange};
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::fields::read_with_extra;

use super::Extra;

/// How archive blocks are compressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompressionMethod {
    /// Brotli (the default and what smg writes).
    #[default]
    Brotli,
    /// gzip (RFC 1952), read for compatibility.
    Gzip,
    /// Stored uncompressed.
    None,
}

/// The cold tier.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeepArchive {
    /// Compression of every block's `compressedData`; absent means brotli.
    pub compression_method: Option<CompressionMethod>,
    /// Blocks of turns, in turn order.
    pub blocks: Option<Vec<Block>>,
    /// Optional embeddings.
    pub vector_index: Option<VectorIndex>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl DeepArchive {
    /// The blocks, or an empty slice.
    pub fn blocks(&self) -> &[Block] {
        self.blocks.as_deref().unwrap_or_default()
    }
}

/// One block of turns: base64 of their compressed UTF-8 JSON array
/// (`compressedData`), or in format 2's JSON layout the array itself (`turns`).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Block number, unique within the archive.
    pub id: u64,
    /// Inclusive turn range, `"first-last"` (e.g. `"1-50"`).
    pub turn_range: TurnRange,
    /// Timestamps of the block's first and last turns that have one.
    pub time_range: Option<TimeRange>,
    /// What the block is about.
    pub summary: Option<String>,
    /// Key points of the block.
    pub key_points: Option<Vec<String>>,
    /// The scope of every turn in the block (blocks never mix scopes); absent means
    /// personal.
    pub scope: Option<super::Scope>,
    /// The turns: compressed (base64 in the file), or in the clear
    /// ([`BlockData::turns_json`]).
    pub compressed_data: BlockData,
    /// Fields this version does not know, kept verbatim.
    pub extra: Extra,
}

/// A block as the file spells it: its turns under one of two names.
#[skip_serializing_none]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Spelled<'a> {
    id: u64,
    turn_range: &'a TurnRange,
    time_range: Option<&'a TimeRange>,
    summary: Option<&'a String>,
    key_points: Option<&'a Vec<String>>,
    scope: Option<super::Scope>,
    compressed_data: Option<&'a BlockData>,
    turns: Option<&'a BlockData>,
    #[serde(flatten)]
    extra: &'a Extra,
}

impl Serialize for Block {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let plain = self.compressed_data.turns_json().is_some();
        Spelled {
            id: self.id,
            turn_range: &self.turn_range,
            time_range: self.time_range.as_ref(),
            summary: self.summary.as_ref(),
            key_points: self.key_points.as_ref(),
            scope: self.scope,
            compressed_data: (!plain).then_some(&self.compressed_data),
            turns: plain.then_some(&self.compressed_data),
            extra: &self.extra,
        }
        .serialize(s)
    }
}

/// A block as read, before its turns' two spellings are made one.
struct Read {
    id: u64,
    turn_range: TurnRange,
    time_range: Option<TimeRange>,
    summary: Option<String>,
    key_points: Option<Vec<String>>,
    scope: Option<super::Scope>,
    compressed_data: Option<BlockData>,
    turns: Option<InlineTurns>,
    extra: Extra,
}

read_with_extra!(Read {
    id: req "id",
    turn_range: req "turnRange",
    time_range: opt "timeRange",
    summary: opt "summary",
    key_points: opt "keyPoints",
    scope: opt "scope",
    compressed_data: opt "compressedData",
    turns: opt "turns",
});

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let r = Read::deserialize(d)?;
        let compressed_data = match (r.compressed_data, r.turns) {
            (Some(data), None) => data,
            (None, Some(InlineTurns(data))) => data,
            (None, None) => return Err(D::Error::missing_field("compressedData")),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "a block holds its turns as compressedData or as turns, not both",
                ))
            }
        };
        Ok(Block {
            id: r.id,
            turn_range: r.turn_range,
            time_range: r.time_range,
            summary: r.summary,
            key_points: r.key_points,
            scope: r.scope,
            compressed_data,
            extra: r.extra,
        })
    }
}

impl Block {
    /// Block `id` holding `turn_range`, its turns compressed in `compressed_data`.
    pub fn new(id: u64, turn_range: TurnRange, compressed_data: BlockData) -> Self {
        Block {
            id,
            turn_range,
            time_range: None,
            summary: None,
            key_points: None,
            scope: None,
            compressed_data,
            extra: Extra::new(),
        }
    }
}

/// A span of time (RFC 3339 date-times).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeRange {
    /// First instant.
    pub start: Timestamp,
    /// Last instant.
    pub end: Timestamp,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Optional embeddings of turns or nodes.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorIndex {
    /// Whether the embeddings are meant to be used.
    pub enabled: bool,
    /// The embedding model's name.
    pub model: Option<String>,
    /// Dimensions of every vector.
    pub dimensions: Option<super::Ordinal>,
    /// How the numbers are stored: `float`, or `int8` (each vector scaled so that its
    /// largest component is ±127, rounded).
    pub quantization: Option<String>,
    /// The vectors.
    pub embeddings: Option<Vec<Embedding>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One embedding, of a turn or of a node.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Embedding {
    /// The archived turn embedded.
    pub turn: Option<super::Ordinal>,
    /// The node embedded.
    pub node_id: Option<String>,
    /// The vector (floats, or integers for binary or quantised vectors).
    pub vector: super::Vector,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Embedding {
    turn: opt "turn",
    node_id: opt "nodeId",
    vector: req "vector",
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_block_is_read_and_written_in_either_spelling() {
        // Compact turns are held as the file spells them, spaced ones canonical;
        // both are written canonical.
        let read =
            r#"{"id": 1, "turnRange": "1", "turns": [{"turn":1,"role":"user","content":"hi"}]}"#;
        let block: Block = serde_json::from_str(read).unwrap();
        let said = block.compressed_data.turns_json().unwrap();
        assert_eq!(said, r#"[{"turn":1,"role":"user","content":"hi"}]"#);
        let json = r#"[{"content":"hi","role":"user","turn":1}]"#;
        let spaced = r#"{"id": 1, "turnRange": "1", "turns": [ {"turn": 1, "role": "user", "content": "a \" b"} ]}"#;
        let spaced: Block = serde_json::from_str(spaced).unwrap();
        assert_eq!(
            spaced.compressed_data.turns_json(),
            Some(r#"[{"content":"a \" b","role":"user","turn":1}]"#)
        );
        let written = crate::canonical::to_vec(&block).unwrap();
        assert_eq!(
            std::str::from_utf8(&written).unwrap(),
            format!(r#"{{"id":1,"turnRange":"1","turns":{json}}}"#)
        );
        let again: Block = serde_json::from_slice(&written).unwrap();
        assert_eq!(again.compressed_data.turns_json(), Some(json));
        assert_eq!(crate::canonical::to_vec(&again).unwrap(), written);
        assert_eq!(
            serde_json::to_value(&block).unwrap()["turns"][0]["content"],
            "hi"
        );
        let packed = json!({"id": 2, "turnRange": "1", "compressedData": "aGk="});
        let block: Block = serde_json::from_value(packed.clone()).unwrap();
        assert_eq!(block.compressed_data.bytes().unwrap(), b"hi");
        assert_eq!(serde_json::to_value(&block).unwrap(), packed);
    }

    #[test]
    fn a_block_with_both_spellings_none_or_turns_not_an_array_is_refused() {
        for (bad, why) in [
            (
                json!({"id": 1, "turnRange": "1", "turns": [], "compressedData": ""}),
                "not both",
            ),
            (
                json!({"id": 1, "turnRange": "1"}),
                "missing field `compressedData`",
            ),
            (
                json!({"id": 1, "turnRange": "1", "turns": {"turn": 1}}),
                "an array of turns",
            ),
        ] {
            let err = serde_json::from_value::<Block>(bad)
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{err}");
        }
    }
}
