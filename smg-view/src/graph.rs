//! The graph as the page draws it: every graph's nodes, the most important first,
//! with their freshness, the edges between them, and sealed sections by what may be
//! said of them.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};
use smg_format::model::{Graph, Node, ShortText, Timestamp};
use smg_format::Document;

use crate::archive::Archive;

/// `flags` bit: the node is tombstoned (soft-deleted, kept until purged).
const TOMBSTONE: u8 = 1;
/// `flags` bit: the node is sealed; only its id and tier are known.
const SEALED: u8 = 2;

/// A node as drawn: `[id, type, label, tier, importance, freshness 0–100, graph, flags]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ViewNode(
    pub(crate) String,
    pub(crate) String,
    pub(crate) String,
    pub(crate) &'static str,
    pub(crate) f64,
    pub(crate) u8,
    pub(crate) String,
    pub(crate) u8,
);

/// A sealed section as the page may show it: never its content.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SealedView {
    pub(crate) id: String,
    pub(crate) kind: String,
    pub(crate) tier: Option<&'static str>,
    pub(crate) collaborator: Option<String>,
    pub(crate) size: u64,
    pub(crate) nodes: usize,
    /// The linked file that holds it; left out for the file asked.
    #[serde(skip_serializing_if = "is_first")]
    pub(crate) file: usize,
}

/// Whether a thing is of the file asked (serialised only when not).
pub(crate) fn is_first(file: &usize) -> bool {
    *file == 0
}

/// The graph of the page.
#[derive(Debug, Default)]
pub(crate) struct ViewGraph {
    /// Most important first; ties by id, then file.
    pub(crate) nodes: Vec<ViewNode>,
    /// The file each node is of (0: the file asked).
    pub(crate) files: Vec<usize>,
    /// Each node as in the file (`node`) and its provenance turns as `[conversation,
    /// position]` in the page's archive (`turns`); `null` for a sealed node.
    pub(crate) details: Vec<Value>,
    /// Each node's searchable text.
    pub(crate) texts: Vec<String>,
    /// `[from, to, relation]` by node and relation position.
    pub(crate) edges: Vec<(usize, usize, usize)>,
    pub(crate) relations: Vec<String>,
    /// Edges with an end in no graph of their file.
    pub(crate) dangling: usize,
    pub(crate) sealed: Vec<SealedView>,
    /// Dated decisions: `(node position, time)`.
    pub(crate) decisions: Vec<(usize, String)>,
}

struct Entry<'d> {
    node: ViewNode,
    file: usize,
    source: Option<&'d Node>,
}

/// A file's graphs by name.
fn graphs(doc: &Document) -> Vec<(String, &Graph)> {
    let mut graphs: Vec<(String, &Graph)> = Vec::new();
    graphs.extend(
        doc.semantic_graph
            .as_ref()
            .map(|g| ("semantic".to_owned(), g)),
    );
    graphs.extend(doc.shared_graph.as_ref().map(|g| ("shared".to_owned(), g)));
    for (who, private) in doc.private_contexts.iter().flatten() {
        graphs.extend(
            private
                .graph
                .as_ref()
                .map(|g| (format!("private:{who}"), g)),
        );
    }
    graphs
}

/// Build the graph of every file of `docs` (edges join nodes of one file only),
/// freshness measured at `at`.
pub(crate) fn build(
    docs: &[&Document],
    at: &Timestamp,
    archive: &Archive,
) -> smg_engine::Result<ViewGraph> {
    let graphs: Vec<Vec<(String, &Graph)>> = docs.iter().map(|d| graphs(d)).collect();
    let mut entries = Vec::new();
    let mut sealed = Vec::new();
    for (file, (doc, graphs)) in docs.iter().zip(&graphs).enumerate() {
        let first = entries.len();
        for (name, g) in graphs {
            let fresh = freshness(g, at);
            for (n, f) in g.nodes().iter().zip(fresh) {
                entries.push(Entry {
                    node: view_node(n, f, name),
                    file,
                    source: Some(n),
                });
            }
        }
        let known: HashSet<String> = entries[first..].iter().map(|e| e.node.0.clone()).collect();
        seal(doc, file, &known, &mut entries, &mut sealed);
    }
    entries.sort_by(|a, b| {
        b.node
            .4
            .total_cmp(&a.node.4)
            .then_with(|| a.node.0.cmp(&b.node.0))
            .then(a.file.cmp(&b.file))
    });
    let mut out = ViewGraph {
        sealed,
        ..ViewGraph::default()
    };
    let mut at_index: HashMap<(usize, &str), usize> = HashMap::new();
    for (k, e) in entries.iter().enumerate() {
        at_index.entry((e.file, e.node.0.as_str())).or_insert(k);
        out.details.push(
            e.source
                .map_or(Value::Null, |n| details(n, e.file, archive)),
        );
        if let Some(t) = e.source.filter(|n| n.kind == "decision").and_then(decided) {
            out.decisions.push((k, t.to_owned()));
        }
        out.texts.push(e.source.map_or_else(String::new, text));
        out.files.push(e.file);
    }
    let mut relations: HashMap<&str, usize> = HashMap::new();
    for (file, graphs) in graphs.iter().enumerate() {
        for e in graphs.iter().flat_map(|(_, g)| g.edges()) {
            let ends = (
                at_index.get(&(file, e.from.as_str())),
                at_index.get(&(file, e.to.as_str())),
            );
            match ends {
                (Some(&from), Some(&to)) => {
                    let next = relations.len();
                    let r = *relations.entry(e.relation.as_str()).or_insert_with(|| {
                        out.relations.push(e.relation.to_string());
                        next
                    });
                    out.edges.push((from, to, r));
                }
                _ => out.dangling += 1,
            }
        }
    }
    out.nodes = entries.into_iter().map(|e| e.node).collect();
    Ok(out)
}

/// The sealed sections of `doc`, the `file`th: each as the page may show it, and a
/// placeholder node for each of its node ids that no open graph of the file holds.
fn seal<'d>(
    doc: &Document,
    file: usize,
    known: &HashSet<String>,
    entries: &mut Vec<Entry<'d>>,
    sealed: &mut Vec<SealedView>,
) {
    for s in doc.sealed_sections.iter().flatten() {
        let tier = s.tier.map(|t| t.name());
        let ids = s.node_ids.as_deref().unwrap_or_default();
        for id in ids.iter().filter(|id| !known.contains(*id)) {
            let label = format!("sealed ({})", tier.unwrap_or(s.kind.name()));
            let node = ViewNode(
                id.clone(),
                "sealed".into(),
                label,
                tier.unwrap_or("personal"),
                0.0,
                0,
                "sealed".into(),
                SEALED,
            );
            entries.push(Entry {
                node,
                file,
                source: None,
            });
        }
        sealed.push(SealedView {
            id: s.id.to_string(),
            kind: s.kind.name().to_string(),
            tier,
            collaborator: s.collaborator.clone(),
            size: s.size,
            nodes: ids.len(),
            file,
        });
    }
}

/// Each node's freshness, 0–100: the curation score's recency (spec §18.3) over 3.
fn freshness(g: &Graph, at: &Timestamp) -> Vec<u8> {
    smg_engine::curate::scores(g, at)
        .iter()
        .map(|s| (s.recency / 3.0 * 100.0).round().clamp(0.0, 100.0) as u8)
        .collect()
}

fn view_node(n: &Node, fresh: u8, graph: &str) -> ViewNode {
    let label = [&n.label, &n.content, &n.description]
        .into_iter()
        .flatten()
        .find(|t| !t.trim().is_empty())
        .map_or_else(|| n.id.to_string(), |t| smg_engine::search::one_line(t, 80));
    let importance = (n.importance.map_or(0.0, f64::from) * 1000.0).round() / 1000.0;
    let flags = if n.tombstone == Some(true) {
        TOMBSTONE
    } else {
        0
    };
    ViewNode(
        n.id.to_string(),
        n.kind.to_string(),
        label,
        n.scope.unwrap_or(smg_format::model::Scope::Personal).name(),
        importance,
        fresh,
        graph.to_owned(),
        flags,
    )
}

/// The node as in its file (the `file`th), and where its provenance turns are in
/// the page.
fn details(n: &Node, file: usize, archive: &Archive) -> Value {
    let turns: Vec<Value> = n
        .provenance
        .iter()
        .flatten()
        .flat_map(|p| p.turns.iter().flatten())
        .filter_map(|t| archive.locate(file, (*t).get()))
        .map(|(c, k)| json!([c, k]))
        .collect();
    json!({"node": n, "turns": turns})
}

/// When a decision was made: its own time, else when it was made, else when it was said.
fn decided(n: &Node) -> Option<&str> {
    let said = n
        .provenance
        .iter()
        .flatten()
        .find_map(|p| p.timestamp.as_deref());
    n.timestamp.as_deref().or(n.created.as_deref()).or(said)
}

/// What a search over the node looks at.
fn text(n: &Node) -> String {
    let parts = [
        &n.label,
        &n.content,
        &n.description,
        &n.rationale,
        &n.outcome,
    ];
    let mut out: Vec<&str> = parts.into_iter().flatten().map(String::as_str).collect();
    out.extend(n.keywords.iter().flatten().map(ShortText::as_str));
    out.push(&n.id);
    out.join(" ")
}
