//! A compressed document read from its pieces as they are decompressed
//! ([`crate::envelope::stream`]): the large lists (the semantic graph's nodes and
//! edges, the archive's blocks, the vault's artifacts) are parsed item by item as
//! each item's text is complete, and the rest of the document (its skeleton, those
//! lists left empty) once at the end. Besides the skeleton, no more than one item's
//! text is held, and the parse runs beside the decompression.
//!
//! What this reader might read differently from a parse of the whole text it leaves
//! to that parse (it gives up: `None`): an error of any kind (a list met twice leaves
//! a duplicate key in the skeleton), nesting near serde_json's limit, an item that is
//! not an object or an array.

use std::fs::File;

use crate::envelope::{stream, Encoding};
use crate::limits::{Limits, MAX_DEPTH};
use crate::merge::LeanLists;
use crate::model::Document;
use reader::{Mode, Reader};

mod reader;

/// Deeper documents are read whole, so that the nesting limit applies to them as it
/// does there (an item parsed alone counts its depth from itself).
const DEEPEST: usize = MAX_DEPTH - 8;

/// `bytes` (Brotli or Zstandard, at least a few MiB of JSON) parsed as it
/// decompresses; `None` when the caller is to read it whole.
pub(super) fn from_pieces(bytes: &[u8], limits: &Limits) -> Option<Document> {
    from_pieces_sized(bytes, limits, stream::SIZES, Mode::Whole).map(|(doc, _)| doc)
}

/// [`from_pieces`] that keeps none of the semantic graph's nodes and edges: each is
/// parsed, counted and dropped. The document without them, and how many there were.
pub(super) fn counted_pieces(bytes: &[u8], limits: &Limits) -> Option<(Document, (u64, u64))> {
    match from_pieces_sized(bytes, limits, stream::SIZES, Mode::Counted(0, 0))? {
        (doc, Mode::Counted(nodes, edges)) => Some((doc, (nodes, edges))),
        _ => None,
    }
}

/// [`from_pieces`] with the sizes of [`stream::each_piece`], the graph read as `mode` says.
fn from_pieces_sized(
    bytes: &[u8],
    limits: &Limits,
    sizes: (u64, usize),
    mode: Mode,
) -> Option<(Document, Mode)> {
    let mut reader = Reader::new(mode);
    stream::each_piece(bytes, limits, sizes, |piece| reader.push(piece))?;
    reader.finish()
}

/// [`from_pieces`] of `file` (`len` bytes, read from its start) as it decompresses,
/// with the payload's encoding, in pieces of the sizes of [`stream::each_piece`].
pub(crate) fn from_file_sized(
    file: File,
    len: u64,
    limits: &Limits,
    sizes: (u64, usize),
) -> Option<(Document, Encoding)> {
    let (doc, _, encoding) = lean_from_file_sized(file, len, limits, sizes, false)?;
    Some((doc, encoding))
}

/// [`from_file_sized`], read lean ([`crate::merge::Lean`]) when `lean`: with what
/// was left out.
pub(crate) fn lean_from_file_sized(
    file: File,
    len: u64,
    limits: &Limits,
    sizes: (u64, usize),
    lean: bool,
) -> Option<(Document, Option<LeanLists>, Encoding)> {
    let mode = match lean {
        true => Mode::Lean(LeanLists::default()),
        false => Mode::Whole,
    };
    let mut reader = Reader::new(mode);
    let encoding = stream::each_piece_of_file(file, len, limits, sizes, |p| reader.push(p))?;
    let (doc, mode) = reader.finish()?;
    let lean = match mode {
        Mode::Lean(lean) => Some(lean),
        _ => None,
    };
    Some((doc, lean, encoding))
}

/// A Brotli stream of a document's JSON (a packed file's head), parsed as it is
/// decompressed, at most `piece` bytes at a time, on this thread; `None` when the caller is
/// to read it whole: the stream does not decode, it holds more than `max` bytes, or
/// the reader gives up.
pub(crate) fn from_brotli(compressed: &[u8], max: u64, piece: usize) -> Option<Document> {
    from_brotli_as(compressed, max, piece, Mode::Whole).map(|(doc, _)| doc)
}

/// [`from_brotli`] read as [`counted_pieces`] reads: the document without its
/// semantic graph's nodes and edges, and how many there were.
pub(crate) fn counted_from_brotli(
    compressed: &[u8],
    max: u64,
    piece: usize,
) -> Option<(Document, (u64, u64))> {
    match from_brotli_as(compressed, max, piece, Mode::Counted(0, 0))? {
        (doc, Mode::Counted(nodes, edges)) => Some((doc, (nodes, edges))),
        _ => None,
    }
}

fn from_brotli_as(
    compressed: &[u8],
    max: u64,
    piece: usize,
    mode: Mode,
) -> Option<(Document, Mode)> {
    use std::io::Read;
    let mut stream = brotli::Decompressor::new(compressed, 1 << 16).take(max.saturating_add(1));
    let mut reader = Reader::new(mode);
    let mut buf = vec![0u8; piece.max(1)];
    loop {
        match stream.read(&mut buf).ok()? {
            0 => break,
            n => reader.push(&buf[..n])?,
        }
    }
    if stream.limit() == 0 {
        return None;
    }
    reader.finish()
}

#[cfg(test)]
mod tests;
