//! The edges an ingest (or `smg migrate`) dropped because an end named no node: said
//! on stderr and in `--json`, never dropped without a word.

use serde_json::{json, Value};
use smg_format::model::Edge;

/// Edges named one by one on stderr; the rest are counted.
const SHOWN: usize = 20;

/// A warning for each of the first [`SHOWN`] `edges`, then a count of the rest.
pub(crate) fn warn(edges: &[Edge]) {
    for e in edges.iter().take(SHOWN) {
        eprintln!(
            "smg: warning: dropped the edge {} -[{}]-> {}: an end names no node of the graph",
            e.from, e.relation, e.to
        );
    }
    if edges.len() > SHOWN {
        eprintln!(
            "smg: warning: … and {} more dropped edges",
            edges.len() - SHOWN
        );
    }
}

/// `edges` for `--json`: `[{"from", "relation", "to"}]`.
pub(crate) fn to_json(edges: &[Edge]) -> Vec<Value> {
    edges
        .iter()
        .map(|e| json!({"from": e.from, "relation": e.relation, "to": e.to}))
        .collect()
}
