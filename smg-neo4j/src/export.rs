//! A parameter-free Cypher script of a memory (spec §19.5): what `push` writes, as text
//! to pipe into `cypher-shell`. Idempotent: it merges on the same keys as `push`, and
//! removes the file's tombstoned nodes.

use std::fmt::Write;

use smg_format::model::{Document, Scope};

use crate::bolt::Value;
use crate::mapping::{self, tier_label, HASH, MEMORY_LABEL, NODE_LABEL, TIERS};
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
    let all_tiers: Vec<&str> = TIERS.iter().map(|&t| tier_label(t)).collect();
    for &tier in TIERS.iter() {
        let rows: Vec<_> = slice.nodes.iter().filter(|n| n.tier == tier).collect();
        for chunk in rows.chunks(BATCH) {
            let items: Vec<String> = chunk
                .iter()
                .map(|n| row(&[("id", Value::from(n.id.as_str()))], &n.props, &n.hash))
                .collect();
            let _ = writeln!(
                out,
                "UNWIND [{}] AS r MERGE (n:{NODE_LABEL} {{memory: {m}, id: r.id}}) SET n = r.props REMOVE n:{} SET n:{};",
                items.join(", "),
                all_tiers.join(":"),
                tier_label(tier)
            );
        }
    }
    for chunk in slice.tombstoned.chunks(BATCH) {
        let ids: Vec<String> = chunk
            .iter()
            .map(|id| literal(&Value::from(id.as_str())))
            .collect();
        let _ = writeln!(
            out,
            "UNWIND [{}] AS id MATCH (n:{NODE_LABEL} {{memory: {m}, id: id}}) DETACH DELETE n;",
            ids.join(", ")
        );
    }
    let mut types: Vec<&str> = slice.edges.iter().map(|e| e.rel_type.as_str()).collect();
    types.sort();
    types.dedup();
    for rel_type in types {
        let rows: Vec<_> = slice
            .edges
            .iter()
            .filter(|e| e.rel_type == rel_type)
            .collect();
        for chunk in rows.chunks(BATCH) {
            let items: Vec<String> = chunk
                .iter()
                .map(|e| {
                    let keys = [
                        ("from", Value::from(e.from.as_str())),
                        ("to", Value::from(e.to.as_str())),
                        ("key", Value::from(e.key.as_str())),
                    ];
                    row(&keys, &e.props, &e.hash)
                })
                .collect();
            let _ = writeln!(
                out,
                "UNWIND [{}] AS r MATCH (a:{NODE_LABEL} {{memory: {m}, id: r.from}}) MATCH (b:{NODE_LABEL} {{memory: {m}, id: r.to}}) \
                 MERGE (a)-[e:`{rel_type}` {{smg_key: r.key}}]->(b) SET e = r.props;",
                items.join(", ")
            );
        }
    }
    let _ = writeln!(
        out,
        "MERGE (x:{MEMORY_LABEL} {{memory: {m}}}) SET x = {};",
        literal(&Value::Map(slice.memory.clone()))
    );
    Ok(out)
}

fn row(keys: &[(&str, Value)], props: &[(String, Value)], hash: &str) -> String {
    let mut props = props.to_vec();
    props.push((HASH.to_string(), Value::from(hash)));
    let mut entries: Vec<(String, Value)> = keys
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    entries.push(("props".into(), Value::Map(props)));
    literal(&Value::Map(entries))
}

/// A Cypher literal for a value: strings single-quoted with every character that
/// needs it escaped, map keys back-quoted, floats with a decimal point or exponent.
///
/// ```
/// use smg_neo4j::bolt::Value;
/// use smg_neo4j::export::literal;
/// assert_eq!(literal(&Value::from("it's a \\ \n")), r"'it\'s a \\ \n'");
/// assert_eq!(literal(&Value::Float(1.0)), "1.0");
/// ```
pub fn literal(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        // The most negative integer has no literal of its own in Cypher.
        Value::Int(i64::MIN) => "(-9223372036854775807 - 1)".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::String(s) => string(s),
        Value::Bytes(b) => literal(&Value::List(
            b.iter().map(|&x| Value::Int(x as i64)).collect(),
        )),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(entries) => {
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("`{}`: {}", k.replace('`', "``"), literal(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Struct(..) => "null".into(),
    }
}

fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
