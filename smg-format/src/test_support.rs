//! Helpers shared by unit tests.

use crate::model::Document;

/// `fixtures/valid/full.smg`: a document using every section.
pub(crate) fn full_fixture() -> Document {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/valid/full.smg");
    crate::read_file(&path, &crate::Limits::default())
        .unwrap()
        .0
}
