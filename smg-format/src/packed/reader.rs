//! Reading a packed file a section at a time: the index at open, then only the blocks
//! and artifacts asked for.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use super::json::{brotli_json_seed, Entry};
use super::{index_offset, read_index, Index, Section, PACKED};
use crate::archive::parse_turn_range;
use crate::envelope::{HEADER_LEN, MAGIC};
use crate::error::{Error, Result};
use crate::limits::{Bound, Limits};
use crate::model::{Artifact, Document, Turn};

/// A packed file opened for reading a section at a time: only the index is read at
/// open; each turn costs reading and decompressing its own block (and any artifact
/// its code is stored in), and the whole document its head, artifact and block
/// sections (never the extensions).
#[derive(Debug)]
pub struct PackedArchive {
    file: File,
    pub(super) len: u64,
    pub(super) index: Index,
    limits: Limits,
}

impl PackedArchive {
    /// Open a packed file and read its index.
    pub fn open(path: &Path, limits: &Limits) -> Result<Self> {
        Self::open_if_packed(path, limits)?.ok_or_else(|| {
            Error::InvalidArgument(format!("{} is not a packed .smg file", path.display()))
        })
    }

    /// [`PackedArchive::open`], or `None` when the file's first bytes are not a
    /// packed file's header (another encoding, or too short to tell).
    pub fn open_if_packed(path: &Path, limits: &Limits) -> Result<Option<Self>> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Self::of_file(file, limits).map_err(|e| match e {
            Error::Io { source, .. } => Error::io(path, source),
            e => e,
        })
    }

    /// [`PackedArchive::open_if_packed`] for a file already open: what it reads
    /// later is read from that file, even when its path is given to another since.
    pub fn of_file(file: File, limits: &Limits) -> Result<Option<Self>> {
        let io = |e| Error::io("packed file", e);
        let len = file.metadata().map_err(io)?.len();
        let mut header = [0u8; HEADER_LEN];
        if read_at(&file, &mut header, 0).is_err() || header[..4] != MAGIC || header[5] != PACKED {
            return Ok(None);
        }
        let offset = index_offset(&header, len)?;
        let mut index_bytes = vec![0u8; (len - offset) as usize];
        read_at(&file, &mut index_bytes, offset).map_err(io)?;
        let index = read_index(&header, &index_bytes, limits)?;
        Ok(Some(PackedArchive {
            file,
            len,
            index,
            limits: *limits,
        }))
    }

    /// The whole document the file holds, as [`crate::codec::from_bytes`] gives it from
    /// the whole file's bytes, reading
    /// only the sections it is made of: the extensions (a search index often as
    /// large as the rest) are neither read nor held.
    pub fn document(&self) -> Result<Document> {
        let doc = self.assembled()?;
        crate::counts::check_document(&self.limits, &doc)?;
        Ok(doc)
    }

    /// [`PackedArchive::document`] without the check of its counts against the
    /// limits, which validation makes in its own order.
    pub(crate) fn assembled(&self) -> Result<Document> {
        let read = |s: &super::Section, what: &dyn Fn() -> String| {
            self.read_section(s, what).map(std::borrow::Cow::Owned)
        };
        super::assemble(&self.index, &self.limits, &read, super::Assembly::Whole)
            .map(|(doc, _)| doc)
    }

    /// The file's length in bytes when it was opened.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// Turn ranges of the blocks, in file order.
    pub fn block_ranges(&self) -> impl Iterator<Item = (u64, &str)> {
        self.index
            .blocks
            .iter()
            .map(|b| (b.id, b.turn_range.as_str()))
    }

    pub(super) fn read_section(&self, s: &Section, what: &dyn Fn() -> String) -> Result<Vec<u8>> {
        let buf = self.read_range(s.offset, s.length).map_err(|e| match e {
            Error::Truncated(_) => {
                Error::Truncated(format!("{} lies past the end of the file", what()))
            }
            e => e,
        })?;
        if crc32fast::hash(&buf) != s.crc32 {
            return Err(Error::Decompress {
                encoding: "packed",
                detail: format!("{} fails its CRC-32 check", what()),
            });
        }
        Ok(buf)
    }

    /// Read `len` bytes from `offset` ahead, in the background.
    pub(super) fn prefetch(&self, offset: u64, len: u64) {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{fadvise, Advice};
            // A hint: if the kernel declines it, reads are only slower.
            let _ = fadvise(
                &self.file,
                offset,
                std::num::NonZeroU64::new(len),
                Advice::WillNeed,
            );
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (offset, len);
    }

    /// `len` bytes of the file from `offset`, which must lie inside it.
    pub(super) fn read_range(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        if offset.checked_add(len).is_none_or(|e| e > self.len) {
            return Err(Error::Truncated(format!(
                "bytes {offset}..+{len} lie past the end of the file"
            )));
        }
        let mut buf = vec![0u8; len as usize];
        read_at(&self.file, &mut buf, offset).map_err(|e| Error::io("packed file", e))?;
        Ok(buf)
    }

    /// One archived turn, byte for byte, reading only its block.
    pub fn turn(&self, n: u64) -> Result<Turn> {
        let (k, block) = self
            .index
            .blocks
            .iter()
            .enumerate()
            .find(|(_, b)| parse_turn_range(&b.turn_range).is_some_and(|(a, z)| a <= n && n <= z))
            .ok_or_else(|| Error::InvalidArgument(format!("turn {n} is not in the archive")))?;
        let json = self.block_json(k)?;
        let wanted = crate::archive::parse_turns(block.id, &json)?
            .into_iter()
            .find(|t| t.turn.turn == n)
            .ok_or_else(|| Error::InvalidArgument(format!("turn {n} is not in the archive")))?;
        self.materialize(block.id, wanted, &mut HashMap::new())
    }

    /// How many archive blocks the file holds.
    pub fn block_count(&self) -> usize {
        self.index.blocks.len()
    }

    /// Every turn of the `k`-th block (in file order), byte for byte, reading only
    /// that block (and the artifacts its code is stored in).
    pub fn block(&self, k: usize) -> Result<Vec<Turn>> {
        let json = self.block_json(k)?;
        let id = self.index.blocks[k].id;
        let stored = crate::archive::parse_turns(id, &json)?;
        let at = format!("archive block {id}");
        self.limits.check(Bound::Turns, stored.len() as u64, &at)?;
        let mut cache = HashMap::new();
        stored
            .into_iter()
            .map(|t| self.materialize(id, t, &mut cache))
            .collect()
    }

    /// The decompressed JSON of the `k`-th block.
    fn block_json(&self, k: usize) -> Result<Vec<u8>> {
        let block = self
            .index
            .blocks
            .get(k)
            .ok_or_else(|| Error::InvalidArgument(format!("the archive has no block {k}")))?;
        let raw = self.read_section(&block.section, &|| format!("archive block {}", block.id))?;
        crate::archive::decompress(block.id, &raw, self.index.compression_method, &self.limits)
    }

    /// A stored turn with its code read back from the vault's sections.
    fn materialize(
        &self,
        block: u64,
        stored: crate::archive::Stored<'_>,
        cache: &mut HashMap<(String, u64), String>,
    ) -> Result<Turn> {
        let mut resolve = |id: &str, v: u64| {
            let missing = || Error::Block {
                block,
                detail: format!("a turn refers to artifact `{id}`, which is not in the vault"),
            };
            let n = *self.index.artifacts.get(id).ok_or_else(missing)?;
            let s = self.index.artifact_sections.get(n).ok_or_else(missing)?;
            let what = || format!("artifact section {n}");
            let section = self.read_section(s, &what)?;
            let art: Artifact = brotli_json_seed(
                &section,
                &self.limits,
                &what,
                Entry(id, std::marker::PhantomData),
            )?
            .ok_or_else(missing)?;
            crate::vault::rebuild_version(id, &art, v)
        };
        crate::archive::materialize(
            block,
            stored,
            cache,
            &mut resolve,
            &self.limits,
            &crate::archive::every_source,
        )
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}
