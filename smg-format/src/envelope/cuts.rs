//! Brotli for large documents: JSON cut into [`PIECE_BYTES`] pieces compressed side
//! by side, each a "catable" stream, joined into one standard stream.

use std::borrow::Cow;

use rayon::prelude::*;

use super::{joined, Encoding, WriteOptions};
use crate::error::{Error, Result};

/// The first bytes of a document's JSON, compressed ahead as whole [`PIECE_BYTES`]
/// cuts (at the quality the write options give a large document), with their length
/// and CRC-32.
#[derive(Debug, Default)]
pub(crate) struct Ready {
    pub(crate) cuts: Vec<Vec<u8>>,
    pub(crate) len: usize,
    pub(crate) crc: crc32fast::Hasher,
}

/// Brotli-compress `data` into `out` (window 2^24, the largest standard window).
pub(crate) fn brotli_compress(data: &[u8], quality: i32, out: &mut Vec<u8>) -> Result<()> {
    check_quality(quality)?;
    // A window no larger than the data: the encoder allocates for the window, and a
    // 16 MiB ring buffer for a 256 KiB block costs more in page faults than in work.
    let bits = usize::BITS - data.len().max(1).leading_zeros();
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: bits.clamp(16, 24) as i32,
        size_hint: data.len(),
        ..Default::default()
    };
    compress_with(data, &params, out)
}

/// Brotli-compress `data` into `out`, with working memory this thread's encoders
/// freed before (a block's encoder would otherwise fault in fresh pages for its
/// tables: a third of ingest's system time).
pub(crate) fn compress_with(
    mut data: &[u8],
    params: &brotli::enc::BrotliEncoderParams,
    out: &mut Vec<u8>,
) -> Result<()> {
    let (mut inbuf, mut outbuf) = ([0u8; 4096], [0u8; 4096]);
    brotli::BrotliCompressCustomAlloc(
        &mut data,
        out,
        &mut inbuf,
        &mut outbuf,
        params,
        crate::brotli_memory::Reused,
    )
    .map_err(|e| Error::InvalidArgument(format!("brotli compression failed: {e}")))?;
    Ok(())
}

/// Documents larger than this are Brotli-compressed in pieces of this size.
pub(crate) const PIECE_BYTES: usize = 4 << 20;

/// Default Brotli quality of a document of `len` bytes of JSON: the highest that
/// writes it in well under a second where that buys bytes. A format 2 document holds
/// its turns in the clear, so the envelope's one stream is the file's compression:
/// on LoCoMo 26 (425 kB of JSON) quality 5 gives 54.6 kB in 0.01 s, 9 52.8 kB in
/// 0.04 s, 10 47.6 kB in 0.24 s, 11 46.6 kB in 0.59 s (bench/RESULTS.md).
pub(super) fn default_brotli_level(len: usize) -> i32 {
    if len <= TINY_BYTES {
        11
    } else if len <= SMALL_BYTES {
        10
    } else if len <= PIECE_BYTES {
        5
    } else {
        LARGE_BROTLI_LEVEL
    }
}

/// Documents of at most this many bytes are written at quality 11 (0.2 s or less).
const TINY_BYTES: usize = 128 << 10;

/// Documents of at most this many bytes are written at quality 10 (0.6 s or less).
const SMALL_BYTES: usize = 1 << 20;

/// Default Brotli quality of a larger document: on a 59 MB document quality 3 takes
/// a quarter of the time of 5 for 3.6 % more bytes, and 2 another 10 % less for the
/// same bytes (bench/RESULTS.md).
const LARGE_BROTLI_LEVEL: i32 = 2;

/// Brotli-compress the JSON that `pieces` join into (`len` bytes) into `out` as one
/// standard stream, a [`PIECE_BYTES`] cut at a time, the cuts side by side: each cut
/// is a "catable" stream (no reference outside itself) and they are joined into one
/// stream that any decoder reads. The cuts are made by size alone, so the bytes do
/// not depend on the thread count nor on where the pieces meet. On a 59 MB document,
/// 4 MiB cuts at quality 3 came out smaller than one stream at quality 3 (18.6
/// against 19.2 MB).
///
/// `ready` are the first cuts, compressed already at this quality; `pieces` are the
/// JSON after them.
pub(crate) fn brotli_compress_pieces(
    pieces: &[Cow<'_, [u8]>],
    len: usize,
    quality: i32,
    mut ready: Vec<Vec<u8>>,
    out: &mut Vec<u8>,
) -> Result<()> {
    if len <= PIECE_BYTES {
        return brotli_compress(&joined(pieces), quality, out);
    }
    check_quality(quality)?;
    let count = len.div_ceil(PIECE_BYTES) - ready.len();
    ready.extend(compress_cuts(pieces, 0..count, quality)?);
    let compressed = ready;
    // The joined stream is about as long as its pieces.
    let room = compressed.iter().map(|p| p.len() + 8).sum::<usize>() + 16;
    join_brotli(&compressed, PIECE_BYTES.trailing_zeros() as u8, room, out)
}

/// The [`PIECE_BYTES`] cuts numbered `range` of the JSON that `pieces` join into,
/// compressed side by side.
pub(crate) fn compress_cuts(
    pieces: &[Cow<'_, [u8]>],
    range: std::ops::Range<usize>,
    quality: i32,
) -> Result<Vec<Vec<u8>>> {
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    range
        .into_par_iter()
        .map(|i| {
            let from = i * PIECE_BYTES;
            compress_piece(&cut(pieces, from, (from + PIECE_BYTES).min(len)), quality)
        })
        .collect()
}

/// Text compressed a few whole [`PIECE_BYTES`] cuts at a time as it is written, so
/// that what is held is the cuts compressed and less than `together` cuts of text
/// (and the last piece written), never the whole text. The cuts are those
/// [`compress_cuts`] makes of the whole text: cuts are made by size alone.
pub(crate) struct CutWriter {
    ready: Ready,
    /// Text written and not yet compressed.
    text: Vec<u8>,
    quality: i32,
    /// Cuts compressed side by side each time; none are for an encoding other than
    /// Brotli, whose text is kept whole.
    together: Option<usize>,
}

/// Cuts compressed side by side while a document is written: enough to keep both
/// cores busy, few enough that the text held beside them stays small (16 MiB).
const CUTS_TOGETHER: usize = 4;

impl CutWriter {
    /// A writer compressing at `quality`, `together` cuts at a time (at least one).
    pub(crate) fn new(quality: i32, together: usize) -> Result<CutWriter> {
        check_quality(quality)?;
        Ok(CutWriter {
            ready: Ready::default(),
            text: Vec::new(),
            quality,
            together: Some(together.max(1)),
        })
    }

    /// A writer of a document's text for `options`: in Brotli, compressed at the
    /// quality of a large document (a small one has no whole cut to compress); in
    /// any other encoding, kept whole. `ready` and `text` are what was written
    /// before (a head compressed ahead, and its text after its cuts).
    pub(crate) fn for_options(
        options: &WriteOptions,
        ready: Ready,
        text: Vec<u8>,
    ) -> Result<CutWriter> {
        if options.encoding != Encoding::Brotli {
            return Ok(CutWriter {
                ready,
                text,
                quality: 0,
                together: None,
            });
        }
        let quality = options.level.unwrap_or(LARGE_BROTLI_LEVEL);
        let mut writer = CutWriter::new(quality, CUTS_TOGETHER)?;
        writer.ready = ready;
        writer.text = text;
        Ok(writer)
    }

    /// Append `bytes` to the text.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.text.extend_from_slice(bytes);
        if self
            .together
            .is_some_and(|together| self.text.len() >= together * PIECE_BYTES)
        {
            self.compress_whole_cuts()?;
        }
        Ok(())
    }

    fn compress_whole_cuts(&mut self) -> Result<()> {
        let count = self.text.len() / PIECE_BYTES;
        let whole = count * PIECE_BYTES;
        let text = [Cow::Borrowed(&self.text[..whole])];
        self.ready
            .cuts
            .extend(compress_cuts(&text, 0..count, self.quality)?);
        self.ready.crc.update(&self.text[..whole]);
        self.ready.len += whole;
        self.text.drain(..whole);
        Ok(())
    }

    /// [`CutWriter::into_parts`] once every whole cut of the text is compressed (in
    /// Brotli): the text after the cuts is less than one cut.
    pub(crate) fn into_whole_parts(mut self) -> Result<(Ready, Vec<u8>)> {
        if self.together.is_some() {
            self.compress_whole_cuts()?;
            // The text held up to `together` cuts: what is kept is less than one.
            self.text.shrink_to_fit();
        }
        Ok(self.into_parts())
    }

    /// The cuts compressed so far, and the text after them (less than `together`
    /// cuts): what [`super::encode_pieces`] takes to compress the rest.
    pub(crate) fn into_parts(self) -> (Ready, Vec<u8>) {
        (self.ready, self.text)
    }
}

/// One [`PIECE_BYTES`] cut as a catable Brotli stream.
fn compress_piece(piece: &[u8], quality: i32) -> Result<Vec<u8>> {
    let params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: PIECE_BYTES.trailing_zeros() as i32,
        size_hint: piece.len(),
        catable: true,
        appendable: true,
        ..Default::default()
    };
    let mut bytes = Vec::with_capacity(piece.len() / 4);
    compress_with(piece, &params, &mut bytes)?;
    Ok(bytes)
}

/// Join catable Brotli streams into one, appended to `out` with `room` bytes set
/// aside at first (more are added as needed).
fn join_brotli(pieces: &[Vec<u8>], lgwin: u8, room: usize, out: &mut Vec<u8>) -> Result<()> {
    use brotli::concat::{BroCatli, BroCatliResult};
    let failed =
        |r: BroCatliResult| Error::InvalidArgument(format!("joining brotli streams failed: {r:?}"));
    let mut at = out.len();
    out.resize(at + room, 0);
    let grow = |out: &mut Vec<u8>| out.resize(out.len() + (out.len() >> 3) + 64, 0);
    let mut joiner = BroCatli::new_with_window_size(lgwin);
    for piece in pieces {
        joiner.new_brotli_file();
        let mut read = 0;
        while read < piece.len() {
            match joiner.stream(piece, &mut read, out, &mut at) {
                BroCatliResult::Success | BroCatliResult::NeedsMoreInput => {}
                BroCatliResult::NeedsMoreOutput => grow(out),
                r => return Err(failed(r)),
            }
        }
    }
    loop {
        match joiner.finish(out, &mut at) {
            BroCatliResult::Success => {
                out.truncate(at);
                return Ok(());
            }
            BroCatliResult::NeedsMoreOutput => grow(out),
            r => return Err(failed(r)),
        }
    }
}

/// An error unless `quality` is a Brotli quality (0 to 11).
pub(crate) fn check_quality(quality: i32) -> Result<()> {
    if !(0..=11).contains(&quality) {
        return Err(Error::InvalidArgument(format!(
            "brotli level {quality} is outside 0..=11"
        )));
    }
    Ok(())
}

/// Bytes `from..to` of the pieces joined: borrowed when one piece holds them all,
/// else copied out.
fn cut<'a>(pieces: &'a [Cow<'a, [u8]>], from: usize, to: usize) -> Cow<'a, [u8]> {
    let mut copied = Vec::new();
    let mut start = 0;
    for p in pieces {
        let end = start + p.len();
        if start <= from && to <= end {
            return Cow::Borrowed(&p[from - start..to - start]);
        }
        if end > from && start < to {
            copied.reserve(to - from);
            copied.extend_from_slice(&p[from.max(start) - start..to.min(end) - start]);
        }
        start = end;
    }
    Cow::Owned(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{decode, encode, Encoding, WriteOptions, HEADER_LEN};
    use crate::limits::Limits;

    /// JSON-ish text of `len` bytes from a fixed vocabulary, compressible but not
    /// trivially so.
    fn words(len: usize) -> Vec<u8> {
        let vocab = [
            "turn", "memory", "graph", "\"id\":", "brotli", "{", "}", "42", "node",
        ];
        let mut state = 7u64;
        let mut out = Vec::with_capacity(len + 16);
        while out.len() < len {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.extend_from_slice(vocab[(state >> 59) as usize % vocab.len()].as_bytes());
            out.push(b' ');
        }
        out.truncate(len);
        out
    }

    #[test]
    fn a_large_document_is_one_stream_whatever_the_threads() {
        let mut json = words(2 * PIECE_BYTES + 12_345);
        // A document's text opens an object (the reader stops at anything else).
        json[0] = b'{';
        let options = WriteOptions::new(Encoding::Brotli);
        let bytes = encode(&json, &options).unwrap();
        let (_, back) = decode(&bytes, &Limits::default()).unwrap();
        assert!(*back == json[..]);
        let mut plain = Vec::new();
        brotli::BrotliDecompress(&mut &bytes[HEADER_LEN..], &mut plain).unwrap();
        assert!(plain == json);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert!(one.install(|| encode(&json, &options).unwrap()) == bytes);
    }

    #[test]
    fn text_written_in_any_pieces_makes_the_cuts_of_the_whole() {
        let json = words(5 * PIECE_BYTES + 999);
        let expected = compress_cuts(&[json[..].into()], 0..5, 2).unwrap();
        for (together, piece) in [
            (1, 1 << 20),
            (2, 3 << 20),
            (4, PIECE_BYTES + 1),
            (9, 7 << 20),
        ] {
            let mut writer = CutWriter::new(2, together).unwrap();
            for p in json.chunks(piece) {
                writer.write(p).unwrap();
            }
            let (ready, text) = writer.into_parts();
            let done = ready.cuts.len();
            let at = format!("{together} cuts together, pieces of {piece}");
            assert!(ready.cuts == expected[..done], "{at}");
            assert_eq!(ready.len, done * PIECE_BYTES, "{at}");
            assert!(text == json[ready.len..], "{at}");
            assert!(text.len() < together * PIECE_BYTES + piece, "{at}");
            let mut crc = crc32fast::Hasher::new();
            crc.update(&json[..ready.len]);
            assert_eq!(ready.crc.finalize(), crc.finalize(), "{at}");
        }
        assert!(CutWriter::new(12, 1).is_err());
    }

    #[test]
    fn joining_makes_room_when_the_output_is_short() {
        let json = words(3 * 100_000);
        let pieces: Vec<Vec<u8>> = json
            .chunks(100_000)
            .map(|piece| {
                let params = brotli::enc::BrotliEncoderParams {
                    quality: 3,
                    lgwin: 17,
                    catable: true,
                    appendable: true,
                    ..Default::default()
                };
                let mut bytes = Vec::new();
                brotli::BrotliCompress(&mut &piece[..], &mut bytes, &params).unwrap();
                bytes
            })
            .collect();
        let mut out = b"head".to_vec();
        join_brotli(&pieces, 17, 0, &mut out).unwrap();
        assert_eq!(&out[..4], b"head");
        let mut plain = Vec::new();
        brotli::BrotliDecompress(&mut &out[4..], &mut plain).unwrap();
        assert!(plain == json);
    }
}
