//! Reading and writing whole documents: envelope, UTF-8, JSON, model, canonical bytes.
//!
//! ```
//! use smg_format::codec::{from_bytes_with, to_canonical_json};
//! use smg_format::{to_bytes, Document, Encoding, Limits, WriteOptions};
//! let doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let packed = to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap();
//! let (back, encoding) = from_bytes_with(&packed, &Limits::default(), None).unwrap();
//! assert_eq!(encoding, Encoding::Packed);
//! assert_eq!(to_canonical_json(&back).unwrap(), to_canonical_json(&doc).unwrap());
//! ```

use std::borrow::Cow;

use serde::Deserialize;

pub use crate::canonical::to_canonical_json_value;
use crate::canonical::to_vec;
use crate::envelope::zstandard::ZstdWriter;
use crate::envelope::{self, CutWriter, Encoding, Ready, WriteOptions};
use crate::error::{Error, Result};
pub use crate::head::Head;
use crate::limits::Limits;
use crate::model::Document;

pub(crate) mod lists;
pub(crate) mod streamed;

/// Parse canonical or non-canonical JSON text into a [`Document`].
///
/// Checks UTF-8, JSON syntax, nesting depth, the shape of every known field and the
/// format version; unknown fields are kept.
pub fn from_json_slice(json: &[u8]) -> Result<Document> {
    let text = std::str::from_utf8(json).map_err(|e| Error::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    // The model's version type refuses every version `check_version` refuses.
    match parse_typed(text) {
        Ok(doc) => Ok(doc),
        Err(e) => {
            // A file of another major version may fail on shape first; say so instead.
            if matches!(e, Error::Shape { .. }) {
                if let Ok(probe) = serde_json::from_str::<VersionProbe>(text) {
                    check_version(probe.version.as_deref())?;
                }
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
struct VersionProbe {
    version: Option<String>,
}

fn parse_typed(text: &str) -> Result<Document> {
    // Tracking the path costs every value of a large document; it is only needed to
    // say where a parse failed, so a failed parse is run again with it.
    if let Ok(doc) = serde_json::from_str(text) {
        return Ok(doc);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let doc: Document = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let pointer = path_to_pointer(e.path());
        Error::from_json(e.inner(), Some(pointer))
    })?;
    de.end().map_err(|e| Error::from_json(&e, None))?;
    Ok(doc)
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push('/');
                out.push_str(&crate::model::escape_pointer(key));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Check a `version` value: `"1"` or `"1.<minor>"` is accepted, anything else refused.
pub(crate) fn check_version(version: Option<&str>) -> Result<()> {
    let v = version.ok_or_else(|| Error::BadVersion("the field is missing".into()))?;
    let mut parts = v.split('.');
    let major = parts.next().unwrap_or_default();
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !numeric(major) || !parts.all(numeric) || v.split('.').count() > 3 {
        return Err(Error::BadVersion(format!("`{v}`")));
    }
    if !matches!(major.parse::<u64>().ok(), Some(1 | 2)) {
        return Err(Error::UnsupportedVersion(v.to_string()));
    }
    Ok(())
}

/// The canonical bytes of a document: RFC 8785 (JSON Canonicalization Scheme).
///
/// The same document always gives the same bytes, so files diff and hash well.
pub fn to_canonical_json(doc: &Document) -> Result<Vec<u8>> {
    crate::canonical::to_vec(crate::archive::settled(doc)?.as_ref())
}

/// [`to_canonical_json`], handed to `sink` in pieces as it is written: the graphs'
/// nodes and edges and the archive's blocks are written an item at a time, each
/// freed once written, so that the document's text is never held whole beside it.
/// The pieces joined are the bytes [`to_canonical_json`] gives.
///
/// ```
/// let doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let whole = smg_format::codec::to_canonical_json(&doc).unwrap();
/// let mut text = Vec::new();
/// smg_format::codec::write_canonical_json(doc, &mut |piece| {
///     text.extend_from_slice(piece);
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!(text, whole);
/// ```
pub fn write_canonical_json(
    doc: Document,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    lists::write_document(doc, sink)
}

/// Decode and parse a whole file's bytes, returning the document and its encoding.
///
/// A Brotli or Zstandard payload of more than 4 MiB is parsed while it decompresses,
/// on two threads, and its JSON text is never held whole (at a 100 MB file, 322 MB of
/// it); a file that does not read cleanly that way is read again whole, so that an
/// error is the same, code and pointer, whichever way it was met.
pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<(Document, Encoding)> {
    from_bytes_with(bytes, limits, None)
}

/// [`from_bytes`] for files that may be encrypted: an encrypted file is opened with
/// `passphrase` and the encoding returned is the one inside it.
pub fn from_bytes_with(
    bytes: &[u8],
    limits: &Limits,
    passphrase: Option<&[u8]>,
) -> Result<(Document, Encoding)> {
    if crate::crypto::is_encrypted(bytes) {
        let pass = passphrase.ok_or(Error::NeedPassphrase)?;
        let inner = crate::crypto::decrypt(bytes, pass, limits)?;
        if crate::crypto::is_encrypted(&inner) {
            return Err(Error::InvalidArgument(
                "an encrypted file inside an encrypted file is not allowed".into(),
            ));
        }
        return from_bytes_with(&inner, limits, None);
    }
    let encoding = envelope::detect(bytes)?;
    let (doc, encoding) = if encoding == Encoding::Packed {
        (crate::packed::unpack(bytes, limits)?, Encoding::Packed)
    } else if let Some(doc) = streamed::from_pieces(bytes, limits) {
        (doc, encoding)
    } else {
        let (encoding, json) = envelope::decode(bytes, limits)?;
        (from_json_slice(&json)?, encoding)
    };
    crate::counts::check_document(limits, &doc)?;
    Ok((doc, encoding))
}

/// Whether `bytes` hold a document [`from_bytes`] reads, told as it tells it (the
/// same error, code and pointer) without keeping the document: the semantic
/// graph's nodes and edges of a Brotli or Zstandard payload of more than 4 MiB, or of
/// a packed file's head, are each parsed and dropped as they decompress (and a packed
/// file's archive blocks checked and dropped), so that checking a file before
/// wrapping its bytes (`smg encrypt`) costs little more than the bytes. The file's
/// encoding.
///
/// ```
/// let doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let options = smg_format::WriteOptions::new(smg_format::Encoding::Brotli);
/// let bytes = smg_format::codec::to_bytes(&doc, &options).unwrap();
/// let limits = smg_format::Limits::default();
/// assert!(smg_format::codec::check_bytes(&bytes, &limits).is_ok());
/// assert!(smg_format::codec::check_bytes(b"{\"not\": \"a memory\"}", &limits).is_err());
/// ```
pub fn check_bytes(bytes: &[u8], limits: &Limits) -> Result<Encoding> {
    if crate::crypto::is_encrypted(bytes) {
        return from_bytes(bytes, limits).map(|(_, encoding)| encoding);
    }
    let encoding = envelope::detect(bytes)?;
    let counted = match encoding {
        Encoding::Packed => Some(crate::packed::unpack_counted(bytes, limits)?),
        _ => streamed::counted_pieces(bytes, limits),
    };
    match counted {
        Some((doc, counted)) => crate::counts::check_lean(limits, &doc, counted).map(|_| encoding),
        None => from_bytes(bytes, limits).map(|(_, encoding)| encoding),
    }
}

/// The document of `file` (`len` bytes, read from its start: Brotli or Zstandard)
/// parsed as the file is read and decompressed, with its encoding: neither its bytes
/// nor its JSON text are held whole. `None` when it is to be read whole
/// ([`from_bytes`]): another encoding, too small to gain from this, or not read
/// cleanly (the whole read then says what is wrong).
pub(crate) fn from_file(
    file: std::fs::File,
    len: u64,
    limits: &Limits,
) -> Result<Option<(Document, Encoding)>> {
    from_file_sized(file, len, limits, crate::envelope::stream::SIZES)
}

/// [`from_file`] with the sizes of [`crate::envelope::stream::each_piece`].
pub(crate) fn from_file_sized(
    file: std::fs::File,
    len: u64,
    limits: &Limits,
    sizes: (u64, usize),
) -> Result<Option<(Document, Encoding)>> {
    let Some((doc, encoding)) = streamed::from_file_sized(file, len, limits, sizes) else {
        return Ok(None);
    };
    crate::counts::check_document(limits, &doc)?;
    Ok(Some((doc, encoding)))
}

/// [`from_file`] read lean ([`crate::merge::Lean`]).
pub(crate) fn lean_from_file(
    file: std::fs::File,
    len: u64,
    limits: &Limits,
) -> Result<Option<(crate::merge::Lean, Encoding)>> {
    let sizes = crate::envelope::stream::SIZES;
    let Some((doc, lean, encoding)) =
        streamed::lean_from_file_sized(file, len, limits, sizes, true)
    else {
        return Ok(None);
    };
    let lean = lean.unwrap_or_default();
    let left_out = (lean.left_out.len() as u64, lean.dropped);
    crate::counts::check_lean(limits, &doc, left_out)?;
    Ok(Some((
        crate::merge::Lean::read(doc, lean.left_out),
        encoding,
    )))
}

/// Decode a whole file of any unencrypted encoding to its JSON text, enforcing
/// `limits`: [`envelope::decode`] for JSON, Brotli and Zstandard (borrowed for plain
/// JSON), and the canonical JSON of the document a packed file holds.
pub fn decode_json<'a>(bytes: &'a [u8], limits: &Limits) -> Result<(Encoding, Cow<'a, [u8]>)> {
    if envelope::detect(bytes)? == Encoding::Packed {
        let doc = crate::packed::unpack(bytes, limits)?;
        return Ok((Encoding::Packed, Cow::Owned(to_vec(&doc)?)));
    }
    envelope::decode(bytes, limits)
}

/// Serialise a document canonically and wrap it in the requested encoding.
pub fn to_bytes(doc: &Document, options: &WriteOptions) -> Result<Vec<u8>> {
    if options.encoding == Encoding::Packed {
        return crate::packed::pack(doc.clone(), options.level);
    }
    let json = to_canonical_json(doc)?;
    envelope::encode(&json, options)
}

/// [`to_bytes`] for a document that is no longer needed: it is dropped as soon as it is
/// serialised, before compression, so that a large document and its compressor are
/// never in memory together. The bytes are the same as [`to_bytes`]'s.
///
/// The document is written a list item at a time ([`write_canonical_json`]), each
/// item freed once written. In Brotli (the default), the text is compressed a few cuts
/// at a time as it comes; in Zstandard, its length is measured first and it is
/// compressed as it comes: in neither is it held whole.
pub fn into_bytes(doc: Document, options: &WriteOptions) -> Result<Vec<u8>> {
    if options.encoding == Encoding::Packed {
        return crate::packed::pack(doc, options.level);
    }
    if options.encoding == Encoding::Zstd {
        // Measured first, so that the text is compressed as it is written.
        let (_, len) = crate::canonical::member_lengths(&doc)?;
        let mut writer = ZstdWriter::new(len, options.level)?;
        lists::write_document(doc, &mut |piece| writer.write(piece))?;
        return writer.finish();
    }
    let writer = CutWriter::for_options(options, Ready::default(), Vec::new())?;
    written(doc, writer, 0, options)
}

/// [`into_bytes`] of a document whose [`Head`] was taken out of it and compressed
/// (with the same options) while the rest was built: the bytes [`into_bytes`] gives
/// of the whole document, sooner. An error if the document took other leading
/// members (`@context`, `@type`, the vault…) in the meantime.
pub fn into_bytes_with_head(doc: Document, options: &WriteOptions, head: Head) -> Result<Vec<u8>> {
    let head = head.0;
    head.check(&doc, options)?;
    let (ready, tail, kept) = head.into_parts();
    // The document's text opens with the leading members it kept, which the head's
    // text holds already.
    written(
        doc,
        CutWriter::for_options(options, ready, tail)?,
        kept,
        options,
    )
}

/// The document's text after its first `skip` bytes (which `writer` holds already)
/// written to `writer`, a list item at a time, then encoded as `options` say.
fn written(
    doc: Document,
    mut writer: CutWriter,
    mut skip: usize,
    options: &WriteOptions,
) -> Result<Vec<u8>> {
    lists::write_document(doc, &mut |piece| {
        let skipped = skip.min(piece.len());
        skip -= skipped;
        writer.write(&piece[skipped..])
    })?;
    let (ready, text) = writer.into_parts();
    if options.encoding == Encoding::Json {
        return Ok(text);
    }
    encode_pieces(&[text.into()], options, Some(ready))
}

/// [`envelope::encode_pieces`], and the packed layout of the document the pieces are
/// the JSON of (the envelope knows nothing of documents).
fn encode_pieces(
    pieces: &[Cow<'_, [u8]>],
    options: &WriteOptions,
    ready: Option<Ready>,
) -> Result<Vec<u8>> {
    if options.encoding == Encoding::Packed {
        let doc = from_json_slice(&pieces.concat())?;
        return crate::packed::pack(doc, options.level);
    }
    envelope::encode_pieces(pieces, options, ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_json(extra: &str) -> String {
        format!(
            r#"{{"@context":"https://w3id.org/smg/v1","@type":"SemanticMemoryGraph","version":"1.0","metadata":{{"created":"2025-12-04T10:30:00Z"}}{extra}}}"#
        )
    }

    #[test]
    fn a_large_document_is_compressed_as_it_is_written_to_the_same_bytes() {
        let json = doc_json(r#","semanticGraph":{"zz":[1]},"zUnknown":"x""#);
        use crate::model::NonEmpty;
        let mut doc = from_json_slice(json.as_bytes()).unwrap();
        let graph = doc.semantic_graph.as_mut().unwrap();
        // Over four 4 MiB cuts of JSON (compressed as written), and more.
        let nodes: Vec<crate::model::Node> = (0..60_000)
            .map(|i| crate::model::Node {
                label: Some(format!("label {i} {}", "x".repeat(i % 400))),
                ..crate::model::Node::new(
                    NonEmpty::new(format!("n{i}")).unwrap(),
                    NonEmpty::from_static("concept"),
                )
            })
            .collect();
        graph.edges = Some(
            nodes
                .windows(2)
                .map(|w| {
                    crate::model::Edge::new(
                        w[0].id.clone(),
                        NonEmpty::from_static("next"),
                        w[1].id.clone(),
                    )
                })
                .collect(),
        );
        graph.nodes = Some(nodes);
        assert!(to_canonical_json(&doc).unwrap().len() > 17 << 20);
        for encoding in [Encoding::Brotli, Encoding::Zstd] {
            let options = WriteOptions::new(encoding);
            let written = to_bytes(&doc, &options).unwrap();
            assert!(
                into_bytes(doc.clone(), &options).unwrap() == written,
                "{encoding:?}"
            );
            assert_eq!(from_bytes(&written, &Limits::default()).unwrap().0, doc);
        }
    }

    #[test]
    fn into_bytes_writes_what_to_bytes_writes() {
        let json = doc_json(
            r#","semanticGraph":{"nodes":[{"id":"a","type":"concept"}]},"zUnknown":{"a":"}"},"sa":1"#,
        );
        let doc = from_json_slice(json.as_bytes()).unwrap();
        for encoding in [
            Encoding::Json,
            Encoding::Brotli,
            Encoding::Zstd,
            Encoding::Packed,
        ] {
            let options = WriteOptions::new(encoding);
            assert_eq!(
                into_bytes(doc.clone(), &options).unwrap(),
                to_bytes(&doc, &options).unwrap(),
                "{encoding:?}"
            );
        }
    }

    #[test]
    fn keeps_unknown_fields_at_every_level() {
        let json = doc_json(
            r#","futureTop":{"x":[1,2]},"semanticGraph":{"nodes":[{"id":"a","type":"concept","zeta":true}],"edges":[],"graphExtra":1}"#,
        );
        let doc = from_json_slice(json.as_bytes()).unwrap();
        assert_eq!(doc.extra["futureTop"]["x"][1], 2);
        let out = String::from_utf8(to_canonical_json(&doc).unwrap()).unwrap();
        assert!(out.contains(r#""zeta":true"#), "{out}");
        assert!(out.contains(r#""graphExtra":1"#), "{out}");
        assert_eq!(from_json_slice(out.as_bytes()).unwrap(), doc);
    }

    #[test]
    fn canonical_output_sorts_keys_and_is_stable() {
        let json = doc_json(r#","b":1,"a":{"d":1,"c":2}"#);
        let doc = from_json_slice(json.as_bytes()).unwrap();
        let once = to_canonical_json(&doc).unwrap();
        let twice = to_canonical_json(&from_json_slice(&once).unwrap()).unwrap();
        assert_eq!(once, twice);
        let s = String::from_utf8(once).unwrap();
        assert!(s.starts_with(r#"{"@context":"#), "{s}");
        assert!(s.find(r#""a":{"c":2,"d":1}"#).unwrap() < s.find(r#""b":1"#).unwrap());
    }

    #[test]
    fn wrong_types_name_the_pointer() {
        let json = doc_json(
            r#","semanticGraph":{"nodes":[{"id":"a","type":"concept","importance":"high"}]}"#,
        );
        let err = from_json_slice(json.as_bytes()).unwrap_err();
        assert_eq!(err.code(), "SMG-E012");
        assert_eq!(err.pointer(), "/semanticGraph/nodes/0/importance");
    }

    #[test]
    fn versions() {
        assert!(check_version(Some("1.0")).is_ok());
        assert!(check_version(Some("1.7")).is_ok());
        assert!(check_version(Some("1")).is_ok());
        assert!(check_version(Some("2.0")).is_ok());
        assert_eq!(check_version(Some("3.0")).unwrap_err().code(), "SMG-E013");
        assert_eq!(check_version(Some("one")).unwrap_err().code(), "SMG-E014");
        assert_eq!(check_version(Some("1..0")).unwrap_err().code(), "SMG-E014");
        assert_eq!(check_version(None).unwrap_err().code(), "SMG-E014");
        let v3 = r#"{"@context":"x","@type":"SemanticMemoryGraph","version":"3.0","metadata":7}"#;
        assert_eq!(
            from_json_slice(v3.as_bytes()).unwrap_err().code(),
            "SMG-E013"
        );
    }

    #[test]
    fn hostile_text_gets_codes_not_panics() {
        let code = |b: &[u8]| from_json_slice(b).unwrap_err().code();
        assert_eq!(code(b"{\"a\":\"\xff\"}"), "SMG-E009");
        assert_eq!(code(b"{\"@context\": "), "SMG-E010");
        assert_eq!(code(b"[1,2]"), "SMG-E012");
        let deep = "[".repeat(100_000);
        assert_eq!(code(format!("{{\"a\":{deep}").as_bytes()), "SMG-E011");
        let mut trailing = doc_json("");
        trailing.push_str(" {}");
        assert_eq!(code(trailing.as_bytes()), "SMG-E010");
    }
}
