//! Files: read whole, and written atomically. A large file is read and written a
//! half per thread: copying between the page cache and memory is a large share of
//! the time, and two threads copy about twice as fast as one.
//!
//! ```
//! use smg_format::{read_file, write_file, Document, Encoding, Limits, WriteOptions};
//! let dir = std::env::temp_dir().join(format!("smg-file-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("memory.smg");
//! let doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! write_file(&path, &doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
//! assert_eq!(read_file(&path, &Limits::default()).unwrap(), (doc, Encoding::Brotli));
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

mod lock;
mod temp;

pub use lock::WriteLock;

use crate::codec::{from_bytes, to_bytes};
use crate::envelope::{Encoding, WriteOptions};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::Document;

/// Files from this size on are read and written in two halves side by side.
const SPLIT_BYTES: usize = 8 << 20;

/// Read and parse a file: a packed one section by section ([`read_packed`]), a large
/// JSON or compressed one as it is read ([`read_streamed`]), any other whole.
pub fn read_file(path: &Path, limits: &Limits) -> Result<(Document, Encoding)> {
    if let Some(doc) = read_packed(path, limits)? {
        return Ok((doc, Encoding::Packed));
    }
    if let Some((doc, encoding, _)) = read_streamed(path, limits)? {
        return Ok((doc, encoding));
    }
    from_bytes(&read_bytes(path)?, limits)
}

/// The document of a Brotli or Zstandard file (enveloped, or a bare Zstandard
/// frame) of more than a few MiB of JSON, or of a plain JSON file of 32 MiB or
/// more, parsed while the file is read
/// (and decompressed), with its encoding and the file's length: neither the file's
/// bytes nor its JSON text are ever held whole, so that opening a file takes about
/// the memory of the document it holds.
///
/// `None` when the file is to be read whole ([`read_bytes`], then
/// [`crate::codec::from_bytes_with`]): another encoding (packed, encrypted: a
/// ciphertext is authenticated whole before any of it is used), a small payload, or
/// a file that did not read cleanly, so that the whole read says what is wrong
/// exactly as it always has.
pub fn read_streamed(path: &Path, limits: &Limits) -> Result<Option<(Document, Encoding, u64)>> {
    let io = |e| Error::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let read = crate::codec::from_file(file, len, limits)?;
    Ok(read.map(|(doc, encoding)| (doc, encoding, len)))
}

/// [`read_streamed`] read lean, for a merge that derives again
/// ([`crate::merge::merge_lean`]): the derived nodes curation never marked and the
/// edges between them are not parsed, only looked through (their JSON must be well
/// formed, their ids and `createdBy` strings). `None` as for [`read_streamed`]:
/// [`crate::merge::Lean::new`] of the document read whole then leaves out the same.
pub fn read_streamed_lean(
    path: &Path,
    limits: &Limits,
) -> Result<Option<(crate::merge::Lean, Encoding, u64)>> {
    let io = |e| Error::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let read = crate::codec::lean_from_file(file, len, limits)?;
    Ok(read.map(|(lean, encoding)| (lean, encoding, len)))
}

/// The document of a packed file, reading only the sections it is made of: the
/// file's extensions (a stored search index is often as large as the rest) are
/// neither read nor held, nor is the whole file at once. `None` when the file is
/// not packed (its first bytes say another encoding, or are too few to tell).
pub fn read_packed(path: &Path, limits: &Limits) -> Result<Option<Document>> {
    let Some(file) = crate::packed::PackedArchive::open_if_packed(path, limits)? else {
        return Ok(None);
    };
    file.document().map(Some)
}

/// All the bytes of a file, as [`std::fs::read`] gives them (but an error if a large
/// file is cut shorter while it is read).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    read_open(&mut file, path)
}

/// All the bytes of `file` (opened from `path`, its offset at the start), as
/// [`read_bytes`] reads them.
pub(crate) fn read_open(file: &mut File, path: &Path) -> Result<Vec<u8>> {
    let io = |e| Error::io(path, e);
    let len = file.metadata().map_err(io)?.len();
    let mut bytes = match usize::try_from(len) {
        Ok(len) if len >= SPLIT_BYTES => read_halves(file, len).map_err(io)?,
        _ => Vec::new(),
    };
    // A small file, or what a large one grew by while it was read.
    file.read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// The first `len` bytes of `file`, read a half per thread, with the file's offset
/// left just after them.
#[cfg(unix)]
fn read_halves(mut file: &File, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0; len];
    let (first, second) = bytes.split_at_mut(len / 2);
    let (a, b) = rayon::join(
        || file.read_exact_at(first, 0),
        || file.read_exact_at(second, (len / 2) as u64),
    );
    a.and(b)?;
    file.seek(SeekFrom::Start(len as u64))?;
    Ok(bytes)
}

#[cfg(not(unix))]
fn read_halves(_: &File, _: usize) -> std::io::Result<Vec<u8>> {
    Ok(Vec::new())
}

/// Write a document to `path` atomically (temp file in the same directory, fsync,
/// rename, fsync of the directory): on any failure the previous file is left untouched.
pub fn write_file(path: &Path, doc: &Document, options: &WriteOptions) -> Result<()> {
    let bytes = to_bytes(doc, options)?;
    write_atomic(path, &bytes)
}

/// Replace `path` with `bytes` atomically. The temporary file a killed writer of
/// `path` left behind is removed first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, |file, at| {
        write_all(file, bytes).map_err(|e| Error::io(at, e))
    })
}

/// [`write_atomic`] of the bytes `write` gives its sink, written to the temporary file
/// as they come: a large file's bytes are never held whole. A failure, of `write` too,
/// leaves the previous file untouched.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("m.json");
/// smg_format::file::write_atomic_with(&path, |sink| {
///     sink(b"{\"a\":")?;
///     sink(b"1}")
/// })
/// .unwrap();
/// assert_eq!(std::fs::read(&path).unwrap(), b"{\"a\":1}");
/// ```
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    replace(path, |file, at| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut |piece| out.write_all(piece).map_err(|e| Error::io(at, e)))?;
        out.flush().map_err(|e| Error::io(at, e))
    })
}

/// Replace `path` atomically with what `fill` writes to an empty temporary file in
/// the same directory (the file and its path are given): fsync, rename, fsync of the
/// directory. The temporary file a killed writer of `path` left behind is removed
/// first; on any failure the previous file is left untouched.
fn replace(path: &Path, fill: impl FnOnce(&mut File, &Path) -> Result<()>) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "smg".into(), |n| n.to_string_lossy());
    temp::sweep(dir, &name);
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp::prefix(&name))
        .suffix(temp::SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    let at = tmp.path().to_path_buf();
    fill(tmp.as_file_mut(), &at)?;
    tmp.as_file().sync_all().map_err(|e| Error::io(&at, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    sync_dir(dir);
    Ok(())
}

/// Make the rename itself durable: without the directory's fsync, a power cut can
/// bring back the old name after smg said the new file was written. Best effort:
/// the new file is in place by now, and some file systems cannot sync a directory.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Write `bytes` to the empty `file`, a half per thread when they are many.
fn write_all(file: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    if bytes.len() >= SPLIT_BYTES {
        use std::os::unix::fs::FileExt;
        let (first, second) = bytes.split_at(bytes.len() / 2);
        let file = &*file;
        let (a, b) = rayon::join(
            || file.write_all_at(first, 0),
            || file.write_all_at(second, first.len() as u64),
        );
        return a.and(b);
    }
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let doc = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
        for enc in [Encoding::Json, Encoding::Brotli, Encoding::Zstd] {
            write_file(&path, &doc, &WriteOptions::new(enc)).unwrap();
            let (back, found) = read_file(&path, &Limits::default()).unwrap();
            assert_eq!((back, found), (doc.clone(), enc));
        }
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_write_in_pieces_replaces_the_file_and_a_failed_one_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, b"old").unwrap();
        let pieces = |sink: &mut dyn FnMut(&[u8]) -> Result<()>| {
            for i in 0..3000 {
                sink(format!("piece {i} of a text larger than the writer's buffer; ").as_bytes())?;
            }
            Ok(())
        };
        let failed = write_atomic_with(&path, |sink| {
            pieces(sink)?;
            Err(Error::InvalidArgument("the writer failed".into()))
        });
        assert!(matches!(failed, Err(Error::InvalidArgument(_))));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        write_atomic_with(&path, pieces).unwrap();
        let mut expected = Vec::new();
        pieces(&mut |b| {
            expected.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert!(std::fs::read(&path).unwrap() == expected);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    /// A document of more than 4 MiB of JSON: large enough to be read as a stream.
    fn large_document() -> Document {
        let mut doc = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
        let nodes = (0..80_000)
            .map(|i| crate::test_support::node(&format!("c{i}"), &format!("concept {i} é 𝄞")))
            .collect();
        doc.semantic_graph = Some(crate::model::Graph {
            nodes: Some(nodes),
            ..Default::default()
        });
        doc
    }

    /// `bytes`, the file of `doc`, is read as a stream, and as a whole read reads it
    /// when it is damaged anywhere: a compressed file fails its checks and is read
    /// whole for the whole read's error; damaged JSON may still be JSON.
    fn streams_as_it_reads_whole(path: &Path, bytes: &[u8], doc: &Document) {
        let limits = Limits::default();
        write_atomic(path, bytes).unwrap();
        let (read, encoding, len) = read_streamed(path, &limits).unwrap().unwrap();
        assert!((&read, len) == (doc, bytes.len() as u64));
        assert_eq!(encoding, crate::envelope::detect(bytes).unwrap());
        assert!(read_file(path, &limits).unwrap() == (doc.clone(), encoding));
        for at in [8, 17, bytes.len() / 2, bytes.len() - 3] {
            let mut bad = bytes.to_vec();
            bad[at] ^= 0x55;
            write_atomic(path, &bad).unwrap();
            if encoding != Encoding::Json {
                assert!(read_streamed(path, &limits).unwrap().is_none(), "{at}");
            }
            let whole = from_bytes(&bad, &limits).map_err(|e| (e.code(), e.to_string()));
            let read = read_file(path, &limits).map_err(|e| (e.code(), e.to_string()));
            assert!(read == whole, "{encoding:?} damaged at {at}");
        }
    }

    #[test]
    fn a_large_compressed_file_is_read_as_a_stream_as_it_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let doc = large_document();
        let json = crate::codec::to_canonical_json(&doc).unwrap();
        assert!(json.len() > crate::envelope::stream::SIZES.0 as usize);
        for bytes in crate::test_support::encodings(&json) {
            streams_as_it_reads_whole(&path, &bytes, &doc);
        }
        // Under a limit on its nodes, it is refused as the whole read refuses it.
        let limits = Limits::default();
        write_file(&path, &doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
        let few = limits.with(crate::limits::Bound::Nodes, 10);
        let streamed = read_streamed(&path, &few).unwrap_err();
        let whole = from_bytes(&read_bytes(&path).unwrap(), &few).unwrap_err();
        assert_eq!(streamed.code(), whole.code());
    }

    #[test]
    fn a_large_json_file_is_read_as_a_stream_as_it_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let mut doc = large_document();
        let graph = doc.semantic_graph.as_mut().unwrap();
        graph.nodes.as_mut().unwrap()[7].description = Some("long é 𝄞 ".repeat(3 << 20));
        let json = crate::codec::to_canonical_json(&doc).unwrap();
        assert!(json.len() > 32 << 20);
        streams_as_it_reads_whole(&path, &json, &doc);
        // After a byte order mark, or cut short.
        let limits = Limits::default();
        for bytes in [
            [&b"\xEF\xBB\xBF"[..], &json].concat(),
            json[..json.len() - 9].to_vec(),
        ] {
            write_atomic(&path, &bytes).unwrap();
            let whole = from_bytes(&bytes, &limits).map_err(|e| (e.code(), e.to_string()));
            let read = read_file(&path, &limits).map_err(|e| (e.code(), e.to_string()));
            assert!(read == whole);
        }
    }

    #[test]
    fn other_encodings_and_small_files_are_left_to_a_whole_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let small = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
        for enc in [
            Encoding::Json,
            Encoding::Brotli,
            Encoding::Zstd,
            Encoding::Packed,
        ] {
            write_file(&path, &small, &WriteOptions::new(enc)).unwrap();
            assert!(read_streamed(&path, &Limits::default()).unwrap().is_none());
        }
        // Plain JSON under 32 MiB: its text is parsed where it lies.
        write_file(&path, &large_document(), &WriteOptions::new(Encoding::Json)).unwrap();
        assert!(read_streamed(&path, &Limits::default()).unwrap().is_none());
        for bytes in [&b""[..], b"\x89SMG", b"{}"] {
            write_atomic(&path, bytes).unwrap();
            assert!(read_streamed(&path, &Limits::default()).unwrap().is_none());
        }
        let missing = read_streamed(&dir.path().join("missing"), &Limits::default()).unwrap_err();
        assert!(missing.is_io(), "{missing}");
    }

    #[test]
    fn large_files_are_read_and_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.bin");
        for len in [0, 1, SPLIT_BYTES - 1, SPLIT_BYTES, SPLIT_BYTES + 12_345] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            write_atomic(&path, &bytes).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), len as u64);
            assert!(read_bytes(&path).unwrap() == bytes, "{len}");
        }
        let missing = read_bytes(&dir.path().join("missing")).unwrap_err();
        assert!(
            missing.is_io() && missing.to_string().contains("missing"),
            "{missing}"
        );
    }
}
