//! Extensions of the packed layout (spec §2.3): derived data, such as a search index,
//! stored in sections after the document's own and named in the index. An extension
//! records the CRC-32 of the head it was made from; a reader ignores one whose head
//! has since changed, and rewriting a file drops them all.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{finish, index_offset, read_index, slice, PackedArchive, Section, Writer, PACKED};
use crate::envelope::{HEADER_LEN, MAGIC};
use crate::error::{Error, Result};
use crate::limits::Limits;

/// One extension: where its bytes are, and the head they were made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Extension {
    section: Section,
    head_crc32: u32,
}

/// `packed` (the bytes of a packed file) with extension `name` set to `data`,
/// replacing one of that name. The document's sections are kept byte for byte; the
/// other extensions are kept when they belong to the same head.
///
/// ```
/// use smg_format::{packed::{with_extension, PackedArchive}, to_bytes, Document, Encoding, Limits, WriteOptions};
/// let packed = to_bytes(&Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z")), &WriteOptions::new(Encoding::Packed)).unwrap();
/// let with = with_extension(&packed, "search", b"index bytes").unwrap();
/// let path = std::env::temp_dir().join(format!("smg-ext-doc-{}.smg", std::process::id()));
/// std::fs::write(&path, &with).unwrap();
/// let file = PackedArchive::open(&path, &Limits::default()).unwrap();
/// assert_eq!(file.extension("search").unwrap().as_deref(), Some(&b"index bytes"[..]));
/// assert_eq!(file.extension("other").unwrap(), None);
/// # std::fs::remove_file(path).unwrap();
/// ```
pub fn with_extension(packed: &[u8], name: &str, data: &[u8]) -> Result<Vec<u8>> {
    if !is_packed(packed) {
        return Err(Error::InvalidArgument(
            "extensions belong to the packed layout; this is not a packed file".into(),
        ));
    }
    let offset = index_offset(packed, packed.len() as u64)? as usize;
    let mut index = read_index(packed, &packed[offset..], &Limits::default())?;
    let kept: BTreeMap<String, Vec<u8>> = std::mem::take(&mut index.extensions)
        .into_iter()
        .filter(|(n, e)| n != name && e.head_crc32 == index.head.crc32)
        .map(|(n, e)| {
            Ok((
                n,
                slice(packed, &e.section, &|| format!("extension {name}"))?.to_vec(),
            ))
        })
        .collect::<Result<_>>()?;
    // The document's sections end where the first extension (or the index) begins.
    let end = document_end(&index, offset);
    let mut w = Writer {
        out: packed[..end].to_vec(),
    };
    let head_crc32 = index.head.crc32;
    for (n, bytes) in kept
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .chain([(name, data)])
    {
        let section = w.section(bytes);
        index.extensions.insert(
            n.to_string(),
            Extension {
                section,
                head_crc32,
            },
        );
    }
    finish(&mut w.out, &index)?;
    Ok(w.out)
}

/// The bytes of extension `name` of a file: `None` when the file is not in the
/// packed layout, has no extension of that name, or has one made from another head.
pub fn read_extension<'a>(bytes: &'a [u8], name: &str) -> Result<Option<&'a [u8]>> {
    if !is_packed(bytes) {
        return Ok(None);
    }
    let offset = index_offset(bytes, bytes.len() as u64)? as usize;
    let index = read_index(bytes, &bytes[offset..], &Limits::default())?;
    match index.extensions.get(name) {
        Some(e) if e.head_crc32 == index.head.crc32 => {
            slice(bytes, &e.section, &|| format!("extension {name}")).map(Some)
        }
        _ => Ok(None),
    }
}

/// The extensions of a file, by name: their size in bytes and whether they belong to
/// the file's head (a reader ignores one that does not). Empty when the file is not
/// in the packed layout.
pub fn list_extensions(bytes: &[u8]) -> Result<Vec<(String, u64, bool)>> {
    if !is_packed(bytes) {
        return Ok(Vec::new());
    }
    let offset = index_offset(bytes, bytes.len() as u64)? as usize;
    let index = read_index(bytes, &bytes[offset..], &Limits::default())?;
    Ok(extensions_of(&index))
}

fn extensions_of(index: &super::Index) -> Vec<(String, u64, bool)> {
    index
        .extensions
        .iter()
        .map(|(n, e)| {
            (
                n.clone(),
                e.section.length,
                e.head_crc32 == index.head.crc32,
            )
        })
        .collect()
}

/// Whether `bytes` begin with a packed file's header.
fn is_packed(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER_LEN && bytes[..4] == MAGIC && bytes[5] == PACKED
}

/// Where the sections of the document end: the end of the last head, artifact or
/// block section.
fn document_end(index: &super::Index, index_offset: usize) -> usize {
    let end = |s: &Section| (s.offset + s.length) as usize;
    std::iter::once(&index.head)
        .chain(&index.artifact_sections)
        .chain(index.blocks.iter().map(|b| &b.section))
        .map(end)
        .max()
        .unwrap_or(HEADER_LEN)
        .min(index_offset)
}

impl PackedArchive {
    /// The file's extensions, as [`list_extensions`] gives them.
    pub fn extensions(&self) -> Vec<(String, u64, bool)> {
        extensions_of(&self.index)
    }

    /// The bytes of extension `name`: `None` when the file has none of that name, or
    /// when it was made from another head (the document changed since).
    pub fn extension(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.index.extensions.get(name) else {
            return Ok(None);
        };
        if e.head_crc32 != self.index.head.crc32 {
            return Ok(None);
        }
        self.read_section(&e.section, &|| format!("extension {name}"))
            .map(Some)
    }

    /// The length of extension `name`, when the file has a current one.
    pub fn extension_len(&self, name: &str) -> Option<u64> {
        let e = self.index.extensions.get(name)?;
        (e.head_crc32 == self.index.head.crc32).then_some(e.section.length)
    }

    /// Where extension `name` begins in the file, and the file's length, when the file
    /// has a current one: for a reader that maps the file and reads the extension in
    /// place (it should check that the file it maps is as long).
    pub fn extension_offset(&self, name: &str) -> Option<(u64, u64)> {
        self.extension_len(name)?;
        Some((self.index.extensions[name].section.offset, self.len))
    }

    /// Ask the system to read `len` bytes from `start` of extension `name` ahead, in
    /// the background, for a reader that will read them a little at a time (a hint:
    /// where the system takes none, or the range is not the extension's, nothing
    /// happens).
    pub fn prefetch_extension(&self, name: &str, start: u64, len: u64) {
        let Some(e) = self.index.extensions.get(name) else {
            return;
        };
        if start
            .checked_add(len)
            .is_some_and(|end| end <= e.section.length)
        {
            self.prefetch(e.section.offset + start, len);
        }
    }

    /// `len` bytes from `start` of extension `name` (`None` when the file has no
    /// current one), read without the section's CRC-32: for data that checks itself
    /// a part at a time, so that a reader need not read all of it. A range outside
    /// the extension is `SMG-E005`.
    pub fn extension_range(&self, name: &str, start: u64, len: u64) -> Result<Option<Vec<u8>>> {
        let Some(total) = self.extension_len(name) else {
            return Ok(None);
        };
        if start.checked_add(len).is_none_or(|end| end > total) {
            return Err(Error::Truncated(format!(
                "bytes {start}..+{len} lie outside extension {name} ({total} bytes)"
            )));
        }
        let offset = self.index.extensions[name].section.offset + start;
        self.read_range(offset, len).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_bytes, to_bytes, Document, Encoding, WriteOptions};

    fn packed() -> Vec<u8> {
        let mut doc = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        doc.metadata.project_name = Some("p".into());
        to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap()
    }

    fn open(bytes: &[u8]) -> PackedArchive {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.smg");
        std::fs::write(&path, bytes).unwrap();
        PackedArchive::open(&path, &Limits::default()).unwrap()
    }

    #[test]
    fn extensions_are_replaced_without_leaving_bytes_behind() {
        let base = packed();
        let one = with_extension(&base, "search", b"first").unwrap();
        let two = with_extension(&one, "search", b"second").unwrap();
        assert_eq!(two, with_extension(&base, "search", b"second").unwrap());
        let both = with_extension(&two, "other", b"x").unwrap();
        let file = open(&both);
        assert_eq!(file.extension("search").unwrap().unwrap(), b"second");
        assert_eq!(file.extension_len("search"), Some(6));
        assert_eq!(
            file.extension_range("search", 1, 3).unwrap().unwrap(),
            b"eco"
        );
        assert_eq!(file.extension_range("none", 0, 1).unwrap(), None);
        assert_eq!(
            file.extension_range("search", 4, 3).unwrap_err().code(),
            "SMG-E005"
        );
        assert_eq!(file.extension("other").unwrap().unwrap(), b"x");
        assert_eq!(
            read_extension(&both, "search").unwrap(),
            Some(&b"second"[..])
        );
        assert_eq!(read_extension(&both, "none").unwrap(), None);
        assert_eq!(read_extension(b"{}", "search").unwrap(), None);
        assert_eq!(
            list_extensions(&both).unwrap(),
            [
                ("other".to_string(), 1, true),
                ("search".to_string(), 6, true)
            ]
        );
        assert!(list_extensions(b"{}").unwrap().is_empty());
        // The document reads back the same, and a rewrite drops the extensions.
        let (doc, _) = from_bytes(&both, &Limits::default()).unwrap();
        assert_eq!(doc, from_bytes(&base, &Limits::default()).unwrap().0);
        assert_eq!(
            to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap(),
            base
        );
        let report = crate::validate::validate(&both, &crate::validate::ValidateOptions::default());
        assert!(report.is_valid(), "{:?}", report.findings);
    }

    #[test]
    fn an_extension_of_another_head_is_ignored_and_a_corrupt_one_refused() {
        let base = packed();
        let mut changed =
            Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        changed.metadata.project_name = Some("q".into());
        let other = to_bytes(&changed, &WriteOptions::new(Encoding::Packed)).unwrap();
        let with = with_extension(&base, "search", b"index").unwrap();
        // Graft the extension's index entry onto a file whose head differs.
        let offset = index_offset(&with, with.len() as u64).unwrap() as usize;
        let index = read_index(&with, &with[offset..], &Limits::default()).unwrap();
        let mut stale = with_extension(&other, "search", b"index").unwrap();
        let o2 = index_offset(&stale, stale.len() as u64).unwrap() as usize;
        let mut i2 = read_index(&stale, &stale[o2..], &Limits::default()).unwrap();
        i2.extensions.get_mut("search").unwrap().head_crc32 = index.head.crc32;
        stale.truncate(o2);
        finish(&mut stale, &i2).unwrap();
        assert_eq!(open(&stale).extension("search").unwrap(), None);
        assert_eq!(read_extension(&stale, "search").unwrap(), None);
        assert_eq!(
            list_extensions(&stale).unwrap(),
            [("search".to_string(), 5, false)]
        );

        let mut corrupt = with.clone();
        let e = index.extensions["search"];
        corrupt[e.section.offset as usize] ^= 1;
        assert_eq!(
            open(&corrupt).extension("search").unwrap_err().code(),
            "SMG-E006"
        );
        assert_eq!(
            with_extension(b"not packed at all, surely", "x", b"")
                .unwrap_err()
                .code(),
            "SMG-E020"
        );
    }
}
