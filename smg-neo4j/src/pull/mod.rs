//! Pull: read a memory's tiers back from the database into a document (spec §19.4).

mod merge;

pub use merge::{into_file, Dropped};

use smg_format::model::{Document, Scope, Timestamp};

use crate::bolt::{Connection, Value};
use crate::mapping::{self, tier_label, ReadEdge, ReadNode, MEMORY_LABEL, NODE_LABEL};
use crate::query;
use crate::schema::Dialect;
use crate::Error;

/// What to pull.
#[derive(Debug, Clone)]
pub struct PullOptions {
    /// The memory's name; `None` takes the only memory the database holds.
    pub memory: Option<String>,
    /// The tiers to read.
    pub tiers: Vec<Scope>,
    /// The database, or the server's default.
    pub database: Option<String>,
    /// The creation time of the metadata when the database has no memory node.
    pub now: Timestamp,
    /// The server's Cypher dialect.
    pub dialect: Dialect,
}

/// What a pull read.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PullReport {
    /// The memory's name.
    pub memory: String,
    /// The tiers read.
    pub tiers: Vec<&'static str>,
    /// Nodes read.
    pub nodes: usize,
    /// Relationships read between them.
    pub edges: usize,
}

/// The names of the memories the database holds, sorted.
pub fn memories(conn: &mut Connection, database: Option<&str>) -> Result<Vec<String>, Error> {
    // No parameters: the same text in every dialect.
    let q = format!(
        "MATCH (x:{MEMORY_LABEL}) RETURN x.memory AS m UNION MATCH (n:{NODE_LABEL}) RETURN DISTINCT n.memory AS m"
    );
    let rows = conn.run(&q, vec![], database)?;
    let mut names: Vec<String> = rows
        .records
        .iter()
        .filter_map(|r| r.first()?.as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// Reads the memory and tiers `options` name into a document.
pub fn pull(conn: &mut Connection, options: &PullOptions) -> Result<(Document, PullReport), Error> {
    let db = options.database.as_deref();
    let names = memories(conn, db)?;
    let memory = match (&options.memory, &names[..]) {
        (Some(m), _) if names.contains(m) => m.clone(),
        (Some(m), _) => {
            return Err(Error::NotFound(format!(
                "the database holds no memory `{m}` (it holds: {})",
                list(&names)
            )))
        }
        (None, [only]) => only.clone(),
        (None, []) => return Err(Error::NotFound("the database holds no smg memory".into())),
        (None, _) => {
            return Err(Error::NotFound(format!(
                "the database holds several memories; choose one with --memory: {}",
                list(&names)
            )))
        }
    };
    let params = || vec![("m".to_string(), Value::from(memory.as_str()))];
    let mut nodes = Vec::new();
    for &tier in &options.tiers {
        let q = format!(
            "MATCH (n:{NODE_LABEL}:{} {{memory: $m}}) RETURN labels(n), properties(n)",
            tier_label(tier)
        );
        for row in query::run(conn, options.dialect, &q, params(), db)?.records {
            nodes.push(read_node(row)?);
        }
    }
    let q = format!(
        "MATCH (a:{NODE_LABEL} {{memory: $m}})-[e]->(b:{NODE_LABEL} {{memory: $m}}) \
         RETURN a.id, b.id, type(e), properties(e)"
    );
    let mut edges = Vec::new();
    for row in query::run(conn, options.dialect, &q, params(), db)?.records {
        if let [Value::String(from), Value::String(to), Value::String(rel_type), props] = &row[..] {
            edges.push(ReadEdge {
                from: from.clone(),
                to: to.clone(),
                rel_type: rel_type.clone(),
                props: map(props),
            });
        }
    }
    let q = format!("MATCH (x:{MEMORY_LABEL} {{memory: $m}}) RETURN properties(x)");
    let memory_props = query::run(conn, options.dialect, &q, params(), db)?
        .records
        .first()
        .and_then(|r| r.first())
        .map(map);
    let doc = mapping::read(&memory, memory_props.as_deref(), nodes, edges, &options.now)?;
    let graph = doc.semantic_graph.as_ref();
    let report = PullReport {
        memory,
        tiers: options.tiers.iter().map(|&t| t.name()).collect(),
        nodes: graph.map_or(0, |g| g.nodes().len()),
        edges: graph.map_or(0, |g| g.edges().len()),
    };
    Ok((doc, report))
}

fn read_node(row: Vec<Value>) -> Result<ReadNode, Error> {
    let [Value::List(labels), props] = &row[..] else {
        return Err(Error::Protocol(format!(
            "a node row of unexpected shape: {row:?}"
        )));
    };
    let props = map(props);
    let labels: Vec<String> = labels
        .iter()
        .filter_map(|l| l.as_str().map(str::to_string))
        .collect();
    let element = match props.iter().find(|(k, _)| k == "id").map(|(_, v)| v) {
        Some(Value::String(id)) => format!("`{id}`"),
        _ => format!(
            "without an id (labels {}, title {:?})",
            labels.join(":"),
            props
                .iter()
                .find(|(k, _)| k == "title")
                .and_then(|(_, v)| v.as_str())
                .unwrap_or("")
        ),
    };
    Ok(ReadNode {
        element,
        labels,
        props,
    })
}

fn map(v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Map(entries) => entries.clone(),
        _ => Vec::new(),
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
