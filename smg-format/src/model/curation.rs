//! What curation keeps in the file (spec §18): its policy, its audit log with the
//! snapshots that undo each action, its cycle summaries, and the derived nodes it
//! removed for good.

use super::Timestamp;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::{Edge, Extra, Node};

/// The document's `curation` section.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Curation {
    // Fields in the order of their keys in canonical JSON.
    /// Every action curation took that was not undone (`smg restore` takes its entry
    /// out) or expired, oldest first.
    pub audit: Option<Vec<AuditEntry>>,
    /// One summary per cycle that changed something, oldest first.
    pub cycles: Option<Vec<CycleSummary>>,
    /// Who may approve curated knowledge, and how long curation keeps what it removed.
    pub policy: Option<Policy>,
    /// Ids of derived nodes curation removed: ingest never derives them again.
    pub removed: Option<Vec<String>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Governance and retention (M3S Part 4, Jochi): set with `smg policy`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    /// Department → the ids that may approve its departmental knowledge (its heads).
    pub approvers: Option<BTreeMap<String, Vec<String>>>,
    /// Days an audit entry is kept (default 30, Jochi's answer to audit bloat).
    pub audit_days: Option<u64>,
    /// The ids that may approve global knowledge (executives).
    pub executives: Option<Vec<String>>,
    /// Days a tombstoned node is kept before it is purged (default 30).
    pub tombstone_days: Option<u64>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Policy {
    /// Days an audit entry is kept unless the policy says otherwise.
    pub const AUDIT_DAYS: u64 = 30;
    /// Days a tombstone is kept unless the policy says otherwise (Jochi).
    pub const TOMBSTONE_DAYS: u64 = 30;
}

/// What a curation action did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Moved one tier warmer.
    Promote,
    /// Moved one tier colder.
    Demote,
    /// A belief past its confidence floor set to `archived` before its TTL runs.
    Archive,
    /// Soft-deleted: `tombstone` set, kept until the policy's days have passed.
    Tombstone,
    /// Removed from the graph with its edges (a tombstone that expired, or at once).
    Purge,
    /// A near-duplicate folded into the node it repeats.
    Merge,
    /// A `related_to` edge added between similar nodes.
    Relate,
}

impl Action {
    /// The name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Action::Promote => "promote",
            Action::Demote => "demote",
            Action::Archive => "archive",
            Action::Tombstone => "tombstone",
            Action::Purge => "purge",
            Action::Merge => "merge",
            Action::Relate => "relate",
        }
    }
}

/// One audited action and what undoes it exactly.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    // Fields in the order of their keys in canonical JSON.
    /// What was done.
    pub action: Action,
    /// When (the cycle's `now`, RFC 3339).
    pub at: Timestamp,
    /// The nodes the action removed, whole, each with its place in the node list.
    pub before: Option<Vec<NodeAt>>,
    /// The nodes the action changed in place: the changed fields' earlier values.
    pub changed: Option<Vec<FieldsAt>>,
    /// The cycle the action belongs to; absent for a command such as `smg tier`.
    pub cycle: Option<String>,
    /// Edges the action added (appended to the edge list).
    pub edges_added: Option<Vec<Edge>>,
    /// Edges the action removed, each with its place in the edge list.
    pub edges_removed: Option<Vec<EdgeAt>>,
    /// Unique among the file's audit entries.
    pub id: String,
    /// For a merge: the node that was kept.
    pub into: Option<String>,
    /// The node acted on.
    pub node: String,
    /// Why, in words (the rule and its numbers).
    pub reason: String,
    /// The node's memory value score when it was judged.
    pub score: Option<f64>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A node and its index in the node list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeAt {
    /// Position in `semanticGraph.nodes` when the snapshot was taken.
    pub index: u64,
    /// The node as it was.
    pub node: Node,
}

/// A node's fields as they were before an action changed them: each changed key with
/// its earlier value, `null` for a key the node did not have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldsAt {
    /// The earlier values.
    pub fields: Extra,
    /// The node's id.
    pub id: String,
}

/// An edge and its index in the edge list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeAt {
    /// The edge as it was.
    pub edge: Edge,
    /// Position in `semanticGraph.edges` when it was removed.
    pub index: u64,
}

/// What one curation cycle did, in counts.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleSummary {
    // Fields in the order of their keys in canonical JSON.
    /// Beliefs archived.
    pub archived: u64,
    /// The cycle's `now` (RFC 3339).
    pub at: Timestamp,
    /// Nodes moved a tier colder.
    pub demoted: u64,
    /// Unique among the file's cycles.
    pub id: String,
    /// Near-duplicates merged.
    pub merged: u64,
    /// Nodes moved a tier warmer.
    pub promoted: u64,
    /// Nodes removed for good.
    pub purged: u64,
    /// `related_to` edges added.
    pub related: u64,
    /// Nodes judged.
    pub scanned: u64,
    /// Nodes tombstoned.
    pub tombstoned: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl CycleSummary {
    /// Cycle `id`, run at `at`, that has done nothing yet.
    pub fn new(id: String, at: Timestamp) -> Self {
        CycleSummary {
            archived: 0,
            at,
            demoted: 0,
            id,
            merged: 0,
            promoted: 0,
            purged: 0,
            related: 0,
            scanned: 0,
            tombstoned: 0,
            extra: Extra::new(),
        }
    }
}
