//! A payload decompressed on a thread of its own and handed over in pieces, so that
//! its whole text is never held (at 100 MB files, 322 MB of it) and what is made of
//! it is made while it decompresses.
//!
//! Only a payload that reads cleanly counts: anything wrong (a header, the compressed
//! stream, UTF-8, the length, the checksum) gives nothing, and the caller reads the
//! file whole, which says what is wrong exactly as it always has.

use std::io::Read;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

use super::{Encoding, ObjectFirst, HEADER_LEN};
use crate::limits::Limits;

/// Payloads declaring less than this are decompressed whole: a thread and a channel
/// cost more than the memory they would save.
const STREAM_FROM: u64 = 4 << 20;
/// The size of the pieces handed over.
const PIECE: usize = 256 << 10;
/// Pieces decompressed ahead of the reader: enough to keep both threads busy.
const AHEAD: usize = 4;

/// The sizes files are read with: payloads of at least 4 MiB, in pieces of 256 kB.
pub(crate) const SIZES: (u64, usize) = (STREAM_FROM, PIECE);

/// Hand `each` the pieces of `bytes` (a Brotli or Zstandard file, enveloped or a bare
/// Zstandard frame) as they are decompressed: pieces of valid UTF-8, in order, of
/// `piece` bytes for a payload of at least `from`. `Some` when every piece was taken
/// and the payload was whole; `None` when the file is of another encoding, too small
/// to be worth a thread, not read cleanly (a bad stream, length, checksum or UTF-8),
/// or when `each` gave up, which stops the decompression.
pub(crate) fn each_piece(
    bytes: &[u8],
    limits: &Limits,
    (from, piece): (u64, usize),
    mut each: impl FnMut(&[u8]) -> Option<()>,
) -> Option<()> {
    // A piece holds at least one character whole.
    let payload = Payload::of(bytes, limits, from, piece.max(4))?;
    std::thread::scope(|s| {
        let (tx, rx) = sync_channel(AHEAD);
        // Pieces go back to the feeder to be filled again.
        let (back, recycled) = channel();
        let feeder = s.spawn(move || payload.feed(tx, recycled));
        let taken = rx.iter().try_for_each(|piece| {
            each(&piece)?;
            // The feeder may be done: then the piece is dropped here.
            let _ = back.send(piece);
            Some(())
        });
        // Dropping the receiver stops a feeder that `each` gave up on.
        drop(rx);
        let fed = feeder.join().ok()?;
        match (taken, fed) {
            (Some(()), Fed::Whole) => Some(()),
            _ => None,
        }
    })
}

/// A payload about to be decompressed, and what it must turn out to be.
struct Payload<'a> {
    encoding: Encoding,
    compressed: &'a [u8],
    /// The exact length and checksum the header declares (enveloped payloads).
    declared: Option<(u64, u32)>,
    /// The most bytes it may give.
    max: u64,
    /// The size of the pieces it is handed over in.
    piece: usize,
}

/// How the feeder ended.
enum Fed {
    /// The whole payload was handed over: valid UTF-8, of the declared length and
    /// checksum.
    Whole,
    /// Something was wrong, or the parser stopped listening.
    Stopped,
}

impl<'a> Payload<'a> {
    fn of(bytes: &'a [u8], limits: &Limits, from: u64, piece: usize) -> Option<Self> {
        let limit = limits.for_input(bytes.len() as u64);
        let payload = match super::detect(bytes).ok()? {
            Encoding::ZstdFrame => {
                let declared = zstd::zstd_safe::get_frame_content_size(bytes).ok()?;
                let small = declared.is_some_and(|n| n < from);
                (!small && declared.is_none_or(|n| n <= limit)).then_some(Payload {
                    encoding: Encoding::ZstdFrame,
                    compressed: bytes,
                    declared: None,
                    max: limit,
                    piece,
                })
            }
            encoding @ (Encoding::Brotli | Encoding::Zstd) => {
                let flags = u16::from_le_bytes([bytes[6], bytes[7]]);
                let len = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
                let crc = u32::from_le_bytes(bytes[16..20].try_into().ok()?);
                let fits = flags == 0 && (from..=limit).contains(&len);
                fits.then_some(Payload {
                    encoding,
                    compressed: &bytes[HEADER_LEN..],
                    declared: Some((len, crc)),
                    max: len,
                    piece,
                })
            }
            _ => None,
        }?;
        Some(payload)
    }

    fn decoder(&self) -> Option<Box<dyn Read + 'a>> {
        Some(match self.encoding {
            Encoding::Brotli => Box::new(brotli::Decompressor::new(self.compressed, 1 << 16)),
            _ => Box::new(zstd::stream::read::Decoder::with_buffer(self.compressed).ok()?),
        })
    }

    /// Decompress into pieces of valid UTF-8 for `tx`, checking the length and the
    /// checksum on the way.
    fn feed(self, tx: SyncSender<Vec<u8>>, recycled: Receiver<Vec<u8>>) -> Fed {
        let Some(decoder) = self.decoder() else {
            return Fed::Stopped;
        };
        let mut reader = ObjectFirst::new(decoder).take(self.max.saturating_add(1));
        let (mut total, mut crc) = (0u64, crc32fast::Hasher::new());
        // Up to three bytes of a character cut by a piece's end, moved to the next.
        let mut carry = Vec::new();
        loop {
            let mut piece = recycled.try_recv().unwrap_or_default();
            piece.clear();
            piece.reserve_exact(self.piece);
            piece.append(&mut carry);
            let before = piece.len();
            let Ok(n) = (&mut reader)
                .take((self.piece - before) as u64)
                .read_to_end(&mut piece)
            else {
                return Fed::Stopped;
            };
            crc.update(&piece[before..]);
            total += n as u64;
            let end = n == 0;
            if let Err(e) = std::str::from_utf8(&piece) {
                if end || e.error_len().is_some() {
                    return Fed::Stopped;
                }
                carry = piece.split_off(e.valid_up_to());
            }
            if end {
                break;
            }
            if total > self.max || tx.send(piece).is_err() {
                return Fed::Stopped;
            }
        }
        let whole = match self.declared {
            Some((len, sum)) => total == len && crc.finalize() == sum,
            None => total <= self.max,
        };
        if whole {
            Fed::Whole
        } else {
            Fed::Stopped
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{decode, encode, WriteOptions};
    use crate::test_support::encodings;

    /// The pieces of `bytes`, joined, when they are handed over.
    fn joined(bytes: &[u8], piece: usize) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        each_piece(bytes, &Limits::default(), (0, piece), |p| {
            assert!(std::str::from_utf8(p).is_ok(), "a piece cuts a character");
            out.extend_from_slice(p);
            Some(())
        })?;
        Some(out)
    }

    /// JSON text with characters of one to four bytes everywhere.
    fn text(n: usize) -> Vec<u8> {
        let items: Vec<String> = (0..n).map(|i| format!("\"a é € 𝄞 {i}\"")).collect();
        format!("{{\"items\":[{}]}}", items.join(",")).into_bytes()
    }

    #[test]
    fn the_pieces_join_into_the_payload_whatever_their_size() {
        let json = text(500);
        for bytes in encodings(&json) {
            for piece in [1, 4, 5, 7, 64, 1000, PIECE] {
                assert_eq!(joined(&bytes, piece).as_deref(), Some(&json[..]), "{piece}");
            }
        }
    }

    #[test]
    fn a_payload_not_read_cleanly_gives_nothing() {
        let json = text(500);
        let brotli = encode(&json, &WriteOptions::new(Encoding::Brotli)).unwrap();
        let mut crc = brotli.clone();
        crc[16] ^= 1;
        let mut long = brotli.clone();
        long[8] += 1;
        let mut short = brotli.clone();
        short[8] -= 1;
        let mut flags = brotli.clone();
        flags[6] = 1;
        let cut = brotli[..brotli.len() - 10].to_vec();
        for (what, bytes) in [
            ("crc", crc),
            ("long", long),
            ("short", short),
            ("flags", flags),
            ("cut", cut),
        ] {
            assert!(joined(&bytes, 64).is_none(), "{what}");
            assert!(decode(&bytes, &Limits::default()).is_err(), "{what}");
        }
        let mut bad = json.clone();
        let at = bad.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        bad[at + 1] = b'x';
        let not_an_object = b"[1, 2, 3]".repeat(100);
        for json in [bad, not_an_object] {
            for bytes in encodings(&json) {
                assert!(joined(&bytes, 64).is_none());
            }
        }
        let plain = json;
        assert!(
            joined(&plain, 64).is_none(),
            "plain JSON is read as it lies"
        );
    }

    #[test]
    fn giving_up_stops_the_decompression() {
        let json = text(20_000);
        for bytes in encodings(&json) {
            let mut seen = 0;
            let given = each_piece(&bytes, &Limits::default(), (0, 64), |_| {
                seen += 1;
                (seen < 3).then_some(())
            });
            assert!(given.is_none());
            assert_eq!(seen, 3);
        }
    }

    #[test]
    fn small_payloads_and_payloads_over_the_limit_are_read_whole() {
        let small = text(10);
        for bytes in &encodings(&small)[..2] {
            assert!(each_piece(bytes, &Limits::default(), SIZES, |_| Some(())).is_none());
        }
        let json = text(20_000);
        let limits = Limits::default().with_max_bytes(json.len() as u64 - 1);
        for bytes in encodings(&json) {
            assert!(each_piece(&bytes, &limits, (0, 64), |_| Some(())).is_none());
        }
    }
}
