//! The semantic graph: nodes, edges, provenance, memory tiers and lifecycle.

use super::{DateOrTime, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::fields::read_with_extra;

use super::checked::Refused;
use super::lists::list_value;
use super::{Extra, NonEmpty, ShortText, Unit};

/// A graph of nodes and edges (`semanticGraph`, `sharedGraph`, or a private context's graph).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Graph {
    /// The nodes, each with a document-wide unique `id`.
    pub nodes: Option<Vec<Node>>,
    /// Directed edges between node ids.
    pub edges: Option<Vec<Edge>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Graph {
    /// The nodes, or an empty slice.
    pub fn nodes(&self) -> &[Node] {
        self.nodes.as_deref().unwrap_or_default()
    }

    /// The edges, or an empty slice.
    pub fn edges(&self) -> &[Edge] {
        self.edges.as_deref().unwrap_or_default()
    }
}

/// The memory tier (scope) of a node: who may read it (M3S §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One user's own memory (the default).
    Personal,
    /// Curated team knowledge; confidence ≥ 0.85 and an approver.
    Departmental,
    /// Curated organisation-wide knowledge; confidence ≥ 0.90 and an approver.
    Global,
    /// Restricted (e.g. executive-only) knowledge that most readers must never see.
    Restricted,
}

impl Scope {
    /// The tier's name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Personal => "personal",
            Scope::Departmental => "departmental",
            Scope::Global => "global",
            Scope::Restricted => "restricted",
        }
    }

    /// The lowest confidence the tier accepts, if it is curated.
    pub fn min_confidence(self) -> Option<f64> {
        match self {
            Scope::Departmental => Some(0.85),
            Scope::Global => Some(0.90),
            Scope::Personal | Scope::Restricted => None,
        }
    }
}

/// Where a node sits in the curation lifecycle (hot working set to archive).
/// Ordered from hot to cold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum LifecycleTier {
    /// In the working set.
    Hot,
    /// Recently useful.
    Warm,
    /// Rarely used.
    Cold,
    /// Kept but not offered unless asked for.
    Archive,
}

impl LifecycleTier {
    /// The tier's name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            LifecycleTier::Hot => "HOT",
            LifecycleTier::Warm => "WARM",
            LifecycleTier::Cold => "COLD",
            LifecycleTier::Archive => "ARCHIVE",
        }
    }

    /// One tier colder, if there is one.
    pub fn colder(self) -> Option<Self> {
        match self {
            LifecycleTier::Hot => Some(LifecycleTier::Warm),
            LifecycleTier::Warm => Some(LifecycleTier::Cold),
            LifecycleTier::Cold => Some(LifecycleTier::Archive),
            LifecycleTier::Archive => None,
        }
    }

    /// One tier warmer, if there is one.
    pub fn warmer(self) -> Option<Self> {
        match self {
            LifecycleTier::Hot => None,
            LifecycleTier::Warm => Some(LifecycleTier::Hot),
            LifecycleTier::Cold => Some(LifecycleTier::Warm),
            LifecycleTier::Archive => Some(LifecycleTier::Cold),
        }
    }
}

/// How grave an analysis or a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// For information only.
    Info,
    /// Minor.
    Low,
    /// Worth acting on.
    Medium,
    /// Serious.
    High,
    /// Must not be missed.
    Critical,
}

impl Severity {
    /// The name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

/// One retrieval of a node: when, and by whom (a user or an agent id).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Access {
    /// When (RFC 3339).
    pub at: Timestamp,
    /// Who retrieved it, when known.
    pub by: Option<NonEmpty>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Access {
    at: req "at",
    by: opt "by",
});

impl Access {
    /// A retrieval at `at` by someone not named.
    pub fn new(at: Timestamp) -> Self {
        Access {
            at,
            by: None,
            extra: Extra::new(),
        }
    }
}

/// A node's recent retrievals (spec §18.2): at most [`RecentAccesses::MAX`].
///
/// ```
/// use smg_format::model::{Access, RecentAccesses, Timestamp};
/// let at = |t| Access::new(Timestamp::from_static(t));
/// let list = vec![at("2025-12-04T10:30:00Z"), at("2025-12-01T08:00:00Z")];
/// let kept = RecentAccesses::newest(list);
/// assert_eq!(kept[0].at, "2025-12-01T08:00:00Z");
/// assert!(RecentAccesses::new(vec![at("2025-12-01T08:00:00Z"); 65]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecentAccesses(Vec<Access>);

impl RecentAccesses {
    /// The most retrievals a node keeps.
    pub const MAX: usize = 64;

    /// The retrievals in `list`, unless there are more than [`Self::MAX`].
    pub fn new(list: Vec<Access>) -> Result<Self, Refused> {
        if list.len() > Self::MAX {
            let n = list.len();
            return Err(Refused::new(format!(
                "{n} items is more than {}",
                Self::MAX
            )));
        }
        Ok(RecentAccesses(list))
    }

    /// The newest [`Self::MAX`] retrievals of `list`, oldest first (by instant;
    /// retrievals at the same instant keep their order).
    pub fn newest(mut list: Vec<Access>) -> Self {
        list.sort_by_cached_key(|a| a.at.instant());
        let extra = list.len().saturating_sub(Self::MAX);
        list.drain(..extra);
        RecentAccesses(list)
    }
}

list_value!(RecentAccesses, Access);

/// Where a memory came from: the conversation, session, messages and turns.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    // Fields in the order of their keys in canonical JSON: written in that order,
    // an object needs no sorting (the writer checks, and sorts only what is not).
    /// The source conversation's id.
    pub conversation_id: Option<ShortText>,
    /// Ids of the source messages, as the source system named them.
    pub message_ids: Option<Vec<ShortText>>,
    /// The session within the conversation.
    pub session_id: Option<ShortText>,
    /// When the source was said (RFC 3339).
    pub timestamp: Option<Timestamp>,
    /// Archive turn numbers the memory was drawn from.
    pub turns: Option<Vec<super::Ordinal>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Provenance {
    conversation_id: opt "conversationId",
    message_ids: tight "messageIds",
    session_id: opt "sessionId",
    timestamp: opt "timestamp",
    turns: tight "turns",
});

/// One node of the semantic graph.
///
/// `type` is an open set: v1 defines `concept`, `decision`, `artifact`, `problem`,
/// `solution`, `entity`, `memory` and `segment`; other values are kept and
/// reported as warnings.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    // Fields in the order of their keys in canonical JSON: written in that order,
    // an object needs no sorting (the writer checks, and sorts only what is not).
    /// How often the node was retrieved.
    pub access_count: Option<u64>,
    /// Who approved curated knowledge.
    pub approved_by: Option<String>,
    /// For `artifact` nodes: the artifact id in the vault.
    pub artifact_ref: Option<String>,
    /// How sure the extractor is, in \[0, 1\].
    pub confidence: Option<Unit>,
    /// Full text of a memory or segment.
    pub content: Option<String>,
    /// When the node was created (RFC 3339).
    pub created: Option<Timestamp>,
    /// Who created the node.
    pub created_by: Option<ShortText>,
    /// When the node was tombstoned (RFC 3339).
    pub deleted_at: Option<Timestamp>,
    /// Department of departmental memory.
    pub department: Option<String>,
    /// Longer text.
    pub description: Option<String>,
    /// First day the knowledge applies (RFC 3339 date or date-time).
    pub effective_date: Option<DateOrTime>,
    /// Last day the knowledge applies (RFC 3339 date or date-time).
    pub expiry_date: Option<DateOrTime>,
    /// First turn that mentions the node.
    pub first_mentioned: Option<u64>,
    /// Unique across the whole document.
    pub id: NonEmpty,
    /// How much the node matters, in \[0, 1\].
    pub importance: Option<Unit>,
    /// Free-form keywords.
    pub keywords: Option<Vec<ShortText>>,
    /// Curated knowledge type (how_to, expertise, policy, milestone…).
    pub knowledge_type: Option<String>,
    /// Short human-readable name.
    pub label: Option<String>,
    /// When the node was last retrieved (RFC 3339).
    pub last_accessed: Option<Timestamp>,
    /// Last turn that mentions the node.
    pub last_mentioned: Option<u64>,
    /// For `memory` nodes: fact, preference, project, relationship, constraint or event.
    pub memory_type: Option<ShortText>,
    /// Free-form application data (an opaque JSON value in JSON-LD).
    pub metadata: Option<Value>,
    /// A decision's outcome.
    pub outcome: Option<String>,
    /// Owning user of personal memory.
    pub owner: Option<String>,
    /// Where the memory came from.
    pub provenance: Option<Vec<Provenance>>,
    /// A decision's reason.
    pub rationale: Option<String>,
    /// Retrievals of the last 90 days, oldest first (at most 64; spec §18.2): what
    /// curation's 7-day counts and cross-agent references are drawn from.
    pub recent_accesses: Option<RecentAccesses>,
    /// Ids of related nodes (a shorthand for `related_to` edges).
    pub related_nodes: Option<Vec<String>>,
    /// Memory tier; absent means personal.
    pub scope: Option<Scope>,
    /// How grave an analysis or notification is (curation's quality and TTL, §18).
    pub severity: Option<Severity>,
    /// The state of what the node stands for: `active`, `archived`, `pending`,
    /// `in_progress`, `blocked`, `completed`, `failed`, `read`, `unread`, `inactive`,
    /// `consolidated`, `unconsolidated`, `keywords`… (an open set; curation's rules, §18).
    pub status: Option<NonEmpty>,
    /// Free-form tags.
    pub tags: Option<Vec<ShortText>>,
    /// Curation lifecycle tier.
    pub tier: Option<LifecycleTier>,
    /// When the node's event happened or was said (RFC 3339).
    pub timestamp: Option<Timestamp>,
    /// Soft-deleted, pending removal.
    pub tombstone: Option<bool>,
    /// The node type (see the type's documentation).
    #[serde(rename = "type")]
    pub kind: NonEmpty,
    /// When the node was last changed (RFC 3339).
    pub updated: Option<Timestamp>,
    /// For `artifact` nodes: the artifact version meant.
    pub version: Option<super::Ordinal>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Node {
    access_count: opt "accessCount",
    approved_by: opt "approvedBy",
    artifact_ref: opt "artifactRef",
    confidence: opt "confidence",
    content: opt "content",
    created: opt "created",
    created_by: opt "createdBy",
    deleted_at: opt "deletedAt",
    department: opt "department",
    description: opt "description",
    effective_date: opt "effectiveDate",
    expiry_date: opt "expiryDate",
    first_mentioned: opt "firstMentioned",
    id: req "id",
    importance: opt "importance",
    keywords: tight "keywords",
    knowledge_type: opt "knowledgeType",
    label: opt "label",
    last_accessed: opt "lastAccessed",
    last_mentioned: opt "lastMentioned",
    memory_type: opt "memoryType",
    metadata: opt "metadata",
    outcome: opt "outcome",
    owner: opt "owner",
    provenance: tight "provenance",
    rationale: opt "rationale",
    recent_accesses: opt "recentAccesses",
    related_nodes: tight "relatedNodes",
    scope: opt "scope",
    severity: opt "severity",
    status: opt "status",
    tags: tight "tags",
    tier: opt "tier",
    timestamp: opt "timestamp",
    tombstone: opt "tombstone",
    kind: req "type",
    updated: opt "updated",
    version: opt "version",
});

impl Node {
    /// Node `id` of type `kind`, and nothing else known yet.
    ///
    /// ```
    /// use smg_format::model::{NonEmpty, Node};
    /// let n = Node { label: Some("Rust".into()), ..Node::new(NonEmpty::from_static("c1"), NonEmpty::from_static("concept")) };
    /// assert_eq!(n.kind, "concept");
    /// ```
    pub fn new(id: NonEmpty, kind: NonEmpty) -> Self {
        Node {
            access_count: None,
            approved_by: None,
            artifact_ref: None,
            confidence: None,
            content: None,
            created: None,
            created_by: None,
            deleted_at: None,
            department: None,
            description: None,
            effective_date: None,
            expiry_date: None,
            first_mentioned: None,
            id,
            importance: None,
            keywords: None,
            knowledge_type: None,
            label: None,
            last_accessed: None,
            last_mentioned: None,
            memory_type: None,
            metadata: None,
            outcome: None,
            owner: None,
            provenance: None,
            rationale: None,
            recent_accesses: None,
            related_nodes: None,
            scope: None,
            severity: None,
            status: None,
            tags: None,
            tier: None,
            timestamp: None,
            tombstone: None,
            kind,
            updated: None,
            version: None,
            extra: Extra::new(),
        }
    }

    /// `createdBy` of the nodes ingest derives from the archive (spec §16): the whole
    /// node is computed, and built again by every ingest and after a merge (§17.3).
    pub const DERIVED_BY: &'static str = "smg ingest";

    /// Whether this node is derived from the archive ([`Node::DERIVED_BY`]) rather
    /// than authored by a person or an agent.
    pub fn is_derived(&self) -> bool {
        self.created_by.as_deref() == Some(Self::DERIVED_BY)
    }

    /// Whether curation left its marks on this node (spec §18.10): a tier,
    /// retrievals or a tombstone, which a derived node keeps when it is derived again.
    pub fn has_lifecycle(&self) -> bool {
        self.access_count.is_some()
            || self.last_accessed.is_some()
            || self.recent_accesses.is_some()
            || self.tier.is_some()
            || self.tombstone.is_some()
            || self.deleted_at.is_some()
    }
}

/// A directed, typed edge between two nodes.
///
/// `relation` is an open set: v1 defines `requires`, `requires_decision`, `causes`,
/// `implements`, `related_to`, `resulted_in`, `mentions`, `references`, `supersedes`,
/// `replaces`, `clarifies`, `next` and `part_of`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Edge {
    // Fields in the order of their keys in canonical JSON: written in that order,
    // an object needs no sorting (the writer checks, and sorts only what is not).
    /// Source node id.
    pub from: NonEmpty,
    /// Where the relation came from.
    pub provenance: Option<Vec<Provenance>>,
    /// Relation type.
    pub relation: NonEmpty,
    /// Strength in \[0, 1\].
    pub strength: Option<Unit>,
    /// When the relation was established (RFC 3339).
    pub timestamp: Option<Timestamp>,
    /// Target node id.
    pub to: NonEmpty,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Edge {
    from: req "from",
    provenance: tight "provenance",
    relation: req "relation",
    strength: opt "strength",
    timestamp: opt "timestamp",
    to: req "to",
});

impl Edge {
    /// An edge `from` → `to` of type `relation`, and nothing else known yet.
    pub fn new(from: NonEmpty, relation: NonEmpty, to: NonEmpty) -> Self {
        Edge {
            from,
            provenance: None,
            relation,
            strength: None,
            timestamp: None,
            to,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_are_read_with_no_room_to_spare() {
        let node: Node = serde_json::from_value(json!({"id": "a", "type": "concept",
            "provenance": [{"messageIds": ["1", "2"], "turns": [1]}],
            "keywords": ["k"], "tags": ["t"], "relatedNodes": ["b"], "label": null}))
        .unwrap();
        let provenance = node.provenance.as_ref().unwrap();
        assert_eq!(provenance.capacity(), 1);
        assert_eq!(provenance[0].message_ids.as_ref().unwrap().capacity(), 2);
        assert_eq!(provenance[0].turns.as_ref().unwrap().capacity(), 1);
        for list in [&node.keywords, &node.tags] {
            assert_eq!(list.as_ref().unwrap().capacity(), 1);
        }
        assert_eq!(node.related_nodes.unwrap().capacity(), 1);
        // Absent and null lists read as before.
        let bare: Node =
            serde_json::from_value(json!({"id": "a", "type": "concept", "tags": null})).unwrap();
        assert_eq!((bare.tags, bare.provenance), (None, None));
        let edge: Edge = serde_json::from_value(json!({"from": "a", "relation": "r", "to": "b",
            "provenance": [{"turns": [1]}]}))
        .unwrap();
        assert_eq!(edge.provenance.unwrap().capacity(), 1);
    }

    #[test]
    fn at_most_64_retrievals_are_read() {
        let access = json!({"at": "2025-12-01T08:00:00Z"});
        let many = json!(vec![access.clone(); 65]);
        assert!(serde_json::from_value::<RecentAccesses>(many).is_err());
        let most = json!(vec![access; 64]);
        assert_eq!(
            serde_json::from_value::<RecentAccesses>(most)
                .unwrap()
                .len(),
            64
        );
    }

    #[test]
    fn the_newest_retrievals_are_kept_oldest_first() {
        let at = |s: String| Access::new(Timestamp::new(s).unwrap());
        let list: Vec<Access> = (0..70)
            .rev()
            .map(|m| at(format!("2025-12-01T{:02}:{:02}:00Z", m / 60, m % 60)))
            .collect();
        let kept = RecentAccesses::newest(list);
        assert_eq!(kept.len(), RecentAccesses::MAX);
        assert_eq!(kept[0].at, "2025-12-01T00:06:00Z");
        assert_eq!(kept[63].at, "2025-12-01T01:09:00Z");
    }
}
