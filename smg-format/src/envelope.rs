//! The byte-level envelope: plain JSON text, or a 20-byte header followed by a
//! Brotli or Zstandard payload (spec §2, "Encodings").
//!
//! ```
//! use smg_format::envelope::{decode, detect, encode};
//! use smg_format::{Encoding, Limits, WriteOptions};
//! let json = br#"{"version":"1.0"}"#;
//! let zstd = encode(json, &WriteOptions::new(Encoding::Zstd)).unwrap();
//! assert_eq!(detect(&zstd).unwrap(), Encoding::Zstd);
//! let (encoding, back) = decode(&zstd, &Limits::default()).unwrap();
//! assert_eq!((encoding, &back[..]), (Encoding::Zstd, &json[..]));
//! ```

use std::borrow::Cow;
use std::io::Read;

pub(crate) mod cuts;
pub(crate) mod stream;
pub(crate) mod zstandard;

pub(crate) use cuts::brotli_compress_pieces;
use cuts::default_brotli_level;
pub(crate) use cuts::{brotli_compress, CutWriter, Ready, PIECE_BYTES};

use crate::error::{Error, Result};
use crate::limits::Limits;

/// The four magic bytes of an enveloped file: `0x89 'S' 'M' 'G'`.
///
/// `0x89` can never start UTF-8 JSON text, so the two families cannot be confused.
pub const MAGIC: [u8; 4] = [0x89, b'S', b'M', b'G'];
/// Size of the envelope header in bytes.
pub const HEADER_LEN: usize = 20;
/// The header's encoding byte of the packed layout (spec §2.3), written by `packed`.
pub(crate) const PACKED: u8 = 3;
/// The header's encoding byte of an encrypted file (spec §2.6), written by `crypto`.
pub(crate) const ENCRYPTED: u8 = 4;
const ENVELOPE_VERSION: u8 = 1;
const ZSTD_FRAME_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How the document's JSON text is stored in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Plain UTF-8 JSON-LD text.
    Json,
    /// Envelope with a Brotli payload (encoding byte 1).
    Brotli,
    /// Envelope with a Zstandard payload (encoding byte 2).
    Zstd,
    /// A bare Zstandard frame with no envelope (read-only, for interoperability
    /// with the `zstd` tool; smg writes [`Encoding::Zstd`] instead).
    ZstdFrame,
    /// The packed layout (encoding byte 3): sections read on demand (spec §2.3).
    Packed,
    /// An encrypted file (encoding byte 4) wrapping a file of another encoding (spec §2.6).
    Encrypted,
}

impl Encoding {
    /// The encoding to write a document back in that was read in this one: a bare zstd
    /// frame (read-only) is written in the zstd envelope.
    pub fn for_writing(self) -> Encoding {
        match self {
            Encoding::ZstdFrame => Encoding::Zstd,
            other => other,
        }
    }

    /// The name used on the command line and in `smg info`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Brotli => "brotli",
            Encoding::Zstd => "zstd",
            Encoding::ZstdFrame => "zstd-frame",
            Encoding::Packed => "packed",
            Encoding::Encrypted => "encrypted",
        }
    }

    fn byte(self) -> Option<u8> {
        match self {
            Encoding::Brotli => Some(1),
            Encoding::Zstd => Some(2),
            Encoding::Json | Encoding::ZstdFrame | Encoding::Packed | Encoding::Encrypted => None,
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "json" => Ok(Encoding::Json),
            "brotli" => Ok(Encoding::Brotli),
            "zstd" => Ok(Encoding::Zstd),
            "packed" => Ok(Encoding::Packed),
            other => Err(Error::InvalidArgument(format!(
                "unknown encoding `{other}` (expected json, brotli, zstd or packed)"
            ))),
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Compression settings for writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// The encoding to write.
    pub encoding: Encoding,
    /// Compression level: Brotli 0–11 (default 11 for JSON up to 128 KiB, 10 up to
    /// 1 MiB, 5 up to 4 MiB, 2 above),
    /// Zstandard 1–22 (default 9).
    /// `None` takes the encoding's default.
    pub level: Option<i32>,
}

impl WriteOptions {
    /// Options for `encoding` at its default level.
    pub fn new(encoding: Encoding) -> Self {
        WriteOptions {
            encoding,
            level: None,
        }
    }

    /// These options with an explicit compression level.
    pub fn with_level(mut self, level: i32) -> Self {
        self.level = Some(level);
        self
    }
}

/// Tell the encoding from the first bytes of a file.
pub fn detect(bytes: &[u8]) -> Result<Encoding> {
    if bytes.starts_with(&MAGIC) {
        if bytes.len() < HEADER_LEN {
            return Err(Error::Truncated(format!(
                "the envelope header needs {HEADER_LEN} bytes, the file has {}",
                bytes.len()
            )));
        }
        if bytes[4] != ENVELOPE_VERSION {
            return Err(Error::UnsupportedEnvelope { found: bytes[4] });
        }
        return match bytes[5] {
            1 => Ok(Encoding::Brotli),
            2 => Ok(Encoding::Zstd),
            PACKED => Ok(Encoding::Packed),
            ENCRYPTED => Ok(Encoding::Encrypted),
            other => Err(Error::UnknownEncoding(format!(
                "envelope encoding byte {other} is not defined in format v1 (1 = brotli, 2 = zstd, 3 = packed, 4 = encrypted)"
            ))),
        };
    }
    if bytes.starts_with(&ZSTD_FRAME_MAGIC) {
        return Ok(Encoding::ZstdFrame);
    }
    let text = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        None => Err(Error::Empty),
        Some(b'{') => Ok(Encoding::Json),
        Some(_) => Err(Error::UnknownEncoding(describe_unknown(bytes))),
    }
}

fn describe_unknown(bytes: &[u8]) -> String {
    let head: String = bytes.iter().take(8).map(|b| format!("{b:02x} ")).collect();
    let hint = if bytes.starts_with(&[0x1f, 0x8b]) {
        " (a gzip stream: gzip is not a v1 file encoding; decompress it first)"
    } else if bytes.starts_with(b"\x89SM") || bytes.starts_with(b"\x89S") {
        " (a damaged .smg envelope magic)"
    } else {
        ""
    };
    format!(
        "first bytes {}are neither JSON text (`{{`) nor the .smg envelope magic 89 53 4d 47{hint}",
        head
    )
}

/// Decode a whole file to its JSON text, enforcing `limits`.
///
/// Plain JSON is returned borrowed (without a leading BOM); compressed payloads are
/// decompressed, bounded by [`Limits::for_input`] of the file's size (a header that
/// declares more is refused before anything is decompressed), checked against the
/// header's length and CRC-32, and refused at the first byte that cannot begin a
/// document (a JSON object), so that a bomb of garbage costs no memory. A packed file holds sections, not one payload: it is an error
/// here, and [`crate::codec::decode_json`] gives its JSON text.
pub fn decode<'a>(bytes: &'a [u8], limits: &Limits) -> Result<(Encoding, Cow<'a, [u8]>)> {
    let encoding = detect(bytes)?;
    let json = match encoding {
        Encoding::Json => {
            if bytes.len() as u64 > limits.max_bytes {
                return Err(Error::TooLarge {
                    limit: limits.max_bytes,
                });
            }
            Cow::Borrowed(bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes))
        }
        Encoding::ZstdFrame => {
            let limit = limits.for_input(bytes.len() as u64);
            let declared = zstd::zstd_safe::get_frame_content_size(bytes)
                .ok()
                .flatten();
            if declared.is_some_and(|n| n > limit) {
                return Err(Error::TooLarge { limit });
            }
            let decoder = zstd::stream::read::Decoder::with_buffer(bytes)
                .map_err(|e| decompress_error("zstd", &e))?;
            Cow::Owned(read_bounded(ObjectFirst::new(decoder), limit, "zstd", 0)?)
        }
        Encoding::Brotli | Encoding::Zstd => Cow::Owned(decode_enveloped(bytes, encoding, limits)?),
        Encoding::Packed => return Err(packed_is_not_a_payload()),
        Encoding::Encrypted => return Err(Error::NeedPassphrase),
    };
    Ok((encoding, json))
}

fn decode_enveloped(bytes: &[u8], encoding: Encoding, limits: &Limits) -> Result<Vec<u8>> {
    let flags = u16::from_le_bytes([bytes[6], bytes[7]]);
    if flags != 0 {
        return Err(Error::UnsupportedFlags(flags));
    }
    let declared = u64::from_le_bytes(bytes[8..16].try_into().expect("8-byte slice"));
    let crc = u32::from_le_bytes(bytes[16..20].try_into().expect("4-byte slice"));
    let limit = limits.for_input(bytes.len() as u64);
    if declared > limit {
        return Err(Error::TooLarge { limit });
    }
    let payload = &bytes[HEADER_LEN..];
    let capacity = usize::try_from(declared).unwrap_or(0);
    let out = match encoding {
        Encoding::Brotli => {
            let decoder = brotli::Decompressor::new(payload, 1 << 16);
            read_bounded(ObjectFirst::new(decoder), declared, "brotli", capacity)
        }
        _ => {
            let decoder = zstd::stream::read::Decoder::with_buffer(payload)
                .map_err(|e| decompress_error("zstd", &e))?;
            read_bounded(ObjectFirst::new(decoder), declared, "zstd", capacity)
        }
    }
    .map_err(|e| match e {
        // The limit here is the header's own length, so exceeding it means the header lies.
        Error::TooLarge { .. } => Error::Decompress {
            encoding: encoding.name(),
            detail: format!("the payload holds more than the {declared} bytes the header declares"),
        },
        other => other,
    })?;
    if (out.len() as u64) < declared {
        return Err(Error::Truncated(format!(
            "the header declares {declared} bytes of JSON, the payload holds {}",
            out.len()
        )));
    }
    let actual = crc32fast::hash(&out);
    if actual != crc {
        return Err(Error::Checksum {
            expected: crc,
            actual,
        });
    }
    Ok(out)
}

fn packed_is_not_a_payload() -> Error {
    Error::InvalidArgument(
        "the packed layout is made of sections, not one payload: read it with smg_format::codec"
            .into(),
    )
}

/// Read a decompressor to the end, failing as soon as more than `max` bytes come out.
pub(crate) fn read_bounded(
    reader: impl Read,
    max: u64,
    encoding: &'static str,
    capacity: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity.min(1 << 30));
    read_bounded_into(reader, max, encoding, &mut out)?;
    Ok(out)
}

/// [`read_bounded`] into `out`, cleared first: room it holds already is used again.
pub(crate) fn read_bounded_into(
    reader: impl Read,
    max: u64,
    encoding: &'static str,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.clear();
    let mut limited = reader.take(max.saturating_add(1));
    limited
        .read_to_end(out)
        .map_err(|e| decompress_error(encoding, &e))?;
    if out.len() as u64 > max {
        return Err(Error::TooLarge { limit: max });
    }
    Ok(())
}

/// A decompressor whose output must be a document: JSON text whose first byte, after
/// whitespace and a BOM, opens an object. Anything else fails at once, before the
/// rest is decompressed.
struct ObjectFirst<R> {
    inner: R,
    /// Bytes seen before the object opened (at most a BOM and whitespace); `None`
    /// once it has.
    before: Option<u64>,
    line: usize,
    column: usize,
}

/// The error [`ObjectFirst`] stops a decompression with.
#[derive(Debug)]
struct NotADocument {
    line: usize,
    column: usize,
    byte: u8,
}

impl std::fmt::Display for NotADocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "byte 0x{:02x} where a document (a JSON object) begins",
            self.byte
        )
    }
}

impl std::error::Error for NotADocument {}

impl<R: Read> ObjectFirst<R> {
    fn new(inner: R) -> Self {
        ObjectFirst {
            inner,
            before: Some(0),
            line: 1,
            column: 1,
        }
    }
}

impl<R: Read> Read for ObjectFirst<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let Some(mut at) = self.before else {
            return Ok(n);
        };
        for &b in &buf[..n] {
            let bom = at < 3 && b == UTF8_BOM[at as usize];
            match b {
                b'{' => {
                    self.before = None;
                    return Ok(n);
                }
                b'\n' => (self.line, self.column) = (self.line + 1, 1),
                b' ' | b'\t' | b'\r' => self.column += 1,
                _ if bom => {}
                byte => {
                    let (line, column) = (self.line, self.column);
                    let e = NotADocument { line, column, byte };
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e));
                }
            }
            at += 1;
        }
        self.before = Some(at);
        Ok(n)
    }
}

fn decompress_error(encoding: &'static str, e: &std::io::Error) -> Error {
    if let Some(e) = e.get_ref().and_then(|e| e.downcast_ref::<NotADocument>()) {
        return Error::Syntax {
            line: e.line,
            column: e.column,
            detail: e.to_string(),
        };
    }
    let detail = if e.kind() == std::io::ErrorKind::UnexpectedEof {
        "the compressed stream ends early (truncated file)".to_string()
    } else {
        e.to_string()
    };
    Error::Decompress { encoding, detail }
}

/// Wrap JSON text in the chosen encoding: JSON, Brotli or Zstandard (the packed layout
/// is written from a document, by [`crate::to_bytes`]).
pub fn encode(json: &[u8], options: &WriteOptions) -> Result<Vec<u8>> {
    encode_pieces(&[Cow::Borrowed(json)], options, None)
}

/// [`encode`] of JSON given in pieces (written apart) that join into the whole: a
/// large document in Brotli is never joined into one buffer. With `ready`, the
/// pieces are the JSON that follows its bytes.
pub(crate) fn encode_pieces(
    pieces: &[Cow<'_, [u8]>],
    options: &WriteOptions,
    ready: Option<Ready>,
) -> Result<Vec<u8>> {
    let ready = ready.unwrap_or_default();
    let Some(code) = options.encoding.byte() else {
        return match options.encoding {
            Encoding::Json => Ok(pieces.concat()),
            Encoding::Packed => Err(packed_is_not_a_payload()),
            Encoding::Encrypted => Err(Error::InvalidArgument(
                "encryption needs a passphrase: use smg_format::crypto::encrypt on the encoded file".into(),
            )),
            _ => Err(Error::InvalidArgument(
                "zstd-frame is read-only; write `zstd` instead".into(),
            )),
        };
    };
    let len = ready.len + pieces.iter().map(|p| p.len()).sum::<usize>();
    let mut crc = ready.crc;
    for p in pieces {
        crc.update(p);
    }
    let mut out = header(code, len, crc.finalize());
    match options.encoding {
        Encoding::Brotli => {
            let level = options.level.unwrap_or(default_brotli_level(len));
            brotli_compress_pieces(pieces, len, level, ready.cuts, &mut out)?
        }
        _ => zstandard::compress(
            &joined(pieces),
            options.level.unwrap_or(zstandard::DEFAULT_LEVEL),
            &mut out,
        )?,
    }
    Ok(out)
}

/// The pieces as one slice: borrowed when there is one piece.
fn joined<'a>(pieces: &'a [Cow<'a, [u8]>]) -> Cow<'a, [u8]> {
    match pieces {
        [one] => Cow::Borrowed(one),
        _ => Cow::Owned(pieces.concat()),
    }
}

/// The envelope's header for `len` bytes of JSON whose CRC-32 is `crc`, with room
/// for a quarter of them compressed.
fn header(code: u8, len: usize, crc: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + len / 4);
    out.extend_from_slice(&MAGIC);
    out.push(ENVELOPE_VERSION);
    out.push(code);
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(len as u64).to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &[u8] = br#"{"@type":"SemanticMemoryGraph"}"#;

    #[test]
    fn round_trips_every_writable_encoding() {
        for enc in [Encoding::Json, Encoding::Brotli, Encoding::Zstd] {
            let bytes = encode(DOC, &WriteOptions::new(enc)).unwrap();
            let (found, json) = decode(&bytes, &Limits::default()).unwrap();
            assert_eq!(found, enc);
            assert_eq!(&*json, DOC);
        }
    }

    #[test]
    fn reads_a_bare_zstd_frame() {
        let frame = zstd::encode_all(DOC, 3).unwrap();
        let (enc, json) = decode(&frame, &Limits::default()).unwrap();
        assert_eq!(enc, Encoding::ZstdFrame);
        assert_eq!(&*json, DOC);
    }

    #[test]
    fn header_is_byte_exact() {
        let bytes = encode(DOC, &WriteOptions::new(Encoding::Brotli)).unwrap();
        assert_eq!(&bytes[..6], &[0x89, b'S', b'M', b'G', 1, 1]);
        assert_eq!(&bytes[6..8], &[0, 0]);
        assert_eq!(
            u64::from_le_bytes(bytes[8..16].try_into().unwrap()),
            DOC.len() as u64
        );
        assert_eq!(
            u32::from_le_bytes(bytes[16..20].try_into().unwrap()),
            crc32fast::hash(DOC)
        );
    }

    #[test]
    fn refuses_bad_envelopes_with_their_own_codes() {
        let good = encode(DOC, &WriteOptions::new(Encoding::Zstd)).unwrap();
        let limits = Limits::default();
        let code = |b: &[u8]| decode(b, &limits).unwrap_err().code();
        assert_eq!(code(b""), "SMG-E002");
        assert_eq!(code(b" \n\t"), "SMG-E002");
        assert_eq!(code(b"PK\x03\x04"), "SMG-E003");
        assert_eq!(code(&good[..10]), "SMG-E005");
        assert_eq!(code(&good[..good.len() - 3]), "SMG-E006");
        let mut v = good.clone();
        v[4] = 2;
        assert_eq!(code(&v), "SMG-E004");
        let mut v = good.clone();
        v[5] = 9;
        assert_eq!(code(&v), "SMG-E003");
        let mut v = good.clone();
        v[6] = 1;
        assert_eq!(code(&v), "SMG-E015");
        let mut v = good.clone();
        v[16] ^= 0xff;
        assert_eq!(code(&v), "SMG-E008");
        let mut v = good;
        v[8] += 1;
        assert_eq!(code(&v), "SMG-E005");
    }

    #[test]
    fn stops_a_decompression_bomb_at_the_limit() {
        let zeros = vec![b' '; 10 << 20];
        let mut json = b"{}".to_vec();
        json.extend_from_slice(&zeros);
        let bytes = encode(&json, &WriteOptions::new(Encoding::Brotli)).unwrap();
        assert!(bytes.len() < 10_000);
        let err = decode(&bytes, &Limits::default().with_max_bytes(1 << 20)).unwrap_err();
        assert_eq!(err.code(), "SMG-E007");
        // A lying header (small declared size) is caught by the bounded read.
        let mut lying = bytes.clone();
        lying[8..16].copy_from_slice(&1000u64.to_le_bytes());
        let err = decode(&lying, &Limits::default()).unwrap_err();
        assert_eq!(err.code(), "SMG-E006");
    }
}
