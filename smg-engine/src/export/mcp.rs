//! The MCP memory server's JSON Lines from a memory.
//!
//! Nodes an MCP import made come back exactly (name, type, observations in order);
//! entities made only because a relation named them get no line, as in the file they
//! came from. Other knowledge becomes entities too: an `entity` node with its tag as
//! the type, a memory, decision, concept, problem or solution with its type, each with
//! its text as observations. Segments (their turns stay in the archive), artifacts (in
//! the vault), tombstoned nodes and the edges that touch them are left out, and said.

use serde_json::Value;
use smg_format::model::{Node, Scope};
use smg_format::Document;

use super::Export;
use crate::fast::{FastMap, FastSet};
use crate::graph::node_texts;
use crate::ingest::mcp_of;

/// One JSON line with the keys in the server's order.
fn line(pairs: &[(&str, Value)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", Value::from(*k), v))
        .collect();
    format!("{{{}}}\n", body.join(","))
}

/// Why a node gets no entity line, if it does not.
fn left_out(n: &Node) -> Option<&'static str> {
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

/// The entity type and observations of a node no MCP import made.
fn as_entity(n: &Node) -> (String, Vec<String>) {
    let kind = match n.kind.as_str() {
        "entity" => n.tags.as_ref().and_then(|t| t.first()).cloned(),
        "memory" => n.memory_type.clone(),
        _ => None,
    };
    let label = n.label.as_deref();
    let observations = node_texts(n)
        .filter(|t| Some(*t) != label)
        .map(str::to_string)
        .collect();
    (kind.unwrap_or_else(|| n.kind.clone()), observations)
}

/// The memory's semantic graph as the MCP memory server's `memory.jsonl`.
pub fn mcp_memory(doc: &Document) -> Export {
    let mut out = Export::default();
    let Some(g) = doc.semantic_graph.as_ref() else {
        return out;
    };
    let mut names: FastMap<&str, String> = FastMap::default();
    let mut used: FastSet<String> = FastSet::default();
    for n in g.nodes() {
        if let Some(why) = left_out(n) {
            out.left_out.push((n.id.clone(), why.to_string()));
            continue;
        }
        let mcp = mcp_of(n);
        let name = n.label.clone().unwrap_or_else(|| n.id.clone());
        // Names are the server's keys: a second node of the same label takes its id.
        let name = if used.insert(name.clone()) {
            name
        } else {
            used.insert(n.id.clone());
            n.id.clone()
        };
        names.insert(n.id.as_str(), name.clone());
        if mcp.and_then(|m| m.get("implicit")).and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let (kind, observations) = match mcp {
            Some(m) => (
                m.get("entityType")
                    .cloned()
                    .unwrap_or(Value::from("unknown")),
                m.get("observations")
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new())),
            ),
            None => {
                let (k, o) = as_entity(n);
                (Value::from(k), Value::from(o))
            }
        };
        out.text.push_str(&line(&[
            ("type", Value::from("entity")),
            ("name", Value::from(name)),
            ("entityType", kind),
            ("observations", observations),
        ]));
        out.entities += 1;
    }
    for e in g.edges() {
        let (Some(from), Some(to)) = (names.get(e.from.as_str()), names.get(e.to.as_str())) else {
            let what = format!("{} -[{}]-> {}", e.from, e.relation, e.to);
            out.left_out
                .push((what, "an edge to a node left out".into()));
            continue;
        };
        out.text.push_str(&line(&[
            ("type", Value::from("relation")),
            ("from", Value::from(from.as_str())),
            ("to", Value::from(to.as_str())),
            ("relationType", Value::from(e.relation.as_str())),
        ]));
        out.relations += 1;
    }
    out
}
