//! The MCP memory server's six writing tools, on a document's semantic graph. Each
//! checks its whole request before it changes anything; what the reference server
//! would silently skip (an entity that exists, a relation that exists, an unknown name
//! to delete) is skipped here too.

use serde_json::{json, Map, Value};
use smg_format::model::{Edge, Graph, Node, NonEmpty};
use smg_format::Document;

use super::{entity_of, Entity, ObservationsAdded, ObservationsToAdd, ObservationsToDelete};
use super::{Relation, View};
use crate::fast::{FastMap, FastSet};
use crate::ingest::mcp_memory::{self, CREATED_BY};
use crate::{Error, Result};

fn refuse(detail: String) -> Error {
    smg_format::Error::InvalidArgument(detail).into()
}

fn named(what: &str, name: &str) -> Result<NonEmpty> {
    if name.trim().is_empty() {
        return Err(refuse(format!("{what} is empty")));
    }
    NonEmpty::new(name).map_err(|e| refuse(format!("{what}: {e}")))
}

/// Makes entity nodes with ids no node of the document has (spec §11's id from the
/// name; the exact name's digest added when another node has that id).
struct Maker {
    ids: FastSet<String>,
}

impl Maker {
    fn new(doc: &Document) -> Self {
        let graphs = doc.graphs();
        let ids = graphs
            .iter()
            .flat_map(|(_, g)| g.nodes())
            .map(|n| n.id.to_string());
        Maker { ids: ids.collect() }
    }

    fn node(&mut self, e: &Entity, implicit: bool) -> Node {
        let mut id = crate::ingest::named::entity_id(&e.name);
        if self.ids.contains(id.as_str()) {
            id = mcp_memory::exact_id(&id, &e.name);
        }
        self.ids.insert(id.to_string());
        let entity = crate::ingest::Entity {
            name: e.name.clone(),
            entity_type: e.entity_type.clone(),
            observations: e.observations.clone(),
        };
        mcp_memory::entity_node(id, &entity, implicit)
    }
}

fn nodes(doc: &mut Document) -> &mut Vec<Node> {
    doc.semantic_graph
        .get_or_insert_with(Graph::default)
        .nodes
        .get_or_insert_with(Vec::new)
}

fn position(doc: &Document) -> FastMap<String, usize> {
    let nodes = doc.semantic_graph.as_ref().map_or(&[][..], |g| g.nodes());
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.to_string(), i))
        .collect()
}

/// Add the entities whose names no entity has; returns those added. A name only a
/// relation named so far becomes a full entity.
pub fn create_entities(doc: &mut Document, entities: Vec<Entity>) -> Result<Vec<Entity>> {
    for e in &entities {
        named("an entity's name", &e.name)?;
        named("an entity's type", &e.entity_type)?;
    }
    let view = View::new(doc);
    let at = position(doc);
    let mut maker = Maker::new(doc);
    let mut seen = FastSet::default();
    let mut added = Vec::new();
    for e in entities {
        if view.is_entity(&e.name) || !seen.insert(e.name.clone()) {
            continue;
        }
        let node = maker.node(&e, false);
        match view.id_of(&e.name).and_then(|id| at.get(id)) {
            // A relation's end, named before it was created: now it is an entity.
            Some(&i) => {
                nodes(doc)[i] = Node {
                    id: nodes(doc)[i].id.clone(),
                    ..node
                }
            }
            None => nodes(doc).push(node),
        }
        added.push(e);
    }
    Ok(added)
}

/// Add the relations the graph does not have; returns those added. An end no node is
/// named becomes an entity of type `unknown`, flagged implicit (as the import does).
pub fn create_relations(doc: &mut Document, relations: Vec<Relation>) -> Result<Vec<Relation>> {
    for r in &relations {
        named("a relation's from", &r.from)?;
        named("a relation's to", &r.to)?;
        named("a relation's type", &r.relation_type)?;
    }
    let view = View::new(doc);
    let mut have: FastSet<Relation> = view.graph().relations.iter().cloned().collect();
    let mut ids: FastMap<String, NonEmpty> = FastMap::default();
    let mut maker = Maker::new(doc);
    let mut added = Vec::new();
    for r in relations {
        if !have.insert(r.clone()) {
            continue;
        }
        let mut end = |name: &str| -> Result<NonEmpty> {
            if let Some(id) = view.id_of(name) {
                return named("a node's id", id);
            }
            if let Some(id) = ids.get(name) {
                return Ok(id.clone());
            }
            let e = Entity {
                name: name.to_string(),
                entity_type: "unknown".into(),
                observations: Vec::new(),
            };
            let node = maker.node(&e, true);
            ids.insert(name.to_string(), node.id.clone());
            let id = node.id.clone();
            nodes(doc).push(node);
            Ok(id)
        };
        let (from, to) = (end(&r.from)?, end(&r.to)?);
        let kind = named("a relation's type", &r.relation_type)?;
        let g = doc.semantic_graph.get_or_insert_with(Graph::default);
        g.edges
            .get_or_insert_with(Vec::new)
            .push(Edge::new(from, kind, to));
        added.push(r);
    }
    Ok(added)
}

/// The node's MCP facts, made from what it holds when no MCP tool or import made it.
fn mcp_list(n: &mut Node) -> Result<&mut Vec<Value>> {
    let (kind, observations) = entity_of(n);
    let id = n.id.clone();
    let meta = n.metadata.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else {
        return Err(refuse(format!(
            "node `{id}`: its metadata is not an object"
        )));
    };
    let mcp = meta
        .entry("mcp")
        .or_insert_with(|| json!({"entityType": kind, "observations": observations}));
    let list = mcp
        .as_object_mut()
        .map(|m| m.entry("observations").or_insert_with(|| json!([])));
    match list.and_then(Value::as_array_mut) {
        Some(list) => Ok(list),
        None => Err(refuse(format!(
            "node `{id}`: metadata.mcp is not an MCP entity"
        ))),
    }
}

/// A node the MCP server made shows its observations as its content.
fn sync_content(n: &mut Node) {
    if n.created_by.as_deref() != Some(CREATED_BY) {
        return;
    }
    let (_, observations) = entity_of(n);
    n.content = (!observations.is_empty()).then(|| observations.join("\n"));
}

/// The node position of each entity `names` names (`None`: no entity has that name).
fn entities_at<'n>(doc: &Document, names: impl Iterator<Item = &'n str>) -> Vec<Option<usize>> {
    let view = View::new(doc);
    let at = position(doc);
    let found = |name: &str| view.is_entity(name).then(|| view.id_of(name)).flatten();
    names
        .map(|name| found(name).and_then(|id| at.get(id)).copied())
        .collect()
}

/// Add observations to existing entities; every entity must exist (else nothing
/// changes). Returns what each gained.
pub fn add_observations(
    doc: &mut Document,
    adds: Vec<ObservationsToAdd>,
) -> Result<Vec<ObservationsAdded>> {
    let at = entities_at(doc, adds.iter().map(|a| a.entity_name.as_str()));
    let at = at
        .into_iter()
        .zip(&adds)
        .map(|(i, a)| i.ok_or_else(|| Error::UnknownEntity(a.entity_name.clone())))
        .collect::<Result<Vec<usize>>>()?;
    let mut out = Vec::new();
    for (a, i) in adds.into_iter().zip(at) {
        let node = &mut nodes(doc)[i];
        let list = mcp_list(node)?;
        let mut added = Vec::new();
        for c in a.contents {
            if !list.iter().any(|o| o.as_str() == Some(&c)) {
                list.push(Value::String(c.clone()));
                added.push(c);
            }
        }
        sync_content(node);
        out.push(ObservationsAdded {
            entity_name: a.entity_name,
            added_observations: added,
        });
    }
    Ok(out)
}

/// Delete observations; an entity that does not exist is skipped.
pub fn delete_observations(doc: &mut Document, deletions: Vec<ObservationsToDelete>) -> Result<()> {
    let at = entities_at(doc, deletions.iter().map(|d| d.entity_name.as_str()));
    for (d, i) in deletions.into_iter().zip(at) {
        let Some(i) = i else { continue };
        let node = &mut nodes(doc)[i];
        mcp_list(node)?.retain(|o| !d.observations.iter().any(|x| o.as_str() == Some(x)));
        sync_content(node);
    }
    Ok(())
}

/// Delete entities and every relation that touches them; unknown names are skipped.
/// Other references to a deleted node (related nodes, edges of other graphs, node
/// embeddings) go with it, so the document stays valid.
pub fn delete_entities(doc: &mut Document, names: &[String]) -> Result<()> {
    let view = View::new(doc);
    let gone: FastSet<String> = names
        .iter()
        .filter_map(|n| view.id_of(n))
        .map(str::to_string)
        .collect();
    if gone.is_empty() {
        return Ok(());
    }
    for g in doc.graphs_mut() {
        if let Some(nodes) = g.nodes.as_mut() {
            nodes.retain(|n| !gone.contains(n.id.as_str()));
            for n in nodes.iter_mut() {
                if let Some(r) = n.related_nodes.as_mut() {
                    r.retain(|id| !gone.contains(id));
                }
            }
        }
        if let Some(edges) = g.edges.as_mut() {
            edges.retain(|e| !gone.contains(e.from.as_str()) && !gone.contains(e.to.as_str()));
        }
    }
    let vectors = doc
        .deep_archive
        .as_mut()
        .and_then(|a| a.vector_index.as_mut());
    if let Some(list) = vectors.and_then(|v| v.embeddings.as_mut()) {
        list.retain(|e| e.node_id.as_ref().is_none_or(|id| !gone.contains(id)));
    }
    Ok(())
}

/// Delete relations; those the graph does not have are skipped.
pub fn delete_relations(doc: &mut Document, relations: &[Relation]) -> Result<()> {
    let view = View::new(doc);
    let gone: FastSet<(&str, &str, &str)> = relations
        .iter()
        .filter_map(|r| {
            Some((
                view.id_of(&r.from)?,
                r.relation_type.as_str(),
                view.id_of(&r.to)?,
            ))
        })
        .collect();
    if let Some(edges) = doc.semantic_graph.as_mut().and_then(|g| g.edges.as_mut()) {
        edges.retain(|e| !gone.contains(&(e.from.as_str(), e.relation.as_str(), e.to.as_str())));
    }
    Ok(())
}
