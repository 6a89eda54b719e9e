//! The mapping between a `.smg` graph and a property graph (spec §19): which label a
//! node gets, which fields become properties and under what name, and what stays in
//! the file. [`slice()`] turns a document into rows to write; [`read()`] turns rows read
//! back into a document.

mod read;
mod value;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use smg_format::model::{Document, NonEmpty, Scope};

use crate::bolt::Value;
use crate::Error;

pub use read::{read, ReadEdge, ReadNode};

/// The label every node of every memory carries, with its tier's label.
pub const NODE_LABEL: &str = "SmgNode";
/// The label of the one node per memory that holds its metadata.
pub const MEMORY_LABEL: &str = "SmgMemory";

/// A node field and the property that holds it: the M3S seed's names where it has one.
pub(crate) const NODE_FIELDS: &[(&str, &str)] = &[
    ("id", "id"),
    ("type", "type"),
    ("label", "title"),
    ("content", "content"),
    ("description", "description"),
    ("owner", "user_id"),
    ("department", "department"),
    ("scope", "scope"),
    ("knowledgeType", "knowledge_type"),
    ("createdBy", "created_by"),
    ("approvedBy", "approved_by"),
    ("confidence", "confidence"),
    ("effectiveDate", "effective_date"),
    ("expiryDate", "expiry_date"),
    ("created", "created_at"),
    ("updated", "last_updated"),
    ("timestamp", "timestamp"),
    ("tags", "tags"),
    ("keywords", "keywords"),
    ("importance", "importance"),
    ("tier", "tier"),
    ("accessCount", "access_count"),
    ("lastAccessed", "last_accessed"),
    ("firstMentioned", "first_mentioned"),
    ("lastMentioned", "last_mentioned"),
    ("memoryType", "memory_type"),
    ("outcome", "outcome"),
    ("rationale", "rationale"),
    ("status", "status"),
    ("severity", "severity"),
    ("version", "version"),
    ("artifactRef", "artifact_ref"),
    ("relatedNodes", "related_nodes"),
];

/// Edge fields kept as relationship properties (`from` and `to` are its ends).
pub(crate) const EDGE_FIELDS: &[(&str, &str)] = &[
    ("relation", "relation"),
    ("strength", "strength"),
    ("timestamp", "timestamp"),
];

/// Properties the bridge writes for itself; on a pull they are not fields.
pub(crate) const MEMORY: &str = "memory";
pub(crate) const ORDER: &str = "smg_order";
pub(crate) const HASH: &str = "smg_hash";
pub(crate) const EXTRA: &str = "smg_extra";
pub(crate) const KEY: &str = "smg_key";
pub(crate) const YEAR: &str = "year";
pub(crate) const EMBEDDING: &str = "embedding";

/// The four tiers, in the order the spec lists them.
pub const TIERS: [Scope; 4] = [
    Scope::Personal,
    Scope::Departmental,
    Scope::Global,
    Scope::Restricted,
];

/// The label of a tier (spec §7.1): an absent scope is personal.
pub fn tier_label(scope: Scope) -> &'static str {
    match scope {
        Scope::Personal => "ConversationMemory",
        Scope::Departmental => "DepartmentalKnowledge",
        Scope::Global => "GlobalKnowledge",
        Scope::Restricted => "CSuiteKnowledge",
    }
}

/// The tier a label names.
pub fn label_tier(label: &str) -> Option<Scope> {
    TIERS.into_iter().find(|&s| tier_label(s) == label)
}

/// The relationship type of an edge relation: the seed's names for its relations
/// (`MENTIONS`, `SUPERSEDES`, `RELATES_TO`…), otherwise the relation upper-cased with
/// anything but letters, digits and `_` turned into `_`. The relation itself is kept
/// in the `relation` property, so no spelling is lost.
pub fn relationship_type(relation: &str) -> String {
    if relation == "related_to" {
        return "RELATES_TO".into();
    }
    let mut t: String = relation
        .chars()
        .map(|c| match c.to_ascii_uppercase() {
            c @ ('A'..='Z' | '0'..='9' | '_') => c,
            _ => '_',
        })
        .collect();
    if !t.starts_with(|c: char| c.is_ascii_uppercase()) {
        t.insert_str(0, "R_");
    }
    t
}

/// A node as the database holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRow {
    /// The node's id.
    pub id: String,
    /// Its tier.
    pub tier: Scope,
    /// Every property, sorted by name, the bridge's own included.
    pub props: Vec<(String, Value)>,
    /// A digest of tier and properties: equal digests need no write.
    pub hash: String,
}

/// An edge as the database holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeRow {
    /// `[from, relation, to, rank among equal triples]` as JSON text: unique per memory.
    pub key: String,
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// The relationship type.
    pub rel_type: String,
    /// Every property, sorted by name.
    pub props: Vec<(String, Value)>,
    /// A digest of type and properties.
    pub hash: String,
}

/// What of a document goes to the database.
#[derive(Debug, Clone, Default)]
pub struct Slice {
    /// Nodes of the chosen tiers, tombstoned ones left out, in file order.
    pub nodes: Vec<NodeRow>,
    /// Edges between nodes of the chosen tiers, in file order.
    pub edges: Vec<EdgeRow>,
    /// The metadata node's properties.
    pub memory: Vec<(String, Value)>,
    /// Ids of tombstoned nodes (removed from the database by a push).
    pub tombstoned: Vec<String>,
    /// Tiers sealed in the file: neither written nor removed.
    pub sealed: Vec<Scope>,
}

impl Slice {
    /// The length of the nodes' embeddings, when they have any.
    pub fn dimensions(&self) -> Option<u64> {
        self.nodes
            .iter()
            .find_map(|n| match n.props.iter().find(|(k, _)| k == EMBEDDING) {
                Some((_, Value::List(v))) => Some(v.len() as u64),
                _ => None,
            })
    }
}

/// The part of `doc` that the tiers `tiers` put in the database under the memory name
/// `memory` (spec §19).
pub fn slice(doc: &Document, memory: &str, tiers: &[Scope]) -> Result<Slice, Error> {
    let sealed: Vec<Scope> = doc
        .sealed_sections
        .iter()
        .flatten()
        .filter_map(|s| s.tier)
        .collect();
    let chosen = |s: Scope| tiers.contains(&s) && !sealed.contains(&s);
    let vectors = node_vectors(doc);
    let mut slice = Slice {
        sealed: sealed.clone(),
        ..Slice::default()
    };
    let graph = doc.semantic_graph.as_ref();
    let mut in_slice = HashSet::new();
    for (order, node) in graph.map(|g| g.nodes()).unwrap_or(&[]).iter().enumerate() {
        let tier = node.scope.unwrap_or(Scope::Personal);
        if !chosen(tier) {
            continue;
        }
        if node.tombstone == Some(true) {
            slice.tombstoned.push(node.id.to_string());
            continue;
        }
        let json = to_json(node, &node.id)?;
        let mut props = fields_to_props(json, NODE_FIELDS);
        props.insert(MEMORY.into(), Value::from(memory));
        props.insert(ORDER.into(), Value::Int(order as i64));
        if let Some(year) = year(node) {
            props.insert(YEAR.into(), Value::Int(year));
        }
        if let Some(v) = vectors.get(node.id.as_str()) {
            props.insert(
                EMBEDDING.into(),
                Value::List(v.iter().map(|&x| Value::Float(x)).collect()),
            );
        }
        let props: Vec<_> = props.into_iter().collect();
        let hash = digest(tier_label(tier), &props);
        in_slice.insert(node.id.as_str());
        slice.nodes.push(NodeRow {
            id: node.id.to_string(),
            tier,
            props,
            hash,
        });
    }
    let mut seen: HashMap<(NonEmpty, NonEmpty, NonEmpty), usize> = HashMap::new();
    for (order, edge) in graph.map(|g| g.edges()).unwrap_or(&[]).iter().enumerate() {
        let triple = (edge.from.clone(), edge.relation.clone(), edge.to.clone());
        let rank = seen.entry(triple).or_default();
        // JSON text: unambiguous, and printable whatever the ids hold.
        let key = Json::from(vec![
            Json::from(edge.from.as_str()),
            Json::from(edge.relation.as_str()),
            Json::from(edge.to.as_str()),
            Json::from(*rank),
        ])
        .to_string();
        *rank += 1;
        if !in_slice.contains(edge.from.as_str()) || !in_slice.contains(edge.to.as_str()) {
            continue;
        }
        let mut json = to_json(edge, &key)?;
        if let Json::Object(m) = &mut json {
            m.remove("from");
            m.remove("to");
        }
        let mut props = fields_to_props(json, EDGE_FIELDS);
        props.insert(MEMORY.into(), Value::from(memory));
        props.insert(ORDER.into(), Value::Int(order as i64));
        props.insert(KEY.into(), Value::from(key.as_str()));
        let props: Vec<_> = props.into_iter().collect();
        let rel_type = relationship_type(&edge.relation);
        let hash = digest(&rel_type, &props);
        slice.edges.push(EdgeRow {
            key,
            from: edge.from.to_string(),
            to: edge.to.to_string(),
            rel_type,
            props,
            hash,
        });
    }
    slice.memory = memory_props(doc, memory)?;
    Ok(slice)
}

/// Splits a serialized node or edge: mapped fields that a property can hold become
/// properties; everything else (objects, mixed lists, unknown fields) is kept as
/// canonical JSON in `smg_extra`.
fn fields_to_props(json: Json, table: &[(&str, &str)]) -> BTreeMap<String, Value> {
    let Json::Object(fields) = json else {
        return BTreeMap::new();
    };
    let mut props = BTreeMap::new();
    let mut extra = serde_json::Map::new();
    for (field, v) in fields {
        let name = table.iter().find(|(f, _)| *f == field).map(|(_, p)| *p);
        match (name, value::to_property(&v)) {
            (Some(name), Some(p)) => {
                props.insert(name.to_string(), p);
            }
            _ => {
                extra.insert(field, v);
            }
        }
    }
    if !extra.is_empty() {
        // A map with sorted keys, numbers as serde_json writes them: the same bytes for
        // the same fields, so digests stay stable.
        props.insert(EXTRA.into(), Value::String(Json::Object(extra).to_string()));
    }
    props
}

/// The year of a node's time (its timestamp, creation or effective date), for the
/// seed's composite indexes.
fn year(node: &smg_format::model::Node) -> Option<i64> {
    let times = [&node.timestamp, &node.created].map(|t| t.as_deref());
    let date = (times.into_iter())
        .chain([node.effective_date.as_deref()])
        .flatten()
        .next()?;
    date.get(..4)?.parse().ok()
}

fn node_vectors(doc: &Document) -> HashMap<&str, &[f64]> {
    let index = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.vector_index.as_ref());
    index
        .and_then(|i| i.embeddings.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e.node_id.as_deref()?, &e.vector[..])))
        .collect()
}

/// The metadata node: the memory's metadata and its vector index's settings, as JSON.
fn memory_props(doc: &Document, memory: &str) -> Result<Vec<(String, Value)>, Error> {
    let metadata = to_json(&doc.metadata, "metadata")?;
    let mut props = vec![
        (MEMORY.to_string(), Value::from(memory)),
        (
            "smg_metadata".to_string(),
            Value::String(metadata.to_string()),
        ),
    ];
    let index = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.vector_index.as_ref());
    if let Some(index) =
        index.filter(|i| i.embeddings.iter().flatten().any(|e| e.node_id.is_some()))
    {
        let mut settings = index.clone();
        settings.embeddings = None;
        let json = to_json(&settings, "vector index")?;
        props.push(("smg_vectors".to_string(), Value::String(json.to_string())));
    }
    Ok(props)
}

fn to_json<T: serde::Serialize>(value: &T, element: &str) -> Result<Json, Error> {
    serde_json::to_value(value).map_err(|e| Error::Mapping {
        element: element.to_string(),
        message: e.to_string(),
    })
}

/// A short digest of a label or type and sorted properties.
pub(crate) fn digest(label: &str, props: &[(String, Value)]) -> String {
    let mut bytes = Vec::new();
    crate::bolt::encode_value(
        &Value::List(vec![Value::from(label), Value::Map(props.to_vec())]),
        &mut bytes,
    );
    hex::encode(&Sha256::digest(&bytes)[..16])
}

#[cfg(test)]
mod tests;
