//! Forks (spec §17.2): a copy of a memory that starts a branch and remembers its parent.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::{Document, Extra, Fork, NonEmpty, Sha256Hex, Timestamp};

/// Fork the memory read from `parent_bytes` (`parent` is that file's document) onto
/// `branch` at time `at`: the parent becomes the fork, with a new id, the branch, and
/// the parent appended to its lineage (id, file SHA-256, branch, time). A caller that
/// keeps the parent forks a clone of it.
///
/// The new id is derived from the parent's hash, the branch and the time, so the same
/// fork made twice gives the same file.
///
/// ```
/// use smg_format::{lineage::fork, model::Timestamp, to_bytes, Document, Encoding, WriteOptions};
/// let parent = Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let bytes = to_bytes(&parent, &WriteOptions::new(Encoding::Json)).unwrap();
/// let at = Timestamp::from_static("2025-12-05T09:00:00Z");
/// let child = fork(parent, &bytes, "experiment", &at).unwrap();
/// assert_eq!(child.metadata.branch.as_deref(), Some("experiment"));
/// assert_eq!(child.metadata.lineage.unwrap().len(), 1);
/// ```
pub fn fork(
    parent: Document,
    parent_bytes: &[u8],
    branch: &str,
    at: &Timestamp,
) -> Result<Document> {
    let refused = || {
        Error::InvalidArgument(format!(
            "branch name {branch:?} must be non-empty and hold no control characters"
        ))
    };
    if branch.trim().is_empty() || branch.chars().any(char::is_control) {
        return Err(refused());
    }
    let name = NonEmpty::new(branch).map_err(|_| refused())?;
    let parent_sha256 = Sha256Hex::of(parent_bytes);
    let mut child = parent;
    let meta = &mut child.metadata;
    let id = derived_uuid(&[&parent_sha256, branch, at]);
    meta.lineage.get_or_insert_with(Vec::new).push(Fork {
        parent_id: meta.id.clone(),
        parent_sha256,
        parent_branch: meta.branch.take().map(NonEmpty::into_string),
        branch: name.clone(),
        forked_at: at.clone(),
        extra: Extra::new(),
    });
    meta.id = Some(id);
    meta.branch = Some(name);
    meta.modified = Some(at.clone());
    Ok(child)
}

/// A UUID (version 8, RFC 9562) from the SHA-256 of `parts`.
fn derived_uuid(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for p in parts {
        hasher.update((p.len() as u64).to_le_bytes());
        hasher.update(p.as_bytes());
    }
    let bytes: [u8; 16] = hasher.finalize()[..16].try_into().expect("16 bytes");
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &'static str) -> Timestamp {
        Timestamp::from_static(t)
    }

    #[test]
    fn forks_chain_their_lineage_and_are_reproducible() {
        let mut root = Document::new(at("2025-12-04T10:30:00Z"));
        root.metadata.id = Some("root".into());
        let a = fork(
            root.clone(),
            b"root bytes",
            "a",
            &at("2025-12-05T09:00:00Z"),
        )
        .unwrap();
        let again = fork(root, b"root bytes", "a", &at("2025-12-05T09:00:00Z")).unwrap();
        assert_eq!(a, again);
        let b = fork(a.clone(), b"a bytes", "b", &at("2025-12-06T09:00:00Z")).unwrap();
        let lineage = b.metadata.lineage.as_deref().unwrap();
        assert_eq!(lineage.len(), 2);
        assert_eq!(lineage[0].parent_id.as_deref(), Some("root"));
        assert_eq!(lineage[1].parent_id, a.metadata.id);
        assert_eq!(lineage[1].parent_branch.as_deref(), Some("a"));
        assert_eq!(
            lineage[1].parent_sha256,
            hex::encode(Sha256::digest(b"a bytes"))
        );
        assert_ne!(a.metadata.id, b.metadata.id);
        let id = b.metadata.id.unwrap();
        assert_eq!((id.len(), &id[14..15]), (36, "8"));
    }

    #[test]
    fn bad_branch_names_are_refused() {
        let root = Document::new(at("2025-12-04T10:30:00Z"));
        for (branch, at) in [
            ("", "2025-12-05T09:00:00Z"),
            ("a\nb", "2025-12-05T09:00:00Z"),
        ] {
            let err = fork(
                root.clone(),
                b"x",
                branch,
                &crate::model::Timestamp::new(at).unwrap(),
            )
            .unwrap_err();
            assert_eq!(err.code(), "SMG-E020");
        }
    }
}
