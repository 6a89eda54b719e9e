//! Writers of one file, one at a time: an advisory lock on a lock file beside it, and a
//! check that the file is still the one that was read before it is replaced.
//!
//! The lock is taken on `NAME.lock`, not on the file itself, because writes replace the
//! file by renaming a new one over it: a lock on the old file's inode would not stop a
//! writer that opened the new one. The lock file stays (removing it would let a waiting
//! writer lock an unlinked inode while a new one locks a fresh file). Readers take no
//! lock: the rename shows them the old file or the new, never half of one.
//!
//! Advisory locks do not reach across machines on every network file system, so the
//! file's size, modification time and the SHA-256 of its first 64 KiB are noted when the
//! lock is taken and compared before the rename: a file changed in between is refused
//! ([`crate::Error::Changed`]), never overwritten.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// How much of the file's start is hashed to tell it from another of the same size and
/// time.
const HEAD_BYTES: u64 = 64 << 10;

/// How often a waiting writer tries the lock again.
const RETRY: Duration = Duration::from_millis(20);

/// The right to replace one file, held until dropped.
///
/// ```
/// use std::time::Duration;
/// use smg_format::file::WriteLock;
/// let dir = std::env::temp_dir().join(format!("smg-lock-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("memory.smg");
/// let lock = WriteLock::acquire(&path, Duration::from_secs(5)).unwrap();
/// // A second writer waits, then gives up with its own code.
/// let busy = WriteLock::acquire(&path, Duration::from_millis(50)).unwrap_err();
/// assert_eq!(busy.code(), "SMG-E021");
/// lock.write(b"{}").unwrap();
/// drop(lock);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct WriteLock {
    path: PathBuf,
    /// Held open, never read: the lock lasts as long as this handle.
    _held: File,
    /// The file as it was when the lock was taken (`None`: it did not exist).
    stamp: Option<Stamp>,
}

/// What tells one version of a file from another without reading it all.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    head: [u8; 32],
}

impl WriteLock {
    /// Take the lock on `path`'s writers, waiting up to `wait` for another writer to
    /// finish ([`Error::Locked`] after that), and note the file as it is now.
    pub fn acquire(path: &Path, wait: Duration) -> Result<WriteLock> {
        let lock_path = lock_path(path);
        let lock_file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        let start = Instant::now();
        loop {
            match lock_file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(RETRY.min(wait.saturating_sub(start.elapsed())));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::Locked {
                        path: path.to_path_buf(),
                        waited_ms: start.elapsed().as_millis() as u64,
                    })
                }
                Err(TryLockError::Error(e)) => return Err(Error::io(&lock_path, e)),
            }
        }
        Ok(WriteLock {
            path: path.to_path_buf(),
            _held: lock_file,
            stamp: stamp(path)?,
        })
    }

    /// The locked file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replace the locked file with `bytes` atomically, if it is still the file that was
    /// there when the lock was taken; [`Error::Changed`] (and nothing written) if a
    /// writer that does not take the lock changed it meanwhile.
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        self.check_unchanged()?;
        super::write_atomic(&self.path, bytes)
    }

    /// [`WriteLock::write`] of the bytes `write` gives its sink, as they come
    /// ([`super::write_atomic_with`]).
    pub fn write_with(
        &self,
        write: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
    ) -> Result<()> {
        self.check_unchanged()?;
        super::write_atomic_with(&self.path, write)
    }

    /// [`Error::Changed`] if the file is not the one that was there when the lock
    /// was taken.
    fn check_unchanged(&self) -> Result<()> {
        if stamp(&self.path)? != self.stamp {
            return Err(Error::Changed {
                path: self.path.clone(),
            });
        }
        Ok(())
    }
}

/// `memory.smg` → `memory.smg.lock`, beside it.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

fn stamp(path: &Path) -> Result<Option<Stamp>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    let mut head = Vec::new();
    (&mut file)
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    Ok(Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        head: Sha256::digest(&head).into(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_behind_the_lock_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        std::fs::write(&path, b"old").unwrap();
        let lock = WriteLock::acquire(&path, Duration::ZERO).unwrap();
        std::fs::write(&path, b"other writer").unwrap();
        let err = lock.write(b"mine").unwrap_err();
        assert_eq!(err.code(), "SMG-E022");
        assert_eq!(std::fs::read(&path).unwrap(), b"other writer");
    }

    #[test]
    fn the_lock_is_free_again_once_dropped_and_waiters_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let first = WriteLock::acquire(&path, Duration::ZERO).unwrap();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || WriteLock::acquire(&path, Duration::from_secs(10)))
        };
        std::thread::sleep(Duration::from_millis(100));
        first.write(b"first").unwrap();
        drop(first);
        let second = waiter.join().unwrap().unwrap();
        second.write(b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert!(dir.path().join("m.smg.lock").exists());
    }

    #[test]
    fn a_new_file_is_created_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.smg");
        WriteLock::acquire(&path, Duration::ZERO)
            .unwrap()
            .write(b"{}")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
    }
}
