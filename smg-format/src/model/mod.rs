//! The v1 document model: serde types for every section of a `.smg` file.
//!
//! Every object keeps the fields it does not know in `extra`, so a file written by a
//! newer minor version survives a round trip through this reader unchanged.

mod archive;
mod block_data;
mod checked;
mod curation;
mod digest;
mod fields;
mod frame;
mod graph;
mod lists;
mod memory;
mod number;
mod sealed;
mod short;
mod time;
mod vault;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

pub use archive::{Block, CompressionMethod, DeepArchive, Embedding, TimeRange, VectorIndex};
pub use block_data::BlockData;
pub use checked::{role, NonEmpty, Refused, TurnRange};
pub use curation::{Action, AuditEntry, Curation, CycleSummary, EdgeAt, FieldsAt, NodeAt, Policy};
pub use digest::{Sha256Hex, Sha256Ref};
pub use frame::{Context, DocumentKind, FormatVersion, CONTEXT_IRI};
pub use graph::{
    Access, Edge, Graph, LifecycleTier, Node, Provenance, RecentAccesses, Scope, Severity,
};
pub use lists::Vector;
pub use memory::{Turn, WorkingMemory};
pub use number::{NonNegative, Ordinal, Unit};
pub use sealed::{SealParams, SealedId, SealedKind, SealedSection};
pub use short::ShortText;
pub(crate) use time::{is_date_time, is_full_date};
pub use time::{DateOrTime, Timestamp};
pub use vault::{Artifact, ArtifactVault, ArtifactVersion, Versions};

/// Fields a reader does not know: kept and written back verbatim.
pub type Extra = serde_json::Map<String, Value>;

/// A whole `.smg` document.
///
/// ```
/// use smg_format::model::Timestamp;
/// let doc = smg_format::Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
/// let bytes = smg_format::codec::to_canonical_json(&doc).unwrap();
/// let again = smg_format::codec::from_json_slice(&bytes).unwrap();
/// assert_eq!(doc, again);
/// ```
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// The JSON-LD context: the v1 IRI, an inline context, or an array of them.
    #[serde(rename = "@context")]
    pub context: Context,
    /// Always `SemanticMemoryGraph`.
    #[serde(rename = "@type")]
    pub kind: DocumentKind,
    /// Format version, `"1.x"`.
    pub version: FormatVersion,
    /// File-level facts.
    pub metadata: Metadata,
    /// The hot tier.
    pub working_memory: Option<WorkingMemory>,
    /// The warm tier.
    pub semantic_graph: Option<Graph>,
    /// Code and documents.
    pub artifact_vault: Option<ArtifactVault>,
    /// The cold tier.
    pub deep_archive: Option<DeepArchive>,
    /// People who share this memory (SMG §6.4).
    pub collaborators: Option<Vec<Collaborator>>,
    /// Knowledge common to all collaborators.
    pub shared_graph: Option<Graph>,
    /// Each collaborator's own context, keyed by collaborator id.
    pub private_contexts: Option<BTreeMap<String, PrivateContext>>,
    /// Parts of the document sealed with their own passphrase (spec §10.2).
    pub sealed_sections: Option<Vec<SealedSection>>,
    /// Curation's policy, audit log and cycles (spec §18).
    pub curation: Option<Curation>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Document {
    /// An empty v1 document created at `created`.
    pub fn new(created: Timestamp) -> Self {
        Document {
            context: Context::v1(),
            kind: DocumentKind::SemanticMemoryGraph,
            version: FormatVersion::CURRENT,
            metadata: Metadata {
                modified: Some(created.clone()),
                ..Metadata::new(created)
            },
            working_memory: None,
            semantic_graph: None,
            artifact_vault: None,
            deep_archive: None,
            collaborators: None,
            shared_graph: None,
            private_contexts: None,
            sealed_sections: None,
            curation: None,
            extra: Extra::new(),
        }
    }

    /// Every graph in the document with the JSON Pointer of its node and edge
    /// arrays' parent: the semantic graph, the shared graph and each private context's.
    pub fn graphs(&self) -> Vec<(String, &Graph)> {
        let mut out = Vec::new();
        if let Some(g) = &self.semantic_graph {
            out.push(("/semanticGraph".to_string(), g));
        }
        if let Some(g) = &self.shared_graph {
            out.push(("/sharedGraph".to_string(), g));
        }
        for (id, ctx) in self.private_contexts.iter().flatten() {
            if let Some(g) = &ctx.graph {
                let ptr = format!("/privateContexts/{}/graph", escape_pointer(id));
                out.push((ptr, g));
            }
        }
        out
    }

    /// Every graph in the document, to change: the semantic graph, the shared graph
    /// and each private context's, in the order of [`Document::graphs`].
    pub fn graphs_mut(&mut self) -> impl Iterator<Item = &mut Graph> {
        let private = self
            .private_contexts
            .iter_mut()
            .flat_map(|p| p.values_mut());
        self.semantic_graph
            .iter_mut()
            .chain(self.shared_graph.iter_mut())
            .chain(private.filter_map(|c| c.graph.as_mut()))
    }
}

/// Escape one JSON Pointer reference token (RFC 6901).
pub(crate) fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// File-level facts.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    /// The memory's id (a UUID is recommended).
    pub id: Option<String>,
    /// When the memory was created (RFC 3339).
    pub created: Timestamp,
    /// When it was last written (RFC 3339).
    pub modified: Option<Timestamp>,
    /// An application's project id.
    pub project_id: Option<String>,
    /// Project name.
    pub project_name: Option<String>,
    /// Project description.
    pub project_description: Option<String>,
    /// Turns the memory was built from.
    pub total_exchanges: Option<u64>,
    /// Size of this file over the size of its source, in \[0, ∞).
    pub compression_ratio: Option<NonNegative>,
    /// Free-form tags.
    pub tags: Option<Vec<String>>,
    /// The branch this memory is on (set by a fork).
    pub branch: Option<NonEmpty>,
    /// The forks that led to this memory, oldest first.
    pub lineage: Option<Vec<Fork>>,
    /// Other memories this one reaches (spec §4.1), by name.
    pub links: Option<Vec<Link>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Metadata {
    /// The facts of a memory created at `created`, and no others.
    pub fn new(created: Timestamp) -> Self {
        Metadata {
            id: None,
            created,
            modified: None,
            project_id: None,
            project_name: None,
            project_description: None,
            total_exchanges: None,
            compression_ratio: None,
            tags: None,
            branch: None,
            lineage: None,
            links: None,
            extra: Extra::new(),
        }
    }
}

/// One fork in a memory's lineage: the parent it was copied from.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fork {
    /// The parent's `metadata.id`, if it had one.
    pub parent_id: Option<String>,
    /// SHA-256 of the parent file's bytes, lowercase hex.
    pub parent_sha256: Sha256Hex,
    /// The parent's branch, if it was on one.
    pub parent_branch: Option<String>,
    /// The branch the fork started.
    pub branch: NonEmpty,
    /// When the fork was made (RFC 3339).
    pub forked_at: Timestamp,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Another memory file this one reaches (spec §4.1): where it is from this file, which
/// memory it was, and its bytes' hash when it was linked.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// The link's name, unique within the file.
    pub name: NonEmpty,
    /// The other file's path relative to this file's folder, `/` between parts.
    pub path: NonEmpty,
    /// The other memory's `metadata.id` when linked, if it had one (and could be read).
    pub id: Option<String>,
    /// SHA-256 of the other file's bytes when linked, lowercase hex.
    pub sha256: Sha256Hex,
    /// The other file's length in bytes when linked: what a reader that follows links
    /// for a query compares, leaving the whole hash to a check of the links.
    pub bytes: Option<u64>,
    /// When the link was made (RFC 3339).
    pub linked_at: Timestamp,
    /// Whether the other memory is only read through this link, never written.
    pub read_only: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A person who shares the memory.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collaborator {
    /// Collaborator id, the key of their private context.
    pub id: NonEmpty,
    /// Role in the project (developer, designer…).
    pub role: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One collaborator's own notes and graph.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateContext {
    /// Personal notes.
    pub notes: Option<Vec<String>>,
    /// Private nodes and edges (edges may point into the shared graphs).
    pub graph: Option<Graph>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}
