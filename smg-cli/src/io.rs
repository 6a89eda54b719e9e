//! Paths on the command line: `-` is stdin or stdout; files are written atomically.

use std::io::{Read, Write};
use std::path::Path;

use smg_format::{Document, Encoding, Error, Limits};

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
        std::fs::read(path).map_err(io_err)
    }
}

/// Read and parse a document.
pub(crate) fn read_document(path: &Path, limits: &Limits) -> Result<(Document, Encoding), Error> {
    smg_format::from_bytes(&read_input(path)?, limits)
}

/// Write bytes to a file atomically, or to stdout for `-`.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if is_stdio(path) {
        write_stdout(bytes)
    } else {
        smg_format::write_atomic(path, bytes)
    }
}

/// Write to stdout; a reader that went away (broken pipe) is not an error.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Io {
            path: "-".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}
