//! The official MCP memory server's entities and relations in the graph (what
//! `smg-import` reads from a `memory.jsonl`). Real files repeat an entity (its
//! observations are merged, in order, exact repeats dropped), repeat relations (taken
//! once) and name entities that have no line (made, flagged `implicit`).
//!
//! An entity becomes an `entity` node (spec §11's id from its name; `tags: [type]`,
//! `content` its observations one per line, `metadata.mcp` the exact type and
//! observations so that export gives them back); a relation an edge whose relation is
//! the relation type.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use smg_format::model::{Document, Edge, Graph, Node, NonEmpty, Scope};

use super::imported::{Entity, McpGraph};
use crate::error::Result;
use crate::fast::{FastMap, FastSet};
use crate::ingest::named::entity_id;

/// `createdBy` of the nodes this import makes: authored, never derived again.
pub(crate) const CREATED_BY: &str = "mcp-memory";

/// The id of the entity `name`: spec §11's (SHA-256 of the trimmed, lower-cased
/// name), unless another name already has it in `taken` (the MCP server tells
/// `Ada` from `ada`): then that id and the first 16 hex of the exact name's digest.
fn id_for(name: &str, taken: &FastMap<String, String>) -> NonEmpty {
    let id = entity_id(name);
    match taken.get(id.as_str()) {
        Some(other) if other != name => exact_id(&id, name),
        _ => id,
    }
}

/// `id` told apart by the first 16 hex of the exact name's digest.
pub(crate) fn exact_id(id: &NonEmpty, name: &str) -> NonEmpty {
    let exact = hex::encode(Sha256::digest(name.as_bytes()));
    NonEmpty::joined(id, format_args!("-{}", &exact[..16]))
}

/// The MCP facts a node holds, if an MCP import made it.
pub(crate) fn mcp_of(node: &Node) -> Option<&Value> {
    node.metadata.as_ref()?.get("mcp")
}

pub(crate) fn entity_node(id: NonEmpty, e: &Entity, implicit: bool) -> Node {
    let mut mcp = json!({"entityType": e.entity_type, "observations": e.observations});
    if implicit {
        mcp["implicit"] = json!(true);
    }
    Node {
        label: Some(e.name.clone()),
        tags: Some(vec![e.entity_type.as_str().into()]),
        content: (!e.observations.is_empty()).then(|| e.observations.join("\n")),
        created_by: Some(CREATED_BY.into()),
        metadata: Some(json!({ "mcp": mcp })),
        ..Node::new(id, NonEmpty::from_static("entity"))
    }
}

/// Where the MCP nodes of a graph are, by id and by name.
struct Placer {
    /// MCP node id → entity name.
    names: FastMap<String, String>,
    /// Node id → position, for every node.
    index: FastMap<String, usize>,
    /// Entity name → MCP node id.
    by_name: FastMap<String, NonEmpty>,
}

impl Placer {
    fn new(nodes: &[Node]) -> Self {
        let mcp = nodes.iter().filter(|n| mcp_of(n).is_some());
        let named: Vec<(&NonEmpty, &String)> = mcp
            .filter_map(|n| Some((&n.id, n.label.as_ref()?)))
            .collect();
        let names = named
            .iter()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect();
        let by_name = named
            .into_iter()
            .map(|(id, name)| (name.clone(), id.clone()))
            .collect();
        let index = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.to_string(), i))
            .collect();
        Placer {
            names,
            index,
            by_name,
        }
    }

    /// The node of entity `e`, merged into the one of its name or made.
    fn put(&mut self, nodes: &mut Vec<Node>, e: &Entity, implicit: bool) -> NonEmpty {
        if let Some(id) = self.by_name.get(&e.name) {
            merge_observations(&mut nodes[self.index[id.as_str()]], e, implicit);
            return id.clone();
        }
        let id = id_for(&e.name, &self.names);
        let node = entity_node(id.clone(), e, implicit);
        match self.index.get(id.as_str()) {
            // A node ingest derived for the same name gives way to the authored one.
            Some(&i) => nodes[i] = node,
            None => {
                self.index.insert(id.to_string(), nodes.len());
                nodes.push(node);
            }
        }
        self.names.insert(id.to_string(), e.name.clone());
        self.by_name.insert(e.name.clone(), id.clone());
        id
    }
}

/// Put `graph` into `doc`'s semantic graph: entities merge into the MCP nodes already
/// there (observations added in order), relations are added once. Returns the
/// entities made for relation ends that had no line.
///
/// Given a `scope`, every node the graph puts takes it; restricted observations are
/// never merged into a node of another scope (refused, naming the entity), since
/// sealing takes whole nodes.
pub(crate) fn apply(
    doc: &mut Document,
    graph: McpGraph,
    scope: Option<Scope>,
) -> Result<Vec<String>> {
    let g = doc.semantic_graph.get_or_insert_with(Graph::default);
    let nodes = g.nodes.get_or_insert_with(Vec::new);
    let mut placer = Placer::new(nodes);
    if let Some(s) = scope {
        let names = graph.entities.iter().map(|e| e.name.as_str());
        let ends = graph
            .relations
            .iter()
            .flat_map(|(a, b, _)| [a.as_str(), b.as_str()]);
        for name in names.chain(ends) {
            let at = placer.by_name.get(name).map(|id| placer.index[id.as_str()]);
            if at.is_some_and(|i| nodes[i].scope != Some(s)) {
                return Err(smg_format::Error::InvalidArgument(format!(
                    "entity `{name}` is in the memory with another scope: its {} observations cannot be kept apart from it",
                    s.name()
                ))
                .into());
            }
        }
    }
    let mut placed = Vec::new();
    for e in &graph.entities {
        placed.push(placer.put(nodes, e, false));
    }
    let mut implicit = Vec::new();
    let mut ends = Vec::with_capacity(graph.relations.len());
    for (from, to, _) in &graph.relations {
        let mut end = |name: &str| match placer.by_name.get(name) {
            Some(id) => id.clone(),
            None => {
                implicit.push(name.to_string());
                let e = Entity {
                    name: name.to_string(),
                    entity_type: "unknown".into(),
                    observations: Vec::new(),
                };
                placer.put(nodes, &e, true)
            }
        };
        let pair = (end(from), end(to));
        ends.push(pair);
    }
    if scope.is_some() {
        let ids = placed.iter().chain(ends.iter().flat_map(|(a, b)| [a, b]));
        for id in ids {
            nodes[placer.index[id.as_str()]].scope = scope;
        }
    }
    let edges = g.edges.get_or_insert_with(Vec::new);
    let mut have: FastSet<(NonEmpty, NonEmpty, NonEmpty)> = edges
        .iter()
        .map(|e| (e.from.clone(), e.relation.clone(), e.to.clone()))
        .collect();
    for ((from, to), (_, _, kind)) in ends.into_iter().zip(graph.relations) {
        if have.insert((from.clone(), kind.clone(), to.clone())) {
            edges.push(Edge::new(from, kind, to));
        }
    }
    Ok(implicit)
}

/// Add `e`'s observations to the MCP node `n` (an implicit node that gets its own
/// line becomes explicit, with the line's type).
fn merge_observations(n: &mut Node, e: &Entity, implicit: bool) {
    let Some(Value::Object(meta)) = n.metadata.as_mut() else {
        return;
    };
    let Some(Value::Object(mcp)) = meta.get_mut("mcp") else {
        return;
    };
    if !implicit && mcp.remove("implicit").is_some() {
        mcp.insert("entityType".into(), json!(e.entity_type));
        n.tags = Some(vec![e.entity_type.as_str().into()]);
    }
    let list = mcp
        .entry("observations")
        .or_insert_with(|| json!([]))
        .as_array_mut();
    let Some(list) = list else { return };
    for o in &e.observations {
        if !list.iter().any(|x| x.as_str() == Some(o)) {
            list.push(json!(o));
        }
    }
    let all: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    n.content = (!all.is_empty()).then(|| all.join("\n"));
}
