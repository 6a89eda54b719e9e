//! Actions applied to a graph with the snapshots that undo them (spec §18.8).
//!
//! Positions are those of a sequence: every entry's indices are where its nodes and
//! edges stood just before it, had the entries before it been applied one by one.
//! Undoing entries last first therefore puts every node and edge back where it was,
//! and the graph's canonical bytes are the same as before.

use serde_json::{Map, Value};
use smg_format::model::{Action, AuditEntry, Edge, EdgeAt, FieldsAt, Node, NodeAt, Timestamp};

use crate::fast::{FastMap, FastSet};

/// Applies actions to a graph in sequence, removing nodes and edges at the end in one
/// pass each.
pub(crate) struct Applier<'g> {
    nodes: &'g mut Vec<Node>,
    edges: Vec<Edge>,
    node_gone: Vec<bool>,
    nodes_removed: Vec<usize>,
    edge_gone: Vec<bool>,
    edges_removed: Vec<usize>,
    edges_of: FastMap<String, Vec<usize>>,
    with_related: Vec<usize>,
    pub(crate) removed_ids: Vec<String>,
}

/// Count of sorted `removed` below `v`: how far `v` moved up.
fn below(removed: &[usize], v: usize) -> usize {
    removed.partition_point(|&r| r < v)
}

fn insert_sorted(removed: &mut Vec<usize>, v: usize) {
    let at = below(removed, v);
    removed.insert(at, v);
}

/// What one action changes, before it is written to the audit log: every node it
/// touched as it was (with its index in the list), the edges it added and removed.
#[derive(Default)]
pub(crate) struct Change {
    before: Vec<(usize, NodeAt)>,
    pub(crate) edges_added: Vec<Edge>,
    pub(crate) edges_removed: Vec<EdgeAt>,
}

/// A change as the audit log keeps it: removed nodes whole, changed ones as the
/// earlier values of the fields that changed.
pub(crate) struct Recorded {
    pub(crate) before: Option<Vec<NodeAt>>,
    pub(crate) changed: Option<Vec<FieldsAt>>,
    pub(crate) edges_added: Option<Vec<Edge>>,
    pub(crate) edges_removed: Option<Vec<EdgeAt>>,
}

impl Recorded {
    /// The audit entry of `action` on `node` at `at`; the id and cycle are given when
    /// the entry is logged.
    pub(crate) fn entry(
        self,
        action: Action,
        at: &Timestamp,
        node: String,
        reason: String,
        score: Option<f64>,
        into: Option<String>,
    ) -> AuditEntry {
        AuditEntry {
            action,
            at: at.clone(),
            before: self.before,
            changed: self.changed,
            cycle: None,
            edges_added: self.edges_added,
            edges_removed: self.edges_removed,
            id: String::new(),
            into,
            node,
            reason,
            score,
            extra: Default::default(),
        }
    }
}

/// The earlier values of the fields curation changes that differ between `was` and
/// `now` (`null` for absent). Typed comparisons: a cycle records up to one per node.
fn changed_fields(was: &Node, now: &Node) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |key: &str, differs: bool, value: Result<Value, serde_json::Error>| {
        if differs {
            m.insert(key.to_string(), value.unwrap_or(Value::Null));
        }
    };
    macro_rules! field {
        ($key:literal, $f:ident) => {
            put($key, was.$f != now.$f, serde_json::to_value(&was.$f))
        };
    }
    field!("accessCount", access_count);
    field!("confidence", confidence);
    field!("deletedAt", deleted_at);
    field!("lastAccessed", last_accessed);
    field!("provenance", provenance);
    field!("recentAccesses", recent_accesses);
    field!("relatedNodes", related_nodes);
    field!("status", status);
    field!("tier", tier);
    field!("tombstone", tombstone);
    field!("updated", updated);
    m
}

/// A node as a JSON object.
fn fields(node: &Node) -> Map<String, Value> {
    match serde_json::to_value(node) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

impl<'g> Applier<'g> {
    pub(crate) fn new(nodes: &'g mut Vec<Node>, edges: Vec<Edge>) -> Self {
        let mut edges_of: FastMap<String, Vec<usize>> = FastMap::default();
        for (i, e) in edges.iter().enumerate() {
            edges_of.entry(e.from.to_string()).or_default().push(i);
            if e.to != e.from {
                edges_of.entry(e.to.to_string()).or_default().push(i);
            }
        }
        let with_related = (0..nodes.len())
            .filter(|&k| nodes[k].related_nodes.is_some())
            .collect();
        Applier {
            with_related,
            node_gone: vec![false; nodes.len()],
            nodes,
            edge_gone: vec![false; edges.len()],
            edges,
            nodes_removed: Vec::new(),
            edges_removed: Vec::new(),
            edges_of,
            removed_ids: Vec::new(),
        }
    }

    pub(crate) fn node(&self, i: usize) -> &Node {
        &self.nodes[i]
    }

    /// Note that node `i` has `relatedNodes` now.
    pub(crate) fn names_others(&mut self, i: usize) {
        if !self.with_related.contains(&i) {
            self.with_related.push(i);
        }
    }

    /// The nodes still in the graph whose `relatedNodes` name `id`.
    pub(crate) fn naming(&self, id: &str) -> Vec<usize> {
        self.with_related
            .iter()
            .copied()
            .filter(|&k| !self.node_gone[k])
            .filter(|&k| {
                self.nodes[k]
                    .related_nodes
                    .iter()
                    .flatten()
                    .any(|r| r == id)
            })
            .collect()
    }

    fn position(&self, i: usize) -> u64 {
        (i - below(&self.nodes_removed, i)) as u64
    }

    /// Snapshot node `i` into `change` (once) and give it to be changed.
    pub(crate) fn edit(&mut self, i: usize, change: &mut Change) -> &mut Node {
        if !change.before.iter().any(|b| b.0 == i) {
            let at = NodeAt {
                index: self.position(i),
                node: self.nodes[i].clone(),
            };
            change.before.push((i, at));
        }
        &mut self.nodes[i]
    }

    /// Remove node `i` and every edge that touches it.
    pub(crate) fn remove(&mut self, i: usize, change: &mut Change) {
        let id = self.nodes[i].id.clone();
        self.drop_edges(&id, change);
        change.before.retain(|b| b.0 != i);
        let at = NodeAt {
            index: self.position(i),
            node: self.nodes[i].clone(),
        };
        change.before.push((i, at));
        insert_sorted(&mut self.nodes_removed, i);
        self.node_gone[i] = true;
        if self.nodes[i].is_derived() {
            self.removed_ids.push(id.into_string());
        }
    }

    /// Remove the edges of node `id`, lowest first, recording where each stood.
    pub(crate) fn drop_edges(&mut self, id: &str, change: &mut Change) -> Vec<Edge> {
        let mut list = self.edges_of.get(id).cloned().unwrap_or_default();
        list.sort_unstable();
        list.dedup();
        let mut dropped = Vec::new();
        for e in list {
            if self.edge_gone[e] {
                continue;
            }
            let index = (e - below(&self.edges_removed, e)) as u64;
            change.edges_removed.push(EdgeAt {
                edge: self.edges[e].clone(),
                index,
            });
            dropped.push(self.edges[e].clone());
            insert_sorted(&mut self.edges_removed, e);
            self.edge_gone[e] = true;
        }
        dropped
    }

    /// `change` as the audit log keeps it.
    pub(crate) fn record(&self, change: Change) -> Recorded {
        let (mut before, mut changed) = (Vec::new(), Vec::new());
        for (i, at) in change.before {
            if self.node_gone[i] {
                before.push(at);
                continue;
            }
            let diff = changed_fields(&at.node, &self.nodes[i]);
            changed.push(FieldsAt {
                fields: diff,
                id: at.node.id.into_string(),
            });
        }
        let some = |v: Vec<_>| (!v.is_empty()).then_some(v);
        Recorded {
            before: (!before.is_empty()).then_some(before),
            changed: (!changed.is_empty()).then_some(changed),
            edges_added: some(change.edges_added),
            edges_removed: (!change.edges_removed.is_empty()).then_some(change.edges_removed),
        }
    }

    /// Whether an edge `from -relation-> to` is in the graph now.
    pub(crate) fn has_edge(&self, from: &str, relation: &str, to: &str) -> bool {
        self.edges_of.get(from).into_iter().flatten().any(|&e| {
            !self.edge_gone[e] && self.edges[e].to == to && self.edges[e].relation == relation
        })
    }

    /// Append an edge.
    pub(crate) fn add_edge(&mut self, edge: Edge, change: &mut Change) {
        let i = self.edges.len();
        self.edges_of
            .entry(edge.from.to_string())
            .or_default()
            .push(i);
        if edge.to != edge.from {
            self.edges_of
                .entry(edge.to.to_string())
                .or_default()
                .push(i);
        }
        self.edge_gone.push(false);
        change.edges_added.push(edge.clone());
        self.edges.push(edge);
    }

    /// The graph with every removal made: its edges (the nodes are changed in place).
    pub(crate) fn finish(self) -> Vec<Edge> {
        let gone = self.node_gone;
        let mut i = 0;
        self.nodes.retain(|_| {
            i += 1;
            !gone[i - 1]
        });
        self.edges
            .into_iter()
            .zip(self.edge_gone)
            .filter(|(_, g)| !g)
            .map(|(e, _)| e)
            .collect()
    }
}

/// Undo `entry` on `nodes` and `edges`; `Err` names what no longer matches.
pub(crate) fn undo(
    entry: &AuditEntry,
    nodes: &mut Vec<Node>,
    edges: &mut Vec<Edge>,
) -> Result<(), String> {
    for added in entry.edges_added.iter().flatten().rev() {
        let at = edges.iter().rposition(|e| e == added).ok_or_else(|| {
            format!(
                "the edge {} -[{}]-> {} it added is gone",
                added.from, added.relation, added.to
            )
        })?;
        edges.remove(at);
    }
    for r in entry.edges_removed.iter().flatten().rev() {
        let at = (r.index as usize).min(edges.len());
        edges.insert(at, r.edge.clone());
    }
    for c in entry.changed.iter().flatten().rev() {
        let n = nodes
            .iter_mut()
            .find(|n| n.id == c.id)
            .ok_or_else(|| format!("node `{}` it changed is gone", c.id))?;
        let mut m = fields(n);
        for (k, v) in &c.fields {
            match v {
                Value::Null => m.remove(k),
                v => m.insert(k.clone(), v.clone()),
            };
        }
        *n = serde_json::from_value(Value::Object(m))
            .map_err(|e| format!("node `{}` cannot take its earlier fields back: {e}", c.id))?;
    }
    for b in entry.before.iter().flatten().rev() {
        if nodes.iter().any(|n| n.id == b.node.id) {
            return Err(format!("node `{}` it removed is back", b.node.id));
        }
        let at = (b.index as usize).min(nodes.len());
        nodes.insert(at, b.node.clone());
    }
    Ok(())
}

/// The node ids an entry changed or removed.
pub(crate) fn touched(entry: &AuditEntry) -> FastSet<&str> {
    let mut ids: FastSet<&str> = entry
        .before
        .iter()
        .flatten()
        .map(|b| b.node.id.as_str())
        .chain(entry.changed.iter().flatten().map(|c| c.id.as_str()))
        .collect();
    ids.insert(entry.node.as_str());
    if let Some(into) = &entry.into {
        ids.insert(into.as_str());
    }
    ids
}

/// Whether the action took its node out of the graph.
pub(crate) fn removes(action: Action) -> bool {
    matches!(action, Action::Purge | Action::Merge)
}
