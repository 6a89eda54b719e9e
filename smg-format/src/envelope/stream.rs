//! A payload decompressed on a thread of its own and handed over in pieces, so that
//! its whole text is never held (at 100 MB files, 322 MB of it) and what is made of
//! it is made while it decompresses. A file is read as it is decompressed too, so
//! that its compressed bytes are not held whole either; a plain JSON file is read in
//! pieces the same way, so that its text is not held whole.
//!
//! Only a payload that reads cleanly counts: anything wrong (a header, the compressed
//! stream, UTF-8, the length, the checksum) gives nothing, and the caller reads the
//! file whole, which says what is wrong exactly as it always has.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

use super::{Encoding, ObjectFirst, HEADER_LEN};
use crate::limits::Limits;

/// Payloads declaring less than this are decompressed whole: a thread and a channel
/// cost more than the memory they would save.
const STREAM_FROM: u64 = 4 << 20;
/// Plain JSON files are read in pieces from this many times [`STREAM_FROM`] (32 MiB):
/// their text costs no decompression, so the pieces cost time that shows (a 322 MB
/// file opened in 1.45 s whole and 1.78 s in pieces), and below this the text held
/// is a few MiB beside the document made of it.
const TEXT_FACTOR: u64 = 8;
/// The size of the pieces handed over.
const PIECE: usize = 256 << 10;
/// Pieces decompressed ahead of the reader: enough to keep both threads busy.
const AHEAD: usize = 4;

/// The most of a file's first bytes its payload's shape is read from: an envelope's
/// header, or a Zstandard frame's (at most 18 bytes).
const HEAD: usize = 64;

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
    sizes: (u64, usize),
    each: impl FnMut(&[u8]) -> Option<()>,
) -> Option<()> {
    let shape = Shape::of(bytes, bytes.len() as u64, limits, sizes)?;
    // Plain JSON in memory is its text already: nothing to save by pieces.
    if shape.encoding == Encoding::Json {
        return None;
    }
    let compressed = &bytes[shape.skip..];
    run(Payload { shape, compressed }, each)
}

/// [`each_piece`] of `file` (`len` bytes, read from its start) as it is decompressed,
/// so that its compressed bytes are not held either; the payload's encoding when it
/// was whole. A plain JSON file of at least the size to stream is handed over as it
/// is read (from bytes already held there is nothing to save). `None` also when the
/// file cannot be read (the caller, reading it whole, says why).
pub(crate) fn each_piece_of_file(
    mut file: File,
    len: u64,
    limits: &Limits,
    sizes: (u64, usize),
    each: impl FnMut(&[u8]) -> Option<()>,
) -> Option<Encoding> {
    let mut head = Vec::with_capacity(HEAD);
    (&mut file).take(HEAD as u64).read_to_end(&mut head).ok()?;
    let shape = Shape::of(&head, len, limits, sizes)?;
    let encoding = shape.encoding;
    let mut start = Cursor::new(head);
    start.set_position(shape.skip as u64);
    let compressed = BufReader::with_capacity(1 << 16, start.chain(file));
    run(Payload { shape, compressed }, each).map(|()| encoding)
}

/// Decompress `payload` on a thread of its own, handing its pieces to `each`.
fn run<R: BufRead + Send>(
    payload: Payload<R>,
    mut each: impl FnMut(&[u8]) -> Option<()>,
) -> Option<()> {
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

/// What a file's first bytes say of its payload, and what it must turn out to be.
struct Shape {
    encoding: Encoding,
    /// The bytes before the compressed stream (the envelope's header).
    skip: usize,
    /// The exact length and checksum the header declares (enveloped payloads).
    declared: Option<(u64, u32)>,
    /// The most bytes it may give.
    max: u64,
    /// The size of the pieces it is handed over in.
    piece: usize,
}

/// A payload about to be decompressed from `compressed`.
struct Payload<R> {
    shape: Shape,
    compressed: R,
}

/// How the feeder ended.
enum Fed {
    /// The whole payload was handed over: valid UTF-8, of the declared length and
    /// checksum.
    Whole,
    /// Something was wrong, or the parser stopped listening.
    Stopped,
}

impl Shape {
    /// The payload of a file of `len` bytes that begins with `head` (its first
    /// [`HEAD`] bytes, or all of them).
    fn of(head: &[u8], len: u64, limits: &Limits, (from, piece): (u64, usize)) -> Option<Self> {
        let limit = limits.for_input(len);
        // A piece holds at least one character whole.
        let piece = piece.max(4);
        match super::detect(head).ok()? {
            Encoding::ZstdFrame => {
                let declared = zstd::zstd_safe::get_frame_content_size(head).ok()?;
                let small = declared.is_some_and(|n| n < from);
                (!small && declared.is_none_or(|n| n <= limit)).then_some(Shape {
                    encoding: Encoding::ZstdFrame,
                    skip: 0,
                    declared: None,
                    max: limit,
                    piece,
                })
            }
            encoding @ (Encoding::Brotli | Encoding::Zstd) => {
                let flags = u16::from_le_bytes([head[6], head[7]]);
                let len = u64::from_le_bytes(head[8..16].try_into().ok()?);
                let crc = u32::from_le_bytes(head[16..20].try_into().ok()?);
                let fits = flags == 0 && (from..=limit).contains(&len);
                fits.then_some(Shape {
                    encoding,
                    skip: HEADER_LEN,
                    declared: Some((len, crc)),
                    max: len,
                    piece,
                })
            }
            // Its text is the file, which the whole read refuses over the limit.
            Encoding::Json if (from * TEXT_FACTOR..=limits.max_bytes).contains(&len) => {
                Some(Shape {
                    encoding: Encoding::Json,
                    skip: 0,
                    declared: None,
                    max: len,
                    piece,
                })
            }
            _ => None,
        }
    }
}

impl<'r, R: BufRead + 'r> Payload<R> {
    /// Decompress into pieces of valid UTF-8 for `tx`, checking the length and the
    /// checksum on the way.
    fn feed(self, tx: SyncSender<Vec<u8>>, recycled: Receiver<Vec<u8>>) -> Fed {
        let Payload { shape, compressed } = self;
        let decoder: Box<dyn Read + 'r> = match shape.encoding {
            Encoding::Json => Box::new(compressed),
            Encoding::Brotli => Box::new(brotli::Decompressor::new(compressed, 1 << 16)),
            _ => match zstd::stream::read::Decoder::with_buffer(compressed) {
                Ok(decoder) => Box::new(decoder),
                Err(_) => return Fed::Stopped,
            },
        };
        shape.feed(decoder, tx, recycled)
    }
}

impl Shape {
    /// [`Payload::feed`] from its decompressor.
    fn feed(self, decoder: impl Read, tx: SyncSender<Vec<u8>>, recycled: Receiver<Vec<u8>>) -> Fed {
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

    /// The pieces of `bytes`, joined, when they are handed over; the same when they
    /// are read from a file of them.
    fn joined(bytes: &[u8], piece: usize) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let given = each_piece(bytes, &Limits::default(), (0, piece), |p| {
            assert!(std::str::from_utf8(p).is_ok(), "a piece cuts a character");
            out.extend_from_slice(p);
            Some(())
        });
        let of_file = joined_of_file(bytes, piece);
        let given = given.map(|()| (super::super::detect(bytes).unwrap(), out));
        assert!(of_file == given, "read from a file, {piece}");
        given.map(|(_, out)| out)
    }

    /// The pieces of a file holding `bytes`, joined, and the payload's encoding.
    fn joined_of_file(bytes: &[u8], piece: usize) -> Option<(Encoding, Vec<u8>)> {
        let mut out = Vec::new();
        let len = bytes.len() as u64;
        let encoding =
            each_piece_of_file(file_of(bytes), len, &Limits::default(), (0, piece), |p| {
                assert!(std::str::from_utf8(p).is_ok(), "a piece cuts a character");
                assert!(p.len() <= piece.max(4), "a piece longer than asked");
                out.extend_from_slice(p);
                Some(())
            })?;
        Some((encoding, out))
    }

    /// A file holding `bytes`, open at its start.
    fn file_of(bytes: &[u8]) -> File {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, bytes).unwrap();
        std::io::Seek::rewind(&mut file).unwrap();
        file
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
            each_piece(&plain, &Limits::default(), (0, 64), |_| Some(())).is_none(),
            "plain JSON in memory is read as it lies"
        );
    }

    #[test]
    fn a_plain_json_file_is_handed_over_as_it_is_read() {
        let json = text(500);
        for piece in [1, 4, 7, 64, PIECE] {
            let given = joined_of_file(&json, piece);
            assert_eq!(given, Some((Encoding::Json, json.clone())), "{piece}");
        }
        let mut cut = json.clone();
        let at = cut.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        cut[at + 1] = b'x';
        assert!(joined_of_file(&cut, 64).is_none(), "not UTF-8");
        let small = text(10);
        let len = small.len() as u64;
        let read = each_piece_of_file(
            file_of(&small),
            len,
            &Limits::default(),
            SIZES,
            |_| Some(()),
        );
        assert!(read.is_none(), "a small file is read whole");
        let limits = Limits::default().with_max_bytes(json.len() as u64 - 1);
        let len = json.len() as u64;
        let read = each_piece_of_file(file_of(&json), len, &limits, (0, 64), |_| Some(()));
        assert!(read.is_none(), "over the limit, read whole for its error");
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
    fn a_file_shorter_than_its_header_or_unreadable_gives_nothing() {
        let json = text(500);
        let brotli = encode(&json, &WriteOptions::new(Encoding::Brotli)).unwrap();
        for len in [0, 3, 12, HEADER_LEN - 1, HEADER_LEN, HEADER_LEN + 5] {
            let file = file_of(&brotli[..len]);
            let given =
                each_piece_of_file(file, len as u64, &Limits::default(), (0, 64), |_| Some(()));
            assert!(given.is_none(), "{len} bytes");
        }
        let dir = tempfile::tempdir().unwrap();
        let write_only = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(dir.path().join("m.smg"))
            .unwrap();
        std::io::Write::write_all(&mut &write_only, &brotli).unwrap();
        assert!(each_piece_of_file(
            write_only,
            brotli.len() as u64,
            &Limits::default(),
            (0, 64),
            |_| { Some(()) }
        )
        .is_none());
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
