//! The artifact vault: code and documents, deduplicated, with versions as diffs.

use super::Timestamp;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::fields::read_with_extra;

use super::checked::Refused;
use super::lists::list_value;
use super::Extra;

/// The vault: artifacts by id.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactVault {
    /// Artifacts keyed by artifact id.
    pub artifacts: Option<BTreeMap<String, Artifact>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One artifact and its version history.
///
/// `type` is an open set: `code`, `document`, `canvas` and `data` are defined.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Kind of artifact.
    #[serde(rename = "type")]
    pub kind: super::NonEmpty,
    /// Programming language, for code.
    pub language: Option<String>,
    /// File name as the conversation named it.
    pub filename: Option<String>,
    /// `sha256:` + lowercase hex SHA-256 of the newest version's full content.
    pub hash: super::Sha256Ref,
    /// Versions, oldest first, numbered from 1.
    pub versions: Versions,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Artifact {
    kind: req "type",
    language: opt "language",
    filename: opt "filename",
    hash: req "hash",
    versions: req "versions",
});

/// One version: full `content`, or a unified-diff `delta` against the previous version.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactVersion {
    /// Version number, from 1, increasing by one.
    pub v: super::Ordinal,
    /// When the version was made (RFC 3339).
    pub timestamp: Option<Timestamp>,
    /// Unified diff against version `v - 1`.
    pub delta: Option<String>,
    /// Full content (required for version 1).
    pub content: Option<String>,
    /// `sha256:` + hex of this version's full content.
    pub hash: Option<super::Sha256Ref>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(ArtifactVersion {
    v: req "v",
    timestamp: opt "timestamp",
    delta: opt "delta",
    content: opt "content",
    hash: opt "hash",
});

impl ArtifactVersion {
    /// Version `v`, with nothing else known yet.
    pub fn new(v: super::Ordinal) -> Self {
        ArtifactVersion {
            v,
            ..Default::default()
        }
    }
}

impl Artifact {
    /// An artifact of type `kind` whose newest content hashes to `hash`, with
    /// `versions`, and nothing else known yet.
    pub fn new(kind: super::NonEmpty, hash: super::Sha256Ref, versions: Versions) -> Self {
        Artifact {
            kind,
            language: None,
            filename: None,
            hash,
            versions,
            extra: super::Extra::new(),
        }
    }
}

/// An artifact's versions, oldest first: never none.
///
/// ```
/// use smg_format::model::{ArtifactVersion, Ordinal, Versions};
/// let mut versions = Versions::one(ArtifactVersion::new(Ordinal::FIRST));
/// versions.push(ArtifactVersion::new(Ordinal::after(1)));
/// assert_eq!(versions.last().v, 2);
/// assert!(Versions::try_from(Vec::new()).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Versions(Vec<ArtifactVersion>);

impl Versions {
    /// The versions in `list`, unless there are none.
    pub fn new(list: Vec<ArtifactVersion>) -> Result<Self, Refused> {
        if list.is_empty() {
            return Err(Refused::new("[] has less than 1 item".into()));
        }
        Ok(Versions(list))
    }

    /// One version.
    pub fn one(first: ArtifactVersion) -> Self {
        Versions(vec![first])
    }

    /// The first version.
    pub fn first(&self) -> &ArtifactVersion {
        &self.0[0]
    }

    /// The newest version.
    pub fn last(&self) -> &ArtifactVersion {
        &self.0[self.0.len() - 1]
    }

    /// Add `version` after the others.
    pub fn push(&mut self, version: ArtifactVersion) {
        self.0.push(version);
    }
}

list_value!(Versions, ArtifactVersion);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Ordinal;
    use serde_json::json;

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        assert!(serde_json::from_value::<Versions>(json!([])).is_err());
        let one: Versions = serde_json::from_value(json!([{"v": 1}])).unwrap();
        assert_eq!(one.first().v, Ordinal::FIRST);
        assert_eq!(one.last().v, Ordinal::FIRST);
    }
}
