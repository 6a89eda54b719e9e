//! Push: make the database's copy of a memory's tiers equal to the file's (spec §19.3).
//! Only what differs is written: the digests already in the database are read first,
//! so pushing the same file again writes nothing, and a push cut off half-way is
//! finished by running it again. Every batch is its own transaction.

use std::collections::{HashMap, HashSet};

use smg_format::model::{Document, Scope};

use crate::bolt::{Connection, Value};
use crate::mapping::{
    self, tier_label, EdgeRow, NodeRow, Slice, HASH, MEMORY_LABEL, NODE_LABEL, TIERS,
};
use crate::schema::{self, Dialect};
use crate::Error;

/// What to push and where.
#[derive(Debug, Clone)]
pub struct PushOptions {
    /// The memory's name in the database (nodes carry it as `memory`).
    pub memory: String,
    /// The tiers to push; the others are left as they are in the database.
    pub tiers: Vec<Scope>,
    /// The server's Cypher dialect.
    pub dialect: Dialect,
    /// The database, or the server's default.
    pub database: Option<String>,
    /// Rows per `UNWIND` batch.
    pub batch: usize,
}

impl PushOptions {
    /// Every tier of `memory`, Neo4j dialect, batches of 1,000.
    pub fn new(memory: &str) -> Self {
        PushOptions {
            memory: memory.to_string(),
            tiers: TIERS.to_vec(),
            dialect: Dialect::Neo4j,
            database: None,
            batch: 1000,
        }
    }
}

/// The name a memory is stored under when none is given: its metadata id, else the
/// name of its file without the extension.
pub fn default_memory(doc: &Document, file: Option<&std::path::Path>) -> Option<String> {
    doc.metadata.id.clone().or_else(|| {
        let stem = file?.file_stem()?.to_str()?;
        Some(stem.to_string())
    })
}

/// Writes, unchanged rows and removals of one kind of element.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Created or changed.
    pub written: usize,
    /// Already equal in the database.
    pub unchanged: usize,
    /// Removed because the file no longer has them (or tombstoned them).
    pub removed: usize,
}

/// What a push did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PushReport {
    /// The memory's name.
    pub memory: String,
    /// The tiers pushed.
    pub tiers: Vec<&'static str>,
    /// Tiers sealed in the file, left untouched in the database.
    pub sealed: Vec<&'static str>,
    /// Nodes.
    pub nodes: Counts,
    /// Relationships.
    pub edges: Counts,
    /// Schema statements run.
    pub schema: usize,
    /// Write batches sent.
    pub batches: usize,
    /// Connections the server dropped, opened again (each batch then sent again).
    pub reconnects: usize,
}

/// How far a push is, in rows written or removed.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Rows done.
    pub done: usize,
    /// Rows to do.
    pub total: usize,
}

/// Pushes the tiers of `doc` chosen by `options`.
pub fn push(
    conn: &mut Connection,
    doc: &Document,
    options: &PushOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<PushReport, Error> {
    let db = options.database.as_deref();
    let slice = mapping::slice(doc, &options.memory, &options.tiers)?;
    let schema = schema::apply(conn, options.dialect, slice.dimensions(), db)?;
    let chosen: Vec<Scope> = options
        .tiers
        .iter()
        .copied()
        .filter(|t| !slice.sealed.contains(t))
        .collect();
    let mut push = Pusher {
        in_flight: Default::default(),
        reconnects: 0,
        conn,
        dialect: options.dialect,
        db,
        memory: &options.memory,
        batch: options.batch.max(1),
        progress,
        done: 0,
        total: 0,
        batches: 0,
    };
    let existing = push.existing_nodes()?;
    let existing_edges = push.existing_edges()?;
    let plan = Plan::new(&slice, &chosen, &existing, &existing_edges);
    push.total = plan.write_nodes.len()
        + plan.remove_nodes.len()
        + plan.write_edges.len()
        + plan.remove_edges.len()
        + 1;
    // Always MERGE, never CREATE: a batch that a lost connection may or may not have
    // committed can be sent again. (CREATE for rows the database lacked was a third
    // faster on FalkorDB at 20,000 nodes, but at 100,000 FalkorDB 4.16 dropped the
    // connection part-way in each of three runs.)
    for (statement, rows) in write_batches(&plan.write_nodes, &plan.write_edges, options.batch) {
        push.send(&statement, rows)?;
    }
    push.remove_nodes(&plan.remove_nodes)?;
    push.remove_edges(&plan.remove_edges)?;
    push.write_memory(&slice.memory)?;
    push.flush()?;
    Ok(PushReport {
        memory: options.memory.clone(),
        tiers: chosen.iter().map(|&t| t.name()).collect(),
        sealed: slice.sealed.iter().map(|&t| t.name()).collect(),
        nodes: Counts {
            written: plan.write_nodes.len(),
            unchanged: slice.nodes.len() - plan.write_nodes.len(),
            removed: plan.remove_nodes.len(),
        },
        edges: Counts {
            written: plan.write_edges.len(),
            unchanged: slice.edges.len() - plan.write_edges.len(),
            removed: plan.remove_edges.len(),
        },
        schema: schema.len(),
        batches: push.batches,
        reconnects: push.reconnects,
    })
}

/// What a push writes and removes: the rows whose digest differs from the database's,
/// and what the database holds in the chosen tiers that the file no longer has.
struct Plan<'a> {
    write_nodes: Vec<&'a NodeRow>,
    remove_nodes: Vec<&'a str>,
    write_edges: Vec<&'a EdgeRow>,
    remove_edges: Vec<&'a (String, String, String)>,
}

impl<'a> Plan<'a> {
    fn new(
        slice: &'a Slice,
        chosen: &[Scope],
        existing: &'a HashMap<String, Stored>,
        existing_edges: &'a ExistingEdges,
    ) -> Self {
        let stored_node = |id: &str| existing.get(id).and_then(|(h, _)| h.as_deref());
        let write_nodes = slice
            .nodes
            .iter()
            .filter(|n| stored_node(&n.id) != Some(&n.hash));
        let stored_edge = |key: &str| existing_edges.hashes.get(key).and_then(|h| h.as_deref());
        let write_edges = slice
            .edges
            .iter()
            .filter(|e| stored_edge(&e.key) != Some(&e.hash));
        let in_file: HashSet<&str> = slice.nodes.iter().map(|n| n.id.as_str()).collect();
        let chosen_tier = |t: &Option<Scope>| t.is_some_and(|t| chosen.contains(&t));
        let remove_nodes: Vec<&str> = existing
            .iter()
            .filter(|(id, (_, tier))| chosen_tier(tier) && !in_file.contains(id.as_str()))
            .map(|(id, _)| id.as_str())
            .collect();
        let in_chosen = |id: &str| {
            in_file.contains(id) || existing.get(id).is_some_and(|(_, t)| chosen_tier(t))
        };
        let keys: HashSet<&str> = slice.edges.iter().map(|e| e.key.as_str()).collect();
        let removed: HashSet<&str> = remove_nodes.iter().copied().collect();
        // Relationships of removed nodes go with them (DETACH DELETE).
        let remove_edges = existing_edges.ends.iter().filter(|(key, from, to)| {
            !keys.contains(key.as_str())
                && [from, to]
                    .iter()
                    .all(|end| in_chosen(end) && !removed.contains(end.as_str()))
        });
        Plan {
            write_nodes: write_nodes.collect(),
            remove_nodes,
            write_edges: write_edges.collect(),
            remove_edges: remove_edges.collect(),
        }
    }
}

/// A node's digest and tier as the database holds them.
type Stored = (Option<String>, Option<Scope>);

struct ExistingEdges {
    hashes: HashMap<String, Option<String>>,
    ends: Vec<(String, String, String)>,
}

/// How many dropped connections a push opens again.
const RETRIES: usize = 3;

/// A batch sent and not yet answered.
struct Batch {
    text: String,
    params: Vec<(String, Value)>,
    rows: usize,
}

struct Pusher<'a> {
    in_flight: std::collections::VecDeque<Batch>,
    reconnects: usize,
    conn: &'a mut Connection,
    dialect: Dialect,
    db: Option<&'a str>,
    memory: &'a str,
    batch: usize,
    progress: &'a mut dyn FnMut(Progress),
    done: usize,
    total: usize,
    batches: usize,
}

impl Pusher<'_> {
    fn params(&self, rows: Vec<Value>) -> Vec<(String, Value)> {
        vec![
            ("m".into(), Value::from(self.memory)),
            ("rows".into(), Value::List(rows)),
        ]
    }

    /// Sends one batch, then waits for the answer to the one before it: the server
    /// works on a batch while the next is prepared and sent (Bolt answers in order).
    fn send(&mut self, query: &str, rows: Vec<Value>) -> Result<(), Error> {
        let n = rows.len();
        let params = self.params(rows);
        let (text, params) = crate::query::prepare(self.dialect, query, params);
        let batch = Batch {
            text,
            params,
            rows: n,
        };
        if let Err(e) = self.conn.send(&batch.text, batch.params.clone(), self.db) {
            self.in_flight.push_back(batch);
            return self.recover(e);
        }
        self.in_flight.push_back(batch);
        if self.in_flight.len() > 1 {
            self.complete_one()?;
        }
        Ok(())
    }

    /// Waits for every batch sent.
    fn flush(&mut self) -> Result<(), Error> {
        while !self.in_flight.is_empty() {
            self.complete_one()?;
        }
        Ok(())
    }

    fn complete_one(&mut self) -> Result<(), Error> {
        loop {
            let Some(front) = self.in_flight.front() else {
                return Ok(());
            };
            match self.conn.receive_rows(&front.text) {
                Ok(_) => break,
                Err(e) => self.recover(e)?,
            }
        }
        if let Some(done) = self.in_flight.pop_front() {
            self.batches += 1;
            self.done += done.rows;
            (self.progress)(Progress {
                done: self.done,
                total: self.total,
            });
        }
        Ok(())
    }

    /// A connection the server dropped is opened again and every batch not yet
    /// answered sent again (they are MERGEs: sent twice, written once), up to
    /// [`RETRIES`] times in a push — a reopening the network fails counts as one of
    /// them; any other error ends the push.
    fn recover(&mut self, e: Error) -> Result<(), Error> {
        if !matches!(e, Error::Protocol(_)) {
            return Err(e);
        }
        let mut last = e;
        while self.reconnects < RETRIES {
            self.reconnects += 1;
            match self.conn.reopen() {
                Ok(()) => {
                    for b in &self.in_flight {
                        self.conn.send(&b.text, b.params.clone(), self.db)?;
                    }
                    return Ok(());
                }
                Err(e) if e.is_io() => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    fn existing_nodes(&mut self) -> Result<HashMap<String, Stored>, Error> {
        let q = format!("MATCH (n:{NODE_LABEL} {{memory: $m}}) RETURN n.id, n.{HASH}, labels(n)");
        let rows = crate::query::run(self.conn, self.dialect, &q, self.params(vec![]), self.db)?;
        let mut out = HashMap::new();
        for row in rows.records {
            if let [Value::String(id), hash, Value::List(labels)] = &row[..] {
                let tier = labels.iter().find_map(|l| mapping::label_tier(l.as_str()?));
                out.insert(id.clone(), (hash.as_str().map(str::to_string), tier));
            }
        }
        Ok(out)
    }

    fn existing_edges(&mut self) -> Result<ExistingEdges, Error> {
        let q = format!(
            "MATCH (a:{NODE_LABEL} {{memory: $m}})-[e]->(b:{NODE_LABEL} {{memory: $m}}) \
             WHERE e.smg_key IS NOT NULL RETURN e.smg_key, e.{HASH}, a.id, b.id"
        );
        let rows = crate::query::run(self.conn, self.dialect, &q, self.params(vec![]), self.db)?;
        let mut out = ExistingEdges {
            hashes: HashMap::new(),
            ends: Vec::new(),
        };
        for row in rows.records {
            if let [Value::String(key), hash, Value::String(a), Value::String(b)] = &row[..] {
                out.hashes
                    .insert(key.clone(), hash.as_str().map(str::to_string));
                out.ends.push((key.clone(), a.clone(), b.clone()));
            }
        }
        Ok(out)
    }

    fn remove_nodes(&mut self, ids: &[&str]) -> Result<(), Error> {
        let q = format!(
            "UNWIND $rows AS id MATCH (n:{NODE_LABEL} {{memory: $m, id: id}}) DETACH DELETE n"
        );
        for chunk in ids.chunks(self.batch) {
            self.send(&q, chunk.iter().map(|&id| Value::from(id)).collect())?;
        }
        Ok(())
    }

    fn remove_edges(&mut self, edges: &[&(String, String, String)]) -> Result<(), Error> {
        let q = format!(
            "UNWIND $rows AS r MATCH (a:{NODE_LABEL} {{memory: $m, id: r.from}})-[e]->(b:{NODE_LABEL} {{memory: $m, id: r.to}}) \
             WHERE e.smg_key = r.key DELETE e"
        );
        for chunk in edges.chunks(self.batch) {
            let rows = chunk
                .iter()
                .map(|(key, from, to)| {
                    Value::Map(vec![
                        ("key".into(), Value::from(key.as_str())),
                        ("from".into(), Value::from(from.as_str())),
                        ("to".into(), Value::from(to.as_str())),
                    ])
                })
                .collect();
            self.send(&q, rows)?;
        }
        Ok(())
    }

    fn write_memory(&mut self, props: &[(String, Value)]) -> Result<(), Error> {
        let q = format!("UNWIND $rows AS r MERGE (x:{MEMORY_LABEL} {{memory: $m}}) SET x = r");
        self.send(&q, vec![Value::Map(props.to_vec())])
    }
}

/// The statement that writes a batch `$rows` of nodes of `tier` (made by
/// [`node_row`]) into memory `$m`: `MERGE` on `(memory, id)`, every property set, the
/// tier label made the only one.
pub fn node_statement(tier: Scope) -> String {
    let all: Vec<&str> = TIERS.iter().map(|&t| tier_label(t)).collect();
    format!(
        "UNWIND $rows AS r MERGE (n:{NODE_LABEL} {{memory: $m, id: r.id}}) SET n = r.props \
         REMOVE n:{} SET n:{}",
        all.join(":"),
        tier_label(tier)
    )
}

/// The statement that writes a batch `$rows` of relationships of type `rel_type`
/// (made by [`edge_row`]) between nodes of memory `$m`: `MERGE` on `smg_key`.
pub fn edge_statement(rel_type: &str) -> String {
    format!(
        "UNWIND $rows AS r MATCH (a:{NODE_LABEL} {{memory: $m, id: r.from}}) \
         MATCH (b:{NODE_LABEL} {{memory: $m, id: r.to}}) \
         MERGE (a)-[e:`{rel_type}` {{smg_key: r.key}}]->(b) SET e = r.props"
    )
}

/// The batches that write `nodes` and then `edges`, in the order a push sends them
/// (nodes tier by tier, relationships type by type, at most `size` rows each): each a
/// statement and its `$rows`, with `$m` still to bind.
pub fn write_batches<'a>(
    nodes: &'a [&'a NodeRow],
    edges: &'a [&'a EdgeRow],
    size: usize,
) -> impl Iterator<Item = (String, Vec<Value>)> + 'a {
    let size = size.max(1);
    let node_batches = TIERS.into_iter().flat_map(move |tier| {
        let rows: Vec<&NodeRow> = nodes.iter().copied().filter(|n| n.tier == tier).collect();
        let statement = node_statement(tier);
        let chunks: Vec<Vec<&NodeRow>> = rows.chunks(size).map(<[_]>::to_vec).collect();
        chunks
            .into_iter()
            .map(move |c| (statement.clone(), c.into_iter().map(node_row).collect()))
    });
    let mut types: Vec<&str> = edges.iter().map(|e| e.rel_type.as_str()).collect();
    types.sort_unstable();
    types.dedup();
    let edge_batches = types.into_iter().flat_map(move |t| {
        let rows: Vec<&EdgeRow> = edges.iter().copied().filter(|e| e.rel_type == t).collect();
        let statement = edge_statement(t);
        let chunks: Vec<Vec<&EdgeRow>> = rows.chunks(size).map(<[_]>::to_vec).collect();
        chunks
            .into_iter()
            .map(move |c| (statement.clone(), c.into_iter().map(edge_row).collect()))
    });
    node_batches.chain(edge_batches)
}

/// A node's batch row: its id, and its properties with the digest.
pub fn node_row(n: &NodeRow) -> Value {
    row(&[("id", Value::from(n.id.as_str()))], &n.props, &n.hash)
}

/// A relationship's batch row: its ends and key, and its properties with the digest.
pub fn edge_row(e: &EdgeRow) -> Value {
    let ends = [
        ("from", Value::from(e.from.as_str())),
        ("to", Value::from(e.to.as_str())),
        ("key", Value::from(e.key.as_str())),
    ];
    row(&ends, &e.props, &e.hash)
}

fn row(keys: &[(&str, Value)], props: &[(String, Value)], hash: &str) -> Value {
    let mut props = props.to_vec();
    props.push((HASH.to_string(), Value::from(hash)));
    let mut entries: Vec<(String, Value)> = keys
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    entries.push(("props".into(), Value::Map(props)));
    Value::Map(entries)
}
