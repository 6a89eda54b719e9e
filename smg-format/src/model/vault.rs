//! The artifact vault: code and documents, deduplicated, with versions as diffs.

use super::Timestamp;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub versions: Vec<ArtifactVersion>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One version: full `content`, or a unified-diff `delta` against the previous version.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

impl Artifact {
    /// An artifact of type `kind` whose newest content hashes to `hash`, with
    /// `versions`, and nothing else known yet.
    pub fn new(
        kind: super::NonEmpty,
        hash: super::Sha256Ref,
        versions: Vec<ArtifactVersion>,
    ) -> Self {
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
