//! A parameter-free Cypher script of a memory (spec §19.5): what `push` writes, as text
//! to pipe into `cypher-shell`. Idempotent: it merges on the same keys as `push`, and
//! removes the file's tombstoned nodes.

use std::fmt::Write;

use smg_format::model::{Document, Scope};

use crate::bolt::Value;
use crate::mapping::{self, MEMORY_LABEL, NODE_LABEL, TIERS};
use crate::push::{edge_row, edge_statement, node_row, node_statement};
pub use crate::query::{inline, literal};
use crate::schema::{self, Dialect};
use crate::Error;

/// Rows per `UNWIND` statement.
const BATCH: usize = 500;

/// The script for the tiers `tiers` of `doc`, stored as memory `memory`.
pub fn script(
    doc: &Document,
    memory: &str,
    tiers: &[Scope],
    dialect: Dialect,
) -> Result<String, Error> {
    let slice = mapping::slice(doc, memory, tiers)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// smg neo4j export: memory {}, {} nodes, {} relationships. Idempotent.",
        literal(&Value::from(memory)),
        slice.nodes.len(),
        slice.edges.len()
    );
    let dimensions = slice.nodes.iter().find_map(|n| {
        match n.props.iter().find(|(k, _)| k == mapping::EMBEDDING) {
            Some((_, Value::List(v))) => Some(v.len() as u64),
            _ => None,
        }
    });
    match dialect {
        Dialect::Neo4j => {
            for index in schema::indexes(dimensions) {
                if let Some(s) = schema::statement(&index, dialect) {
                    let _ = writeln!(out, "{s};");
                }
            }
        }
        Dialect::FalkorDb => {
            out.push_str("// FalkorDB: create the indexes once with `smg neo4j schema --dialect falkordb`.\n");
        }
    }
    let m = literal(&Value::from(memory));
    let mut batch = |statement: &str, rows: Vec<Value>| {
        let params = [
            ("m".to_string(), Value::from(memory)),
            ("rows".to_string(), Value::List(rows)),
        ];
        let _ = writeln!(out, "{};", inline(statement, &params));
    };
    for tier in TIERS {
        let rows: Vec<Value> = slice
            .nodes
            .iter()
            .filter(|n| n.tier == tier)
            .map(node_row)
            .collect();
        let statement = node_statement(tier);
        rows.chunks(BATCH)
            .for_each(|c| batch(&statement, c.to_vec()));
    }
    let removal =
        format!("UNWIND $rows AS id MATCH (n:{NODE_LABEL} {{memory: $m, id: id}}) DETACH DELETE n");
    for chunk in slice.tombstoned.chunks(BATCH) {
        batch(
            &removal,
            chunk.iter().map(|id| Value::from(id.as_str())).collect(),
        );
    }
    let mut types: Vec<&str> = slice.edges.iter().map(|e| e.rel_type.as_str()).collect();
    types.sort();
    types.dedup();
    for rel_type in types {
        let rows: Vec<Value> = slice
            .edges
            .iter()
            .filter(|e| e.rel_type == rel_type)
            .map(edge_row)
            .collect();
        let statement = edge_statement(rel_type);
        rows.chunks(BATCH)
            .for_each(|c| batch(&statement, c.to_vec()));
    }
    let _ = writeln!(
        out,
        "MERGE (x:{MEMORY_LABEL} {{memory: {m}}}) SET x = {};",
        literal(&Value::Map(slice.memory.clone()))
    );
    Ok(out)
}
