//! A parameter-free Cypher script of a memory (spec §19.5): what `push` writes, as text
//! to pipe into `cypher-shell`. Idempotent: it merges on the same keys as `push`, and
//! removes the file's tombstoned nodes.

use std::fmt::Write;

use smg_format::model::{Document, Scope};

use crate::bolt::Value;
use crate::mapping::{self, EdgeRow, NodeRow, MEMORY_LABEL, NODE_LABEL};
use crate::push::write_batches;
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
    match dialect {
        Dialect::Neo4j => {
            for index in schema::indexes(slice.dimensions()) {
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
    let nodes: Vec<&NodeRow> = slice.nodes.iter().collect();
    let edges: Vec<&EdgeRow> = slice.edges.iter().collect();
    for (statement, rows) in write_batches(&nodes, &edges, BATCH) {
        batch(&statement, rows);
    }
    let removal =
        format!("UNWIND $rows AS id MATCH (n:{NODE_LABEL} {{memory: $m, id: id}}) DETACH DELETE n");
    for chunk in slice.tombstoned.chunks(BATCH) {
        batch(
            &removal,
            chunk.iter().map(|id| Value::from(id.as_str())).collect(),
        );
    }
    let _ = writeln!(
        out,
        "MERGE (x:{MEMORY_LABEL} {{memory: {m}}}) SET x = {};",
        literal(&Value::Map(slice.memory.clone()))
    );
    Ok(out)
}
