//! Helpers shared by unit tests.

use crate::model::{Document, Node};

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
