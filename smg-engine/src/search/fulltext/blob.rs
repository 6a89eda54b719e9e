//! A tantivy index as one blob — its files end to end, then a table of where each
//! lies — read back in place through a read-only [`Directory`] over the blob's bytes
//! (nothing unpacked to a folder). Segment ids are made from the segments' bytes, so
//! that the same documents, indexed by one writer thread, give the same blob.
//!
//! The blob: the files, then the table (JSON: name, offset, length), the table's
//! length (u64, little-endian) and [`MAGIC`].

use std::collections::HashMap;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, FileSlice, Lock, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::{HasLen, Index};

const MAGIC: &[u8; 8] = b"smgtanti";
/// The file that lists the segments.
const META: &str = "meta.json";

/// The files of `index` (committed): its segments' and its list of them, by name.
pub(super) fn files(index: &Index) -> tantivy::Result<Vec<(String, Vec<u8>)>> {
    let dir = index.directory();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let metas = index.load_metas()?;
    let mut paths: Vec<PathBuf> = metas.list_segment_files().into_iter().collect();
    paths.push(PathBuf::from(META));
    for path in paths {
        // The list names every file a segment may have; some it has not.
        if !dir.exists(&path)? {
            continue;
        }
        let name = path
            .to_str()
            .ok_or_else(|| io::Error::other("a file name that is not UTF-8"))?
            .to_string();
        files.push((name, dir.atomic_read(&path)?));
    }
    files.sort();
    Ok(files)
}

/// `index` (committed) as one blob; segment ids replaced by digests of their files.
pub(super) fn pack(index: &Index) -> tantivy::Result<Vec<u8>> {
    let mut files = files(index)?;
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut segments: Vec<String> = files
        .iter()
        .filter_map(|(n, _)| n.split_once('.').map(|(id, _)| id.to_string()))
        .filter(|id| id.len() == 32)
        .collect();
    segments.dedup();
    for id in segments {
        let mut h = Sha256::new();
        for (name, bytes) in files.iter().filter(|(n, _)| n.starts_with(id.as_str())) {
            h.update(&name[32..]);
            h.update(bytes);
        }
        let new = hex::encode(&h.finalize()[..16]);
        renames.push((id, new));
    }
    for (name, bytes) in &mut files {
        for (old, new) in &renames {
            if name.starts_with(old.as_str()) {
                *name = format!("{new}{}", &name[32..]);
            }
            if name == META {
                let text =
                    String::from_utf8_lossy(bytes).replace(&hyphenated(old), &hyphenated(new));
                *bytes = text.into_bytes();
            }
        }
    }
    files.sort();
    let mut blob = Vec::new();
    let mut table = Vec::new();
    for (name, bytes) in files {
        table.push(serde_json::json!([name, blob.len(), bytes.len()]));
        blob.extend_from_slice(&bytes);
    }
    let table = serde_json::to_vec(&table).map_err(io::Error::other)?;
    blob.extend_from_slice(&table);
    blob.extend_from_slice(&(table.len() as u64).to_le_bytes());
    blob.extend_from_slice(MAGIC);
    Ok(blob)
}

/// A segment id as meta.json writes it (8-4-4-4-12).
fn hyphenated(id: &str) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    )
}

/// The files of a blob [`pack`] made, read in place; a table that does not fit the
/// blob is an error, never a file outside it.
#[derive(Clone, Debug)]
pub(super) struct BlobDirectory {
    blob: FileSlice,
    files: Arc<HashMap<PathBuf, Range<usize>>>,
}

impl BlobDirectory {
    /// Read the table at the end of `blob`.
    pub(super) fn open(blob: FileSlice) -> io::Result<BlobDirectory> {
        let bad = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not a packed index: {why}"),
            )
        };
        let n = blob.len();
        let tail = blob
            .slice_from(n.checked_sub(16).ok_or_else(|| bad("too short"))?)
            .read_bytes()?;
        if &tail[8..] != MAGIC {
            return Err(bad("no magic"));
        }
        let len = tail
            .first_chunk::<8>()
            .and_then(|b| usize::try_from(u64::from_le_bytes(*b)).ok())
            .ok_or_else(|| bad("no table length"))?;
        let start = (n - 16)
            .checked_sub(len)
            .ok_or_else(|| bad("table outside"))?;
        let table = blob.slice(start..n - 16).read_bytes()?;
        let rows: Vec<(String, usize, usize)> =
            serde_json::from_slice(&table).map_err(|e| bad(&e.to_string()))?;
        let mut files = HashMap::new();
        for (name, at, len) in rows {
            let end = at
                .checked_add(len)
                .filter(|e| *e <= start)
                .ok_or_else(|| bad("file outside"))?;
            files.insert(PathBuf::from(name), at..end);
        }
        Ok(BlobDirectory {
            blob,
            files: Arc::new(files),
        })
    }

    fn slice(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        let range = self
            .files
            .get(path)
            .ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_path_buf()))?;
        Ok(self.blob.slice(range.clone()))
    }
}

fn read_only(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{}: a packed index is read-only", path.display()),
    )
}

impl Directory for BlobDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(self.slice(path)?))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(read_only(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.files.contains_key(path))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: Arc::new(read_only(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let bytes = self
            .slice(path)?
            .read_bytes()
            .map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        Ok(bytes.to_vec())
    }

    fn atomic_write(&self, path: &Path, _: &[u8]) -> io::Result<()> {
        Err(read_only(path))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    // Nothing writes here, so a reader needs no lock and nothing changes to watch.
    fn acquire_lock(
        &self,
        _: &Lock,
    ) -> Result<DirectoryLock, tantivy::directory::error::LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, _: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}
