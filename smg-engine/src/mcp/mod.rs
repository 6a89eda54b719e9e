//! The official MCP memory server's knowledge graph, over a memory's semantic graph:
//! what `smg mcp` serves and `smg export --to mcp-memory` writes.
//!
//! An entity is a node: nodes an MCP import or tool made give back exactly their name,
//! type and observations (`metadata.mcp`); other knowledge shows as entities of its
//! type with its text as observations. Segments (their turns stay in the archive),
//! artifacts (in the vault), tombstoned and restricted nodes are not entities, and no
//! tool can reach them. A relation is an edge between two named nodes. Names are the
//! server's keys: a second node with the same label goes by its id.
//!
//! ```
//! use smg_engine::mcp::{create_entities, create_relations, Entity, Relation, View};
//! use smg_format::Document;
//!
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
//! let ada = Entity { name: "Ada".into(), entity_type: "person".into(),
//!                    observations: vec!["likes tea".into()] };
//! assert_eq!(create_entities(&mut doc, vec![ada.clone()]).unwrap(), vec![ada]);
//! let works = Relation { from: "Ada".into(), to: "Acme".into(), relation_type: "works at".into() };
//! create_relations(&mut doc, vec![works]).unwrap();
//! let found = View::new(&doc).search("TEA");
//! assert_eq!(found.entities[0].name, "Ada");
//! assert_eq!(found.relations.len(), 1); // to Acme, made for the relation
//! ```

mod page;
mod write;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smg_format::model::{Node, Scope};
use smg_format::Document;

use crate::fast::{FastMap, FastSet};
use crate::graph::node_texts;
use crate::ingest::mcp_of;

pub use page::{Page, Paged};
pub use write::{
    add_observations, create_entities, create_relations, delete_entities, delete_observations,
    delete_relations,
};

/// An entity: its name (the key), type and observations in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    /// The entity's name, unique among entities.
    pub name: String,
    /// Its type (`person`, `project`, …).
    pub entity_type: String,
    /// What is known of it, in the order it was learned.
    pub observations: Vec<String>,
}

/// A relation between two entities, in active voice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    /// The entity it starts from.
    pub from: String,
    /// The entity it ends at.
    pub to: String,
    /// What the relation is (`works_at`).
    pub relation_type: String,
}

/// Entities and the relations that touch them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct KnowledgeGraph {
    /// The entities.
    pub entities: Vec<Entity>,
    /// The relations.
    pub relations: Vec<Relation>,
}

/// Observations to add to one entity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationsToAdd {
    /// The entity.
    pub entity_name: String,
    /// What to add; those it already has are skipped.
    pub contents: Vec<String>,
}

/// What an addition added.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ObservationsAdded {
    /// The entity.
    pub entity_name: String,
    /// The observations it did not have before.
    pub added_observations: Vec<String>,
}

/// Observations to delete from one entity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationsToDelete {
    /// The entity.
    pub entity_name: String,
    /// What to delete.
    pub observations: Vec<String>,
}

/// Why a node is not an entity, if it is not.
pub(crate) fn left_out(n: &Node) -> Option<&'static str> {
    if n.tombstone == Some(true) {
        return Some("tombstoned");
    }
    if n.scope == Some(Scope::Restricted) {
        return Some("restricted tier");
    }
    match n.kind.as_str() {
        "segment" => Some("a segment: its turns stay in the archive"),
        "artifact" => Some("an artifact: its versions stay in the vault"),
        _ => None,
    }
}

/// The entity type and observations of a node: exactly as an MCP import or tool gave
/// them, else its tag or memory type and its texts.
pub(crate) fn entity_of(n: &Node) -> (String, Vec<String>) {
    if let Some(m) = mcp_of(n) {
        let kind = m
            .get("entityType")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let observations = m.get("observations").and_then(Value::as_array);
        let observations = observations
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        return (kind.to_string(), observations);
    }
    let kind = match n.kind.as_str() {
        "entity" => n
            .tags
            .as_ref()
            .and_then(|t| t.first())
            .map(|t| t.to_string()),
        "memory" => n.memory_type.as_ref().map(|t| t.to_string()),
        _ => None,
    };
    let label = n.label.as_deref();
    let observations = node_texts(n)
        .filter(|t| Some(*t) != label)
        .map(str::to_string)
        .collect();
    (kind.unwrap_or_else(|| n.kind.to_string()), observations)
}

/// Whether an MCP tool or import made the node only because a relation named it.
fn implicit(n: &Node) -> bool {
    mcp_of(n)
        .and_then(|m| m.get("implicit"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The knowledge graph of a document, with what finding in it needs.
#[derive(Debug, Clone, Default)]
pub struct View {
    graph: KnowledgeGraph,
    /// Node id → name, for every named node (entities and relation-only ends).
    names: FastMap<String, String>,
    /// Name → node id.
    ids: FastMap<String, String>,
    /// The names of entities (not of relation-only ends).
    entity_names: FastSet<String>,
    /// Per entity: name, type and observations lower-cased, one per line.
    lower: Vec<String>,
    /// Nodes that are not entities, and why.
    left_out: Vec<(String, String)>,
    /// Name → the positions of the relations that start or end at it, ascending.
    touching: FastMap<String, Vec<usize>>,
    /// Entity name → its position.
    entity_at: FastMap<String, usize>,
    /// Per entity: its node's importance (0 when it has none).
    importance: Vec<f64>,
}

impl View {
    /// The knowledge graph of `doc`'s semantic graph.
    pub fn new(doc: &Document) -> View {
        let mut v = View::default();
        let Some(g) = doc.semantic_graph.as_ref() else {
            return v;
        };
        let mut used: FastSet<String> = FastSet::default();
        for n in g.nodes() {
            if let Some(why) = left_out(n) {
                v.left_out.push((n.id.to_string(), why.to_string()));
                continue;
            }
            let label = n.label.clone().unwrap_or_else(|| n.id.to_string());
            let name = if used.insert(label.clone()) {
                label
            } else {
                used.insert(n.id.to_string());
                n.id.to_string()
            };
            v.names.insert(n.id.to_string(), name.clone());
            v.ids.insert(name.clone(), n.id.to_string());
            if implicit(n) {
                continue;
            }
            v.entity_names.insert(name.clone());
            v.entity_at.insert(name.clone(), v.graph.entities.len());
            let (entity_type, observations) = entity_of(n);
            let mut lower = format!("{name}\n{entity_type}");
            for o in &observations {
                lower.push('\n');
                lower.push_str(o);
            }
            v.lower.push(lower.to_lowercase());
            v.importance.push(n.importance.map_or(0.0, |i| i.get()));
            v.graph.entities.push(Entity {
                name,
                entity_type,
                observations,
            });
        }
        for e in g.edges() {
            match (v.names.get(e.from.as_str()), v.names.get(e.to.as_str())) {
                (Some(from), Some(to)) => {
                    let k = v.graph.relations.len();
                    v.touching.entry(from.clone()).or_default().push(k);
                    if to != from {
                        v.touching.entry(to.clone()).or_default().push(k);
                    }
                    v.graph.relations.push(Relation {
                        from: from.clone(),
                        to: to.clone(),
                        relation_type: e.relation.to_string(),
                    });
                }
                _ => v.left_out.push((
                    format!("{} -[{}]-> {}", e.from, e.relation, e.to),
                    "an edge to a node left out".into(),
                )),
            }
        }
        v
    }

    /// Every entity and relation.
    pub fn graph(&self) -> &KnowledgeGraph {
        &self.graph
    }

    /// Nodes and edges that are not in the knowledge graph, and why: `(what, why)`.
    pub fn left_out(&self) -> &[(String, String)] {
        &self.left_out
    }

    /// Whether an entity (not only a relation's end) is named `name`.
    pub fn is_entity(&self, name: &str) -> bool {
        self.entity_names.contains(name)
    }

    /// The node id of the entity (or relation end) named `name`.
    pub fn id_of(&self, name: &str) -> Option<&str> {
        self.ids.get(name).map(String::as_str)
    }

    /// Entities whose name, type or an observation holds `query` (ignoring case), and
    /// the relations that touch them: the reference server's `search_nodes`.
    pub fn search(&self, query: &str) -> KnowledgeGraph {
        let q = query.to_lowercase();
        self.around(self.matching(&q).map(|k| &self.graph.entities[k]))
    }

    /// The positions of the entities whose name, type or an observation holds the
    /// lower-cased query `q`, in graph order.
    fn matching<'a>(&'a self, q: &'a str) -> impl Iterator<Item = usize> + 'a {
        let entities = self.graph.entities.iter().zip(&self.lower);
        entities.enumerate().filter_map(move |(k, (e, lower))| {
            let hit = if q.contains('\n') {
                // A line break would match across fields: look at each field.
                let field = |t: &str| t.to_lowercase().contains(q);
                field(&e.name) || field(&e.entity_type) || e.observations.iter().any(|o| field(o))
            } else {
                lower.contains(q)
            };
            hit.then_some(k)
        })
    }

    /// The entities named, and the relations that touch them: `open_nodes`.
    pub fn open(&self, names: &[String]) -> KnowledgeGraph {
        let mut at: Vec<usize> = names
            .iter()
            .filter_map(|n| self.entity_at.get(n).copied())
            .collect();
        // In graph order, each once, as the reference server filters its list.
        at.sort_unstable();
        at.dedup();
        self.around(at.into_iter().map(|k| &self.graph.entities[k]))
    }

    /// `entities` and the relations that touch any of them, in graph order.
    fn around<'a>(&'a self, entities: impl Iterator<Item = &'a Entity>) -> KnowledgeGraph {
        let entities: Vec<Entity> = entities.cloned().collect();
        let mut at: Vec<usize> = entities
            .iter()
            .filter_map(|e| self.touching.get(&e.name))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        let relations = at
            .into_iter()
            .map(|k| self.graph.relations[k].clone())
            .collect();
        KnowledgeGraph {
            entities,
            relations,
        }
    }
}

#[cfg(test)]
mod tests;
