//! Helpers shared by unit tests.

use crate::model::{Document, Node};

/// Every file of `fixtures/` (`.smg` and `.json`, sidecars among them), in every
/// folder.
pub(crate) fn fixture_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "smg" || e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `fixtures/valid/full.smg`: a document using every section.
pub(crate) fn full_fixture() -> Document {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid/full.smg");
    crate::read_file(&path, &crate::Limits::default())
        .unwrap()
        .0
}

/// A concept node with a label.
pub(crate) fn node(id: &str, label: &str) -> Node {
    Node {
        label: Some(label.into()),
        ..Node::new(
            crate::model::NonEmpty::new(id).unwrap(),
            crate::model::NonEmpty::from_static("concept"),
        )
    }
}

/// `json` as Brotli, as Zstandard, and as a bare Zstandard frame: the payloads that
/// are read in pieces.
pub(crate) fn encodings(json: &[u8]) -> Vec<Vec<u8>> {
    use crate::envelope::{encode, Encoding, WriteOptions};
    let mut out: Vec<Vec<u8>> = [Encoding::Brotli, Encoding::Zstd]
        .map(|e| encode(json, &WriteOptions::new(e)).unwrap())
        .into();
    out.push(zstd::encode_all(json, 3).unwrap());
    out
}
