//! Delta files (`.smgd`, spec §17): a compact patch that turns one `.smg` file into
//! another, byte for byte, and refuses any other base.
//!
//! The patch is a Zstandard frame of the target's canonical JSON compressed with the
//! base's canonical JSON as its reference prefix, so everything the two files share
//! costs almost nothing. A target that re-encoding cannot reproduce (a hand-formatted
//! JSON file, a compression level not tried) is patched at the level of file bytes
//! instead; either way the rebuilt file is checked against the target's SHA-256.
//!
//! ```
//! use smg_format::{delta::{apply_delta, make_delta, DeltaOptions}, to_bytes, Document, Encoding, WriteOptions};
//! let options = WriteOptions::new(Encoding::Brotli);
//! let v1 = to_bytes(&Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z")), &options).unwrap();
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! doc.metadata.project_name = Some("atlas".into());
//! let v2 = to_bytes(&doc, &options).unwrap();
//! let delta = make_delta(&v1, &v2, &DeltaOptions::default()).unwrap().bytes;
//! assert_eq!(apply_delta(&v1, &delta, &DeltaOptions::default()).unwrap(), v2);
//! assert_eq!(apply_delta(&v2, &delta, &DeltaOptions::default()).unwrap_err().code(), "SMG-E160");
//! ```

use std::borrow::Cow;
use std::io::Write;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::codec::{from_bytes, to_bytes};
use crate::crypto::{decrypt, encrypt, encrypt_with, is_encrypted, params};
use crate::envelope::{detect, read_bounded, Encoding, WriteOptions};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::Document;

/// The four magic bytes of a delta file: `0x89 'S' 'M' 'D'`.
pub const DELTA_MAGIC: [u8; 4] = [0x89, b'S', b'M', b'D'];
const DELTA_VERSION: u8 = 1;
/// Magic, version, three reserved bytes, header length.
const PREFIX_LEN: usize = 12;
/// Targets up to this size are re-encoded at every compression level to find the one
/// that reproduces them; larger ones try only the default level (each try costs a
/// whole compression).
const FULL_LEVEL_SEARCH: usize = 16 << 20;

/// Settings for making and applying deltas.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DeltaOptions {
    /// The passphrase of encrypted bases and targets (one for both).
    pub passphrase: Option<Zeroizing<Vec<u8>>>,
    /// Bounds on everything decompressed.
    pub limits: Limits,
    /// Zstandard level of the patch, 1–22 (making only).
    pub level: i32,
}

impl Default for DeltaOptions {
    fn default() -> Self {
        DeltaOptions {
            passphrase: None,
            limits: Limits::default(),
            level: 19,
        }
    }
}

impl DeltaOptions {
    /// These options with a passphrase.
    pub fn with_passphrase(mut self, passphrase: &[u8]) -> Self {
        self.passphrase = Some(Zeroizing::new(passphrase.to_vec()));
        self
    }

    /// These options with other limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with another patch compression level.
    pub fn with_level(mut self, level: i32) -> Self {
        self.level = level;
        self
    }

    fn passphrase(&self) -> Result<&[u8]> {
        self.passphrase
            .as_deref()
            .map(Vec::as_slice)
            .ok_or(Error::NeedPassphrase)
    }
}

/// A file a delta names: its SHA-256 and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FileRef {
    /// SHA-256 of the whole file, lowercase hex.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
}

impl FileRef {
    fn of(bytes: &[u8]) -> Self {
        FileRef {
            sha256: hex::encode(Sha256::digest(bytes)),
            bytes: bytes.len() as u64,
        }
    }
}

/// What the patch rebuilds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatchKind {
    /// The target's canonical JSON, from the base's; then encoded as `encoding`.
    Document,
    /// The target's (unencrypted) file bytes, from the base's.
    File,
}

impl PatchKind {
    /// The name used in the header: `document` or `file`.
    pub fn name(self) -> &'static str {
        match self {
            PatchKind::Document => "document",
            PatchKind::File => "file",
        }
    }
}

/// How an encrypted target is encrypted again after its inner file is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Reencryption {
    /// PBKDF2 iterations.
    pub iterations: u64,
    /// The target's salt, hex.
    pub salt: String,
    /// The target's nonce, hex.
    pub nonce: String,
    /// SHA-256 of the inner file, checked before encrypting so that the nonce never
    /// encrypts other content.
    pub inner_sha256: String,
}

/// The header of a delta file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct DeltaHeader {
    /// The only file this delta applies to.
    pub base: FileRef,
    /// The file it rebuilds.
    pub target: FileRef,
    /// What the patch holds.
    pub patch: PatchKind,
    /// The target's encoding (of its inner file when encrypted), for document patches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// The compression level that reproduces the target, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
    /// Present when the target is encrypted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption: Option<Reencryption>,
    /// Size of what the patch decompresses to.
    pub content_bytes: u64,
    /// For document patches that carry archive blocks: how much of the content is the
    /// document's JSON (the carried blocks' JSON follows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_bytes: Option<u64>,
    /// Base blocks (positions) whose JSON follows the base's in the reference prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_blocks: Vec<usize>,
    /// Target blocks carried as JSON, in the order their JSON follows the document's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ExpandedBlock>,
}

/// A delta file as made: its bytes, and the header they hold (readable without
/// decrypting the delta again).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Delta {
    /// The delta file's bytes.
    pub bytes: Vec<u8>,
    /// Its header.
    pub header: DeltaHeader,
}

impl Delta {
    /// The header as JSON, with the delta's size as `deltaBytes` (what `smg diff
    /// --delta --json` prints and the C ABI returns).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.header).unwrap_or_default();
        v["deltaBytes"] = self.bytes.len().into();
        v
    }
}

/// Make the delta that turns the file `base` into the file `target`.
///
/// The delta is encrypted (with the passphrase) when either file is, since it
/// carries the target's content.
pub fn make_delta(base: &[u8], target: &[u8], options: &DeltaOptions) -> Result<Delta> {
    let base_inner = inner(base, options)?;
    let target_inner = inner(target, options)?;
    let mut blocks = (None, Vec::new(), Vec::new());
    let (patch, write, prefix, content) = match reproducing(&target_inner, options)? {
        Some((write, target_doc)) => {
            let (base_doc, _) = from_bytes(&base_inner, &options.limits)?;
            let listed = expand::base_only(&base_doc, &target_doc, &options.limits);
            let prefix = Cow::Owned(expand::prefix(&base_doc, &listed, &options.limits)?);
            let (content, json_bytes, carried) =
                expand::content(&base_doc, &target_doc, &options.limits)?;
            blocks = ((!carried.is_empty()).then_some(json_bytes), listed, carried);
            (
                PatchKind::Document,
                Some(write),
                prefix,
                Cow::Owned(content),
            )
        }
        None => (
            PatchKind::File,
            None,
            base_inner.clone(),
            target_inner.clone(),
        ),
    };
    let encryption = match is_encrypted(target) {
        true => {
            let (iterations, salt, nonce) = params(target)?;
            Some(Reencryption {
                iterations,
                salt: hex::encode(salt),
                nonce: hex::encode(nonce),
                inner_sha256: hex::encode(Sha256::digest(&target_inner[..])),
            })
        }
        false => None,
    };
    let header = DeltaHeader {
        base: FileRef::of(base),
        target: FileRef::of(target),
        patch,
        encoding: write.map(|w| w.encoding.name().to_string()),
        level: write.and_then(|w| w.level),
        encryption,
        content_bytes: content.len() as u64,
        json_bytes: blocks.0,
        base_blocks: blocks.1,
        blocks: blocks.2,
    };
    let patch = compress(&prefix, &content, options.level)?;
    let mut out = Vec::with_capacity(PREFIX_LEN + 512 + patch.len());
    let header_json = crate::canonical::to_vec(&header)?;
    out.extend_from_slice(&DELTA_MAGIC);
    out.extend_from_slice(&[DELTA_VERSION, 0, 0, 0]);
    out.extend_from_slice(&(header_json.len() as u32).to_le_bytes());
    out.extend_from_slice(&header_json);
    out.extend_from_slice(&patch);
    if is_encrypted(base) || is_encrypted(target) {
        let iterations =
            crate::crypto::encrypted_iterations(if is_encrypted(target) { target } else { base })?;
        out = encrypt(&out, options.passphrase()?, iterations)?;
    }
    Ok(Delta { bytes: out, header })
}

/// Rebuild the target of `delta` from its base; any other base is refused (`SMG-E160`).
pub fn apply_delta(base: &[u8], delta: &[u8], options: &DeltaOptions) -> Result<Vec<u8>> {
    let plain = plain_delta(delta, options)?;
    let (header, patch) = split(&plain)?;
    let actual = FileRef::of(base);
    if actual.sha256 != header.base.sha256 {
        return Err(Error::DeltaBase {
            expected: header.base.sha256,
            actual: actual.sha256,
        });
    }
    if header.content_bytes > options.limits.max_bytes {
        return Err(Error::TooLarge {
            limit: options.limits.max_bytes,
        });
    }
    let base_inner = inner(base, options)?;
    let max = header.content_bytes;
    let (rebuilt, written_before) = match header.patch {
        PatchKind::Document => {
            let (base_doc, _) = from_bytes(&base_inner, &options.limits)?;
            let prefix = expand::prefix(&base_doc, &header.base_blocks, &options.limits)?;
            let content = decompress(&prefix, patch, max)?;
            let json_bytes = header.json_bytes.unwrap_or(content.len() as u64);
            let doc = expand::rebuild(&content, json_bytes, &header.blocks)?;
            let write = write_options(&header)?;
            let bytes = to_bytes(&doc, &write)?;
            // A packed target at the default level may be a file smg wrote before heads
            // over 4 MiB went in pieces: kept to be written that way if these bytes fail.
            let old_default = header.level.is_none() && write.encoding == Encoding::Packed;
            (bytes, old_default.then_some(doc))
        }
        PatchKind::File => (decompress(&base_inner, patch, max)?, None),
    };
    match (target(rebuilt, &header, options), written_before) {
        (Err(Error::BadDelta(_)), Some(doc)) => {
            target(crate::packed::pack_one_stream(doc)?, &header, options)
        }
        (out, _) => out,
    }
}

/// The target from its rebuilt inner file: encrypted again when it was, and checked
/// against the target's SHA-256.
fn target(inner: Vec<u8>, header: &DeltaHeader, options: &DeltaOptions) -> Result<Vec<u8>> {
    let out = match &header.encryption {
        Some(e) => reencrypt(&inner, e, options)?,
        None => inner,
    };
    if FileRef::of(&out) != header.target {
        return Err(Error::BadDelta(format!(
            "the rebuilt file does not hash to the target's SHA-256 {}",
            header.target.sha256
        )));
    }
    Ok(out)
}

/// Read a delta's header (decrypting the delta first when it is encrypted).
pub fn delta_header(delta: &[u8], options: &DeltaOptions) -> Result<DeltaHeader> {
    split(&plain_delta(delta, options)?).map(|(h, _)| h)
}

/// The unencrypted file inside `bytes` (the bytes themselves when not encrypted).
fn inner<'a>(bytes: &'a [u8], options: &DeltaOptions) -> Result<Cow<'a, [u8]>> {
    if is_encrypted(bytes) {
        let plain = decrypt(bytes, options.passphrase()?, &options.limits)?;
        return Ok(Cow::Owned(plain.to_vec()));
    }
    Ok(Cow::Borrowed(bytes))
}

fn plain_delta<'a>(delta: &'a [u8], options: &DeltaOptions) -> Result<Cow<'a, [u8]>> {
    let plain = inner(delta, options)?;
    if !plain.starts_with(&DELTA_MAGIC) {
        return Err(Error::BadDelta(
            "not a delta file (expected the magic 89 53 4d 44)".into(),
        ));
    }
    Ok(plain)
}

/// The write options that turn the target's document back into exactly `target`, if
/// any, with that document.
fn reproducing(target: &[u8], options: &DeltaOptions) -> Result<Option<(WriteOptions, Document)>> {
    let encoding = detect(target)?;
    let levels: Vec<i32> = match encoding {
        Encoding::Brotli | Encoding::Packed => (0..=11).collect(),
        Encoding::Zstd => (1..=22).collect(),
        _ => Vec::new(),
    };
    if !matches!(
        encoding,
        Encoding::Json | Encoding::Brotli | Encoding::Zstd | Encoding::Packed
    ) {
        return Ok(None);
    }
    let (doc, _) = from_bytes(target, &options.limits)?;
    let default = WriteOptions::new(encoding);
    if to_bytes(&doc, &default)? == target {
        return Ok(Some((default, doc)));
    }
    if target.len() > FULL_LEVEL_SEARCH {
        return Ok(None);
    }
    for level in levels {
        let write = default.with_level(level);
        if to_bytes(&doc, &write)? == target {
            return Ok(Some((write, doc)));
        }
    }
    Ok(None)
}

fn write_options(header: &DeltaHeader) -> Result<WriteOptions> {
    let name = header
        .encoding
        .as_deref()
        .ok_or_else(|| Error::BadDelta("a document patch without an encoding".into()))?;
    let encoding: Encoding = name
        .parse()
        .map_err(|_| Error::BadDelta(format!("unknown target encoding `{name}`")))?;
    let write = WriteOptions::new(encoding);
    Ok(match header.level {
        Some(level) => write.with_level(level),
        None => write,
    })
}

fn reencrypt(inner: &[u8], e: &Reencryption, options: &DeltaOptions) -> Result<Vec<u8>> {
    if hex::encode(Sha256::digest(inner)) != e.inner_sha256 {
        return Err(Error::BadDelta(
            "the rebuilt inner file does not hash to the delta's innerSha256".into(),
        ));
    }
    let bad = |what: &str| Error::BadDelta(format!("the encryption {what} is not valid hex"));
    let salt: [u8; 16] = hex::decode(&e.salt)
        .ok()
        .and_then(|v| v.try_into().ok())
        .ok_or_else(|| bad("salt"))?;
    let nonce: [u8; 12] = hex::decode(&e.nonce)
        .ok()
        .and_then(|v| v.try_into().ok())
        .ok_or_else(|| bad("nonce"))?;
    encrypt_with(inner, options.passphrase()?, e.iterations, &salt, &nonce)
}

fn split(plain: &[u8]) -> Result<(DeltaHeader, &[u8])> {
    if plain.len() < PREFIX_LEN {
        return Err(Error::BadDelta(format!(
            "{} bytes is shorter than the {PREFIX_LEN}-byte delta prefix",
            plain.len()
        )));
    }
    if plain[4] != DELTA_VERSION || plain[5..8] != [0, 0, 0] {
        return Err(Error::BadDelta(format!(
            "delta version {} with reserved bytes {:?} (this reader knows version 1)",
            plain[4],
            &plain[5..8]
        )));
    }
    let len = u32::from_le_bytes(plain[8..12].try_into().expect("4 bytes")) as usize;
    let rest = &plain[PREFIX_LEN..];
    if len > rest.len() {
        return Err(Error::BadDelta(format!(
            "the header is {len} bytes, only {} follow",
            rest.len()
        )));
    }
    let header: DeltaHeader = serde_json::from_slice(&rest[..len])
        .map_err(|e| Error::BadDelta(format!("the header does not parse: {e}")))?;
    Ok((header, &rest[len..]))
}

fn window_log(total: usize) -> u32 {
    (usize::BITS - total.max(1 << 10).saturating_sub(1).leading_zeros()).clamp(10, 31)
}

fn compress(prefix: &[u8], content: &[u8], level: i32) -> Result<Vec<u8>> {
    let fail = |e: std::io::Error| Error::InvalidArgument(format!("zstd refused the patch: {e}"));
    let mut encoder =
        zstd::stream::write::Encoder::with_ref_prefix(Vec::new(), level, prefix).map_err(fail)?;
    encoder
        .window_log(window_log(prefix.len() + content.len()))
        .map_err(fail)?;
    encoder.long_distance_matching(true).map_err(fail)?;
    encoder
        .set_pledged_src_size(Some(content.len() as u64))
        .map_err(fail)?;
    encoder.include_checksum(false).map_err(fail)?;
    encoder.write_all(content).map_err(fail)?;
    encoder.finish().map_err(fail)
}

fn decompress(prefix: &[u8], patch: &[u8], max: u64) -> Result<Vec<u8>> {
    let corrupt =
        |e: std::io::Error| Error::BadDelta(format!("the patch does not decompress: {e}"));
    let mut decoder =
        zstd::stream::read::Decoder::with_ref_prefix(patch, prefix).map_err(corrupt)?;
    decoder
        .window_log_max(window_log(prefix.len().saturating_add(max as usize)))
        .map_err(corrupt)?;
    let capacity = usize::try_from(max).unwrap_or(0);
    let out = read_bounded(decoder, max, "zstd", capacity).map_err(|e| match e {
        Error::TooLarge { .. } => Error::BadDelta(format!(
            "the patch holds more than the {max} bytes it declares"
        )),
        Error::Decompress { detail, .. } => {
            Error::BadDelta(format!("the patch does not decompress: {detail}"))
        }
        other => other,
    })?;
    if out.len() as u64 != max {
        return Err(Error::BadDelta(format!(
            "the patch holds {} bytes, the header declares {max}",
            out.len()
        )));
    }
    Ok(out)
}

mod expand;

pub use expand::ExpandedBlock;

#[cfg(test)]
mod tests;
