//! Zstandard payloads: a text compressed whole, or a document's text compressed as it
//! is written, so that a large document's text is never held whole (`smg convert
//! --encoding zstd` of a million turns held its 250 MB beside the document).

use std::io::Write;

use zstd::stream::write::Encoder;

use super::header;
use crate::error::{Error, Result};

/// The level of a Zstandard payload written without one.
pub(super) const DEFAULT_LEVEL: i32 = 9;

fn failed(e: std::io::Error) -> Error {
    Error::InvalidArgument(format!("zstd: {e}"))
}

/// An encoder appending to `out` a frame of `len` bytes as smg writes every one: with
/// a checksum, the size pledged (so the frame header states it), long-distance
/// matching from level 16.
fn encoder<W: Write>(out: W, len: u64, level: i32) -> Result<Encoder<'static, W>> {
    if !(1..=22).contains(&level) {
        return Err(Error::InvalidArgument(format!(
            "zstd level {level} is outside 1..=22"
        )));
    }
    let mut encoder = Encoder::new(out, level).map_err(failed)?;
    encoder
        .include_checksum(true)
        .and_then(|_| encoder.set_pledged_src_size(Some(len)))
        .and_then(|_| encoder.long_distance_matching(level >= 16))
        .map_err(failed)?;
    Ok(encoder)
}

/// `data` compressed at `level`, appended to `out`.
pub(super) fn compress(data: &[u8], level: i32, out: &mut Vec<u8>) -> Result<()> {
    let mut encoder = encoder(out, data.len() as u64, level)?;
    encoder
        .write_all(data)
        .and_then(|_| encoder.finish().map(|_| ()))
        .map_err(failed)
}

/// An envelope of Zstandard-compressed JSON whose length is known before its text is
/// written: each piece written is compressed as it comes. The bytes are those of
/// [`super::encode`] of the whole text.
pub(crate) struct ZstdWriter {
    encoder: Encoder<'static, Vec<u8>>,
    crc: crc32fast::Hasher,
    len: u64,
    written: u64,
}

impl ZstdWriter {
    /// A writer of `len` bytes of JSON, compressed at `level` (or the default).
    pub(crate) fn new(len: u64, level: Option<i32>) -> Result<ZstdWriter> {
        let code = super::Encoding::Zstd.byte().unwrap_or_default();
        let len_usize = usize::try_from(len).map_err(|_| too_long(len))?;
        // The CRC-32 is written in place once the text is all through.
        let out = header(code, len_usize, 0);
        Ok(ZstdWriter {
            encoder: encoder(out, len, level.unwrap_or(DEFAULT_LEVEL))?,
            crc: crc32fast::Hasher::new(),
            len,
            written: 0,
        })
    }

    /// The next piece of the text.
    pub(crate) fn write(&mut self, piece: &[u8]) -> Result<()> {
        self.written += piece.len() as u64;
        if self.written > self.len {
            return Err(mismatch(self.len, self.written));
        }
        self.crc.update(piece);
        self.encoder.write_all(piece).map_err(failed)
    }

    /// The envelope's bytes; an error unless exactly the length given was written.
    pub(crate) fn finish(self) -> Result<Vec<u8>> {
        if self.written != self.len {
            return Err(mismatch(self.len, self.written));
        }
        let mut out = self.encoder.finish().map_err(failed)?;
        out[super::HEADER_LEN - 4..super::HEADER_LEN]
            .copy_from_slice(&self.crc.finalize().to_le_bytes());
        Ok(out)
    }
}

fn too_long(len: u64) -> Error {
    Error::InvalidArgument(format!("{len} bytes of JSON do not fit in memory here"))
}

/// The text written is not as long as measured: a serialiser that wrote one thing and
/// measured another, never the input's fault.
fn mismatch(measured: u64, written: u64) -> Error {
    Error::InvalidArgument(format!(
        "the document's JSON was measured at {measured} bytes but {written} were written"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{decode, encode, Encoding, WriteOptions};
    use crate::limits::Limits;

    #[test]
    fn a_text_written_in_pieces_gives_the_bytes_of_the_whole() {
        let text: Vec<u8> = (0..60_000u32)
            .flat_map(|i| format!("{{\"n\":{i},\"w\":\"{}\"}},", i % 97).into_bytes())
            .collect();
        for level in [None, Some(3), Some(16)] {
            let options = match level {
                Some(l) => WriteOptions::new(Encoding::Zstd).with_level(l),
                None => WriteOptions::new(Encoding::Zstd),
            };
            let whole = encode(&text, &options).unwrap();
            for piece in [1, 7, 4096, 1 << 20] {
                let mut writer = ZstdWriter::new(text.len() as u64, level).unwrap();
                for p in text.chunks(piece) {
                    writer.write(p).unwrap();
                }
                let pieces = writer.finish().unwrap();
                assert!(pieces == whole, "level {level:?}, pieces of {piece}");
            }
            assert_eq!(&*decode(&whole, &Limits::default()).unwrap().1, &text[..]);
        }
    }

    #[test]
    fn a_text_of_another_length_than_measured_is_refused() {
        let mut short = ZstdWriter::new(10, None).unwrap();
        short.write(b"{}").unwrap();
        assert!(
            matches!(short.finish(), Err(Error::InvalidArgument(m)) if m.contains("measured at 10"))
        );
        let mut long = ZstdWriter::new(1, None).unwrap();
        assert!(long.write(b"{}").is_err());
        assert!(ZstdWriter::new(2, Some(23)).is_err());
    }
}
