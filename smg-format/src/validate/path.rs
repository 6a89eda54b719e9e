//! A file validated from its path: a large document's text is checked, freed, and
//! the file read a second time, in pieces, into the typed document for the semantic
//! checks, so that the text and the document are never held together.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

use super::{validate_owned, Checked, Report, ValidateOptions};
use crate::envelope::{self, Encoding};
use crate::error::{Error, Result};

/// Text from this size on is freed before the typed document is made: below it,
/// what the text holds beside the document is a few MiB, and reading the file again
/// would cost more than it saves.
const READ_AGAIN_FROM: usize = 32 << 20;

/// [`super::validate`] of the file at `path`, with the same report, holding at most
/// about the memory of the document it holds: a large plain, Brotli or Zstandard
/// file is read twice, once for the checks of its text (schema, JSON-LD) and once,
/// in pieces, for the typed document the semantic checks read. A packed file is read
/// a section at a time into its document, whose large lists the schema and JSON-LD
/// read an item at a time. An encrypted file is validated from its bytes, as
/// [`validate_owned`] does.
///
/// [`Error::Changed`] when the file was written in place between the two reads
/// (smg's writers replace a file by renaming a new one over it, which the open file
/// does not see); an I/O error when it cannot be read.
///
/// ```
/// use smg_format::validate::{validate_path, ValidateOptions};
/// let dir = std::env::temp_dir().join(format!("smg-validate-path-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("memory.smg");
/// std::fs::write(&path, br#"{"version":"1.0"}"#).unwrap();
/// let report = validate_path(&path, &ValidateOptions::default()).unwrap();
/// assert!(report.error_codes().contains(&"SMG-E100"));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn validate_path(path: &Path, options: &ValidateOptions) -> Result<Report> {
    let sizes = Sizes {
        read_again_from: READ_AGAIN_FROM,
        pieces: crate::envelope::stream::SIZES,
    };
    validate_twice(path, options, sizes, || {})
}

/// When a file is read a second time, and in what pieces.
#[derive(Clone, Copy)]
struct Sizes {
    /// The least JSON text that is freed and read again.
    read_again_from: usize,
    /// The sizes the second read streams with ([`crate::envelope::stream::SIZES`]).
    pieces: (u64, usize),
}

/// [`validate_path`] with `sizes`; `between` runs between the two reads.
fn validate_twice(
    path: &Path,
    options: &ValidateOptions,
    sizes: Sizes,
    between: impl FnOnce(),
) -> Result<Report> {
    let io = |e| Error::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let before = stamp(&file, path)?;
    if let Some(report) = packed(&file, path, options)? {
        return unchanged(report, &file, path, before);
    }
    let bytes = crate::file::read_open(&mut file, path)?;
    let encoding = match envelope::detect(&bytes) {
        Ok(e @ (Encoding::Json | Encoding::Brotli | Encoding::Zstd | Encoding::ZstdFrame)) => e,
        _ => return Ok(validate_owned(bytes, options)),
    };
    let decoded = envelope::decode(&bytes, &options.limits);
    let checked = match decoded {
        Ok((_, Cow::Owned(json))) if json.len() >= sizes.read_again_from => {
            drop(bytes);
            Checked::text(&json, options)
        }
        Ok((_, Cow::Borrowed(json))) if json.len() >= sizes.read_again_from => {
            let checked = Checked::text(json, options);
            drop(bytes);
            checked
        }
        other => {
            drop(other);
            return Ok(validate_owned(bytes, options));
        }
    };
    let checked = match checked {
        Ok(checked) => checked,
        Err(end) => return Ok(report(encoding, end)),
    };
    between();
    let again = || read_again(&file, path, options, sizes.pieces);
    let findings = checked.then_typed(again, &options.limits);
    unchanged(report(encoding, findings), &file, path, before)
}

/// `report`, unless the file was written in place since it was first stamped.
fn unchanged(report: Report, file: &File, path: &Path, before: Stamp) -> Result<Report> {
    if stamp(file, path)? != before {
        return Err(Error::Changed {
            path: path.to_path_buf(),
        });
    }
    Ok(report)
}

/// The report of a packed file, read from the open file a section at a time: the
/// whole file is never held, nor the document's text. `None` when it is not packed.
fn packed(file: &File, path: &Path, options: &ValidateOptions) -> Result<Option<Report>> {
    let archive = crate::packed::PackedArchive::of_file(from_start(file, path)?, &options.limits);
    let doc = match archive {
        Ok(None) => return Ok(None),
        Ok(Some(archive)) => archive.assembled(),
        Err(e) => Err(e),
    };
    Ok(Some(match doc {
        Ok(doc) => report(Encoding::Packed, super::validate_document(doc, options)),
        Err(Error::Io { source, .. }) => return Err(Error::io(path, source)),
        Err(e) => Report {
            encoding: None,
            findings: vec![super::Finding::from_error(&e)],
        },
    }))
}

fn report(encoding: Encoding, findings: Vec<super::Finding>) -> Report {
    Report {
        encoding: Some(encoding),
        findings,
    }
}

/// The typed document of `file`, read again from its start: in pieces, or whole
/// (then with the exact error a whole read gives) when it does not read cleanly so.
fn read_again(
    file: &File,
    path: &Path,
    options: &ValidateOptions,
    pieces: (u64, usize),
) -> Result<crate::Document> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let pieced =
        crate::codec::from_file_sized(from_start(file, path)?, len, &options.limits, pieces)?;
    if let Some((doc, _)) = pieced {
        return Ok(doc);
    }
    let bytes = crate::file::read_open(&mut from_start(file, path)?, path)?;
    let (_, json) = envelope::decode(&bytes, &options.limits)?;
    crate::codec::from_json_slice(&json)
}

/// A handle on `file` with its offset at the start.
fn from_start(file: &File, path: &Path) -> Result<File> {
    let io = |e| Error::io(path, e);
    let mut again = file.try_clone().map_err(io)?;
    again.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(again)
}

/// A file's length and time.
type Stamp = (u64, Option<SystemTime>);

/// What tells the open file's content from what it was: its length and time.
fn stamp(file: &File, path: &Path) -> Result<Stamp> {
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    Ok((meta.len(), meta.modified().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::fixture_files;
    use crate::validate::validate;
    use crate::Limits;

    /// Every file read twice, the second time in pieces of 64 bytes.
    const ALWAYS: Sizes = Sizes {
        read_again_from: 0,
        pieces: (0, 64),
    };

    /// The options a fixture's sidecar asks for.
    fn options_for(path: &Path) -> ValidateOptions {
        let mut options = ValidateOptions::default();
        if let Ok(text) = std::fs::read(path.with_extension("expect.json")) {
            let expect: serde_json::Value = serde_json::from_slice(&text).unwrap();
            if let Some(m) = expect["maxBytes"].as_u64() {
                options.limits = Limits::default().with_max_bytes(m);
            }
        }
        options
    }

    #[test]
    fn every_fixture_read_twice_gives_the_report_of_its_bytes() {
        let mut read_twice = 0;
        for path in fixture_files() {
            if path.extension().is_none_or(|e| e != "smg") {
                continue;
            }
            let options = options_for(&path);
            let want = validate(&std::fs::read(&path).unwrap(), &options);
            let got = validate_twice(&path, &options, ALWAYS, || read_twice += 1).unwrap();
            assert_eq!(got, want, "{}", path.display());
        }
        assert!(read_twice >= 40, "{read_twice} fixtures read twice");
    }

    #[test]
    fn a_packed_file_read_by_its_sections_gives_the_report_of_its_bytes_and_its_json() {
        let mut doc = crate::validate::split::tests::large_document();
        // A node the typed model refuses would leave the packed file unreadable.
        for graph in [&mut doc.semantic_graph, &mut doc.shared_graph] {
            let nodes = graph.as_mut().unwrap().nodes.as_mut().unwrap();
            nodes[crate::validate::split::WINDOW + 1].extra.clear();
        }
        let write = |e| crate::to_bytes(&doc, &crate::WriteOptions::new(e)).unwrap();
        let (packed, json) = (write(Encoding::Packed), write(Encoding::Json));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        std::fs::write(&path, &packed).unwrap();
        let options = ValidateOptions::default();
        let got = validate_path(&path, &options).unwrap();
        assert_eq!(got.encoding, Some(Encoding::Packed), "{:?}", got.findings);
        assert!(
            got.error_codes().contains(&"SMG-E130"),
            "{:?}",
            got.findings
        );
        assert_eq!(got, validate(&packed, &options));
        assert_eq!(got.findings, validate(&json, &options).findings);
        // Cut short, it is refused as its bytes are.
        std::fs::write(&path, &packed[..packed.len() - 9]).unwrap();
        let cut = validate_path(&path, &options).unwrap();
        assert!(!cut.is_valid());
        assert_eq!(cut, validate(&packed[..packed.len() - 9], &options));
    }

    /// A valid file's bytes, and another valid document's.
    fn two_documents() -> (Vec<u8>, Vec<u8>) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid");
        let full = std::fs::read(root.join("full.smg")).unwrap();
        let empty =
            crate::Document::new(crate::model::Timestamp::from_static("2026-01-01T00:00:00Z"));
        let other = crate::canonical::to_vec(&empty).unwrap();
        assert_ne!(full.len(), other.len());
        (full, other)
    }

    /// The validation of a valid file (its bytes beside) whose path `change` rewrites
    /// with another valid document between the two reads.
    fn changed_between_the_reads(change: fn(&Path, &[u8])) -> (Result<Report>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.smg");
        let (first, second) = two_documents();
        std::fs::write(&path, &first).unwrap();
        let options = ValidateOptions::default();
        let got = validate_twice(&path, &options, ALWAYS, || change(&path, &second));
        assert_eq!(std::fs::read(&path).unwrap(), second);
        (got, first)
    }

    #[test]
    fn a_file_written_in_place_between_the_reads_is_refused() {
        let write_in_place = |p: &Path, b: &[u8]| std::fs::write(p, b).unwrap();
        let err = changed_between_the_reads(write_in_place).0.unwrap_err();
        assert_eq!(err.code(), "SMG-E022", "{err}");
    }

    #[test]
    fn a_file_replaced_between_the_reads_is_validated_as_it_was_opened() {
        let replace = |p: &Path, b: &[u8]| crate::file::write_atomic(p, b).unwrap();
        let (got, first) = changed_between_the_reads(replace);
        let got = got.unwrap();
        assert!(got.is_valid(), "{:?}", got.findings);
        assert_eq!(got, validate(&first, &ValidateOptions::default()));
    }
}
