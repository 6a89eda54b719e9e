//! Rows read from the database back into a document (spec §19.4).

use serde_json::{Map, Value as Json};
use smg_format::model::{
    DeepArchive, Document, Edge, Embedding, Graph, Metadata, Node, Ordinal, Scope, Timestamp,
    Vector, VectorIndex,
};

use super::{
    label_tier, tier_label, value, EDGE_FIELDS, EMBEDDING, EXTRA, HASH, KEY, MEMORY, NODE_FIELDS,
    ORDER, YEAR,
};
use crate::bolt::Value;
use crate::Error;

/// A node read from the database.
#[derive(Debug, Clone)]
pub struct ReadNode {
    /// How to name it in an error: its id, or the database's own id when it has none.
    pub element: String,
    /// Its labels.
    pub labels: Vec<String>,
    /// Its properties.
    pub props: Vec<(String, Value)>,
}

/// A relationship read from the database.
#[derive(Debug, Clone)]
pub struct ReadEdge {
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// The relationship type.
    pub rel_type: String,
    /// Its properties.
    pub props: Vec<(String, Value)>,
}

/// The document a memory's rows make: its metadata (from the memory node, or a new
/// one created `now`), its graph in the order it was pushed (nodes written by others
/// after, by id), and the embeddings of its nodes.
pub fn read(
    memory: &str,
    memory_props: Option<&[(String, Value)]>,
    nodes: Vec<ReadNode>,
    edges: Vec<ReadEdge>,
    now: &Timestamp,
) -> Result<Document, Error> {
    let mut doc = Document::new(now.clone());
    let prop = |name: &str| {
        memory_props
            .into_iter()
            .flatten()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_str())
    };
    doc.metadata = match prop("smg_metadata") {
        Some(text) => parse::<Metadata>(text, &format!("memory node `{memory}`"))?,
        None => Metadata {
            id: Some(memory.to_string()),
            ..doc.metadata
        },
    };
    let mut read_nodes = Vec::with_capacity(nodes.len());
    for n in nodes {
        read_nodes.push(node(n)?);
    }
    read_nodes.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    let ids: std::collections::HashSet<&str> = read_nodes.iter().map(|n| n.1.id.as_str()).collect();
    let mut read_edges = Vec::with_capacity(edges.len());
    for e in edges
        .into_iter()
        .filter(|e| ids.contains(e.from.as_str()) && ids.contains(e.to.as_str()))
    {
        read_edges.push(edge(e)?);
    }
    read_edges.sort_by_key(|e| e.0);
    let embeddings: Vec<Embedding> = read_nodes
        .iter_mut()
        .filter_map(|(_, n, v)| {
            Some(Embedding {
                node_id: Some(n.id.to_string()),
                vector: v.take()?,
                ..Embedding::default()
            })
        })
        .collect();
    if !embeddings.is_empty() {
        let mut index = match prop("smg_vectors") {
            Some(text) => parse::<VectorIndex>(text, &format!("memory node `{memory}`"))?,
            None => VectorIndex {
                enabled: true,
                dimensions: Ordinal::new(embeddings[0].vector.len() as u64).ok(),
                ..VectorIndex::default()
            },
        };
        index.embeddings = Some(embeddings);
        doc.deep_archive = Some(DeepArchive {
            vector_index: Some(index),
            ..DeepArchive::default()
        });
    }
    doc.semantic_graph = Some(Graph {
        nodes: Some(read_nodes.into_iter().map(|(_, n, _)| n).collect()),
        edges: Some(read_edges.into_iter().map(|(_, e)| e).collect()),
        ..Graph::default()
    });
    Ok(doc)
}

type Order = (bool, i64);
/// Fields, pushed order, embedding.
type Fields = (Map<String, Json>, Order, Option<Value>);

fn node(n: ReadNode) -> Result<(Order, Node, Option<Vector>), Error> {
    let bad = |message: String| Error::Mapping {
        element: format!("node {}", n.element),
        message,
    };
    let tiers: Vec<Scope> = n.labels.iter().filter_map(|l| label_tier(l)).collect();
    let tier = match tiers[..] {
        [t] => t,
        [] => return Err(bad("it has no tier label (ConversationMemory, DepartmentalKnowledge, GlobalKnowledge, CSuiteKnowledge)".into())),
        _ => return Err(bad(format!("it has {} tier labels", tiers.len()))),
    };
    let (mut fields, order, vector) = fields(&n.props, NODE_FIELDS).map_err(bad)?;
    match fields.get("scope") {
        Some(s) if s.as_str() != Some(tier.name()) => {
            return Err(bad(format!(
                "its scope {s} disagrees with its label {}",
                tier_label(tier)
            )))
        }
        None if tier != Scope::Personal => {
            fields.insert("scope".into(), Json::String(tier.name().into()));
        }
        _ => {}
    }
    let node: Node = typed(fields).map_err(bad)?;
    let vector = vector.map(|v| floats(&v)).transpose().map_err(bad)?;
    Ok((order, node, vector))
}

fn edge(e: ReadEdge) -> Result<(Order, Edge), Error> {
    let bad = |message: String| Error::Mapping {
        element: format!("relationship {} -[{}]-> {}", e.from, e.rel_type, e.to),
        message,
    };
    let (mut fields, order, _) = fields(&e.props, EDGE_FIELDS).map_err(bad)?;
    fields.insert("from".into(), Json::String(e.from.clone()));
    fields.insert("to".into(), Json::String(e.to.clone()));
    fields
        .entry("relation")
        .or_insert_with(|| Json::String(e.rel_type.to_ascii_lowercase()));
    let edge: Edge = typed(fields).map_err(bad)?;
    Ok((order, edge))
}

/// Properties back to fields: mapped names renamed, `smg_extra` merged, the bridge's
/// own properties taken out. Returns the fields, the pushed order (unordered ones
/// last) and the embedding.
fn fields(props: &[(String, Value)], table: &[(&str, &str)]) -> Result<Fields, String> {
    let mut fields = Map::new();
    let mut order = (true, 0);
    let mut vector = None;
    for (name, v) in props {
        match name.as_str() {
            MEMORY | HASH | YEAR | KEY => {}
            ORDER => match v {
                Value::Int(i) => order = (false, *i),
                other => return Err(format!("`{ORDER}` is {other:?}, not an integer")),
            },
            EMBEDDING => vector = Some(v.clone()),
            EXTRA => {
                let text = v
                    .as_str()
                    .ok_or_else(|| format!("`{EXTRA}` is not a string"))?;
                let extra: Map<String, Json> = serde_json::from_str(text)
                    .map_err(|e| format!("`{EXTRA}` is not a JSON object: {e}"))?;
                for (k, v) in extra {
                    if fields.insert(k.clone(), v).is_some() {
                        return Err(format!("field `{k}` is both a property and in `{EXTRA}`"));
                    }
                }
            }
            _ => {
                let field = match table.iter().find(|(_, p)| p == name) {
                    Some((f, _)) => *f,
                    None if table.iter().any(|(f, _)| f == name) => {
                        return Err(format!(
                            "property `{name}` is not in the mapping (spec §19.2)"
                        ))
                    }
                    // A property someone else added: kept under its own name.
                    None => name.as_str(),
                };
                let json =
                    value::to_json(v).map_err(|why| format!("property `{name}` is {why}"))?;
                if fields.insert(field.to_string(), json).is_some() {
                    return Err(format!(
                        "field `{field}` is both a property and in `{EXTRA}`"
                    ));
                }
            }
        }
    }
    Ok((fields, order, vector))
}

/// The fields as a node or edge; an error names the field (`importance: invalid type…`).
fn typed<T: serde::de::DeserializeOwned>(fields: Map<String, Json>) -> Result<T, String> {
    serde_path_to_error::deserialize(Json::Object(fields)).map_err(|e| e.to_string())
}

fn floats(v: &Value) -> Result<Vector, String> {
    let list = match v {
        Value::List(items) => items
            .iter()
            .map(|x| match x {
                Value::Float(f) => Ok(*f),
                Value::Int(i) => Ok(*i as f64),
                other => Err(format!("`{EMBEDDING}` holds {other:?}, not a number")),
            })
            .collect::<Result<Vec<f64>, String>>()?,
        other => return Err(format!("`{EMBEDDING}` is {other:?}, not a list of numbers")),
    };
    Vector::new(list).map_err(|e| format!("`{EMBEDDING}`: {e}"))
}

fn parse<T: serde::de::DeserializeOwned>(text: &str, element: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| Error::Mapping {
        element: element.to_string(),
        message: e.to_string(),
    })
}
