//! The MCP memory server's JSON Lines from a memory: the knowledge graph of
//! [`crate::mcp::View`], one line per entity and per relation.
//!
//! Nodes an MCP import made come back exactly (name, type, observations in order);
//! entities made only because a relation named them get no line, as in the file they
//! came from. Other knowledge becomes entities too: an `entity` node with its tag as
//! the type, a memory, decision, concept, problem or solution with its type, each with
//! its text as observations. Segments (their turns stay in the archive), artifacts (in
//! the vault), tombstoned and restricted nodes and the edges that touch them are left
//! out, and said.

use serde_json::Value;
use smg_format::Document;

use super::Export;
use crate::mcp::View;

/// One JSON line with the keys in the server's order.
fn line(pairs: &[(&str, Value)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{}", Value::from(*k), v))
        .collect();
    format!("{{{}}}\n", body.join(","))
}

/// The memory's semantic graph as the MCP memory server's `memory.jsonl`.
pub fn mcp_memory(doc: &Document) -> Export {
    let view = View::new(doc);
    let mut out = Export {
        left_out: view.left_out().to_vec(),
        ..Export::default()
    };
    let graph = view.graph();
    for e in &graph.entities {
        out.text.push_str(&line(&[
            ("type", Value::from("entity")),
            ("name", Value::from(e.name.as_str())),
            ("entityType", Value::from(e.entity_type.as_str())),
            ("observations", Value::from(e.observations.clone())),
        ]));
    }
    for r in &graph.relations {
        out.text.push_str(&line(&[
            ("type", Value::from("relation")),
            ("from", Value::from(r.from.as_str())),
            ("to", Value::from(r.to.as_str())),
            ("relationType", Value::from(r.relation_type.as_str())),
        ]));
    }
    out.entities = graph.entities.len();
    out.relations = graph.relations.len();
    out
}
