//! Paths on the command line: `-` is stdin or stdout; files are written atomically.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use smg_engine::ingest::Archived;
use smg_engine::search::{Retriever, EXTENSION};
use smg_format::file::WriteLock;
use smg_format::packed::PackedArchive;
use smg_format::{Document, Encoding, Error, Limits};

use crate::secret::{Secret, Secrets};

/// What every command gets: decoding limits and the passphrase source.
pub(crate) struct Context {
    pub(crate) limits: Limits,
    pub(crate) secrets: Secrets,
}

pub(crate) fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// All bytes of a file, or of stdin for `-`.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let io_err = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if is_stdio(path) {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(io_err)?;
        Ok(buf)
    } else {
        smg_format::file::read_bytes(path)
    }
}

/// A document as read, with what is needed to write it back the same way.
pub(crate) struct Loaded {
    pub(crate) doc: Document,
    /// The encoding of the document (inside the encryption, if any).
    pub(crate) encoding: Encoding,
    /// Size of the file on disk.
    pub(crate) file_bytes: usize,
    /// The passphrase and iteration count, when the file is encrypted.
    pub(crate) encryption: Option<(Secret, u64)>,
    /// The limits it was read with, which the writers' gate keeps to: a file read
    /// under raised limits is written back under them.
    pub(crate) limits: Limits,
    /// A packed file's extensions: name, bytes, and whether made from its head.
    pub(crate) extensions: Vec<(String, u64, bool)>,
}

impl Loaded {
    /// Whether the file stores a search index made from its head.
    pub(crate) fn indexed(&self) -> bool {
        self.extensions
            .iter()
            .any(|(name, _, current)| *current && name == EXTENSION)
    }
}

/// Read and parse a document, asking for the passphrase if it is encrypted.
/// A packed file is read section by section, without its extensions (a stored search
/// index is not needed to hold the document); a large compressed or JSON one as it is
/// read.
pub(crate) fn load(path: &Path, ctx: &Context) -> Result<Loaded, Error> {
    match load_plain(path, &ctx.limits)? {
        Some(loaded) => Ok(loaded),
        None => load_bytes(&read_input(path)?, ctx),
    }
}

/// [`load`] of a file that needs no passphrase and no bytes held whole: a packed one,
/// or a large compressed or JSON one (`None` for any other, and for stdin).
pub(crate) fn load_plain(path: &Path, limits: &Limits) -> Result<Option<Loaded>, Error> {
    if is_stdio(path) {
        return Ok(None);
    }
    let plain = |doc, encoding, file_bytes, extensions| Loaded {
        doc,
        encoding,
        file_bytes,
        encryption: None,
        limits: *limits,
        extensions,
    };
    if let Some(file) = PackedArchive::open_if_packed(path, limits)? {
        let (len, extensions) = (file.file_len() as usize, file.extensions());
        return Ok(Some(plain(
            file.document()?,
            Encoding::Packed,
            len,
            extensions,
        )));
    }
    Ok(smg_format::file::read_streamed(path, limits)?
        .map(|(doc, encoding, len)| plain(doc, encoding, len as usize, Vec::new())))
}

/// [`load`] for bytes already read.
pub(crate) fn load_bytes(bytes: &[u8], ctx: &Context) -> Result<Loaded, Error> {
    if !smg_format::crypto::is_encrypted(bytes) {
        return load_unencrypted(bytes, &ctx.limits);
    }
    let encryption = (
        ctx.secrets.get()?,
        smg_format::crypto::encrypted_iterations(bytes)?,
    );
    let (doc, encoding) =
        smg_format::codec::from_bytes_with(bytes, &ctx.limits, Some(encryption.0.as_slice()))?;
    Ok(Loaded {
        doc,
        encoding,
        file_bytes: bytes.len(),
        encryption: Some(encryption),
        limits: ctx.limits,
        extensions: Vec::new(),
    })
}

/// [`load_bytes`] of bytes that are not encrypted (SMG-E140 if they are).
pub(crate) fn load_unencrypted(bytes: &[u8], limits: &Limits) -> Result<Loaded, Error> {
    let (doc, encoding) = smg_format::codec::from_bytes_with(bytes, limits, None)?;
    Ok(Loaded {
        doc,
        encoding,
        file_bytes: bytes.len(),
        encryption: None,
        limits: *limits,
        extensions: smg_format::packed::list_extensions(bytes)?,
    })
}

/// Write `loaded`'s document, changed, as the file was: same encoding, encrypted
/// again with the same passphrase (a fresh salt and nonce) if it was encrypted; a
/// packed file without its extensions. The document is written a list item at a
/// time and freed as it goes. One that would not validate is refused (SMG-E023), the
/// file left as it was.
pub(crate) fn save_like(path: &Path, loaded: Loaded) -> Result<(), Error> {
    smg_format::validate::ensure_valid(&loaded.doc, &loaded.limits)?;
    write_checked(path, loaded, None)
}

/// Write `loaded` back as it was read ([`save_like`], refused as it is), dropping the
/// document before compression (it is not needed any more), with a search index made
/// for what it holds now when `indexed` (an encrypted file keeps none: it would leak
/// terms).
pub(crate) fn save_indexed(
    path: &Path,
    loaded: Loaded,
    indexed: bool,
    limits: &Limits,
) -> Result<(), smg_engine::Error> {
    smg_format::validate::ensure_valid(&loaded.doc, &loaded.limits)?;
    write_indexed(path, loaded, indexed, None, limits)
}

/// [`save_indexed`] of a document that passed its writer's gate already (a share's
/// copy): written as it is.
pub(crate) fn save_gated(
    path: &Path,
    loaded: Loaded,
    indexed: bool,
    limits: &Limits,
) -> Result<(), smg_engine::Error> {
    write_indexed(path, loaded, indexed, None, limits)
}

/// [`save_indexed`] of what an ingest made: the writers' gate takes the turns the
/// ingest held (`archived`, when given) as the archive's rather than decoding every
/// block again; the search index is made from them too, and added to the index of
/// the file before (`previous`) when there is one.
pub(crate) fn save_ingested(
    path: &Path,
    loaded: Loaded,
    indexed: bool,
    archived: Option<(Archived, Option<Retriever>)>,
    limits: &Limits,
) -> Result<(), smg_engine::Error> {
    match &archived {
        Some((turns, _)) => turns.check(&loaded.doc, &loaded.limits)?,
        None => smg_format::validate::ensure_valid(&loaded.doc, &loaded.limits)?,
    }
    write_indexed(path, loaded, indexed, archived, limits)
}

/// [`write_checked`], with a search index when `indexed` (never in an encrypted file),
/// made from `archived` when given (and added to the retriever beside it).
fn write_indexed(
    path: &Path,
    loaded: Loaded,
    indexed: bool,
    archived: Option<(Archived, Option<Retriever>)>,
    limits: &Limits,
) -> Result<(), smg_engine::Error> {
    let index = if indexed && loaded.encryption.is_none() {
        let retriever = match archived {
            Some((turns, previous)) => {
                Retriever::after_ingest(&loaded.doc, turns, previous.as_ref(), limits)?
            }
            None => Retriever::new(&loaded.doc, limits)?,
        };
        Some(retriever.index_bytes()?)
    } else {
        None
    };
    write_checked(path, loaded, index.as_deref().map(|b| (EXTENSION, b)))?;
    Ok(())
}

/// Write a document that passed a writers' gate back as it was read, with `extension`
/// (name, bytes) stored beside it when the file is packed.
fn write_checked(
    path: &Path,
    loaded: Loaded,
    extension: Option<(&str, &[u8])>,
) -> Result<(), Error> {
    let Loaded {
        doc,
        encoding,
        encryption,
        ..
    } = loaded;
    let options = smg_format::WriteOptions::new(encoding.for_writing());
    let mut bytes = smg_format::codec::into_bytes(doc, &options)?;
    if let Some((name, data)) = extension.filter(|_| encoding == Encoding::Packed) {
        bytes = smg_format::packed::with_extension(&bytes, name, data)?;
    }
    seal(path, bytes, encryption.as_ref())
}

/// Encrypt `bytes` with `encryption` (if any), then write them.
pub(crate) fn seal(
    path: &Path,
    mut bytes: Vec<u8>,
    encryption: Option<&(Secret, u64)>,
) -> Result<(), Error> {
    if let Some((pass, iterations)) = encryption {
        bytes = smg_format::crypto::encrypt(&bytes, pass, *iterations)?;
    }
    write_output(path, &bytes)
}

/// The lock on the file this command rewrites, taken before it was read.
static HELD: Mutex<Option<WriteLock>> = Mutex::new(None);

/// Take the lock on `path`'s writers for the rest of the command (waiting up to
/// `wait`); its write then replaces the file only if nobody changed it meanwhile.
pub(crate) fn lock_for_rewrite(path: &Path, wait: Duration) -> Result<(), Error> {
    let lock = WriteLock::acquire(path, wait)?;
    *HELD.lock().unwrap_or_else(|e| e.into_inner()) = Some(lock);
    Ok(())
}

/// Write bytes to a file atomically, or to stdout for `-`.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if is_stdio(path) {
        return write_stdout(bytes);
    }
    match &*HELD.lock().unwrap_or_else(|e| e.into_inner()) {
        Some(lock) if lock.path() == path => lock.write(bytes),
        _ => smg_format::file::write_atomic(path, bytes),
    }
}

/// [`write_output`] of the bytes `write` gives its sink, written as they come: a
/// large output is never held whole.
pub(crate) fn write_output_with(
    path: &Path,
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    if is_stdio(path) {
        let mut out = Stdout::new();
        write(&mut |piece| out.write(piece))?;
        return out.finish();
    }
    match &*HELD.lock().unwrap_or_else(|e| e.into_inner()) {
        Some(lock) if lock.path() == path => lock.write_with(write),
        _ => smg_format::file::write_atomic_with(path, write),
    }
}

/// Write to stdout; a reader that went away (broken pipe) is not an error.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = Stdout::new();
    out.write(bytes)?;
    out.finish()
}

/// Standard output written in pieces: a reader that went away (a broken pipe, as
/// with `| head`) ends the output quietly, and what is left is not written.
pub(crate) struct Stdout {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    closed: bool,
}

impl Stdout {
    pub(crate) fn new() -> Self {
        Stdout {
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
            closed: false,
        }
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        let written = self.out.write_all(bytes);
        self.settle(written)
    }

    /// Everything written flushed.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        let flushed = self.out.flush();
        self.settle(flushed)
    }

    fn settle(&mut self, result: std::io::Result<()>) -> Result<(), Error> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(Error::Io {
                path: "-".into(),
                source: e,
            }),
            Ok(()) => Ok(()),
        }
    }
}
