//! A pulled slice put into a file: the file's other tiers, vault, archive and working
//! memory stay; the pulled tiers replace the file's, in the file's order.

use std::collections::{HashMap, HashSet};

use smg_format::model::{Document, Edge, Node, Scope, Vector, VectorIndex};

/// References the file cannot resolve, dropped so that the result validates.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Dropped {
    /// `artifactRef`s naming no artifact of the vault: (node id, artifact id).
    pub artifact_refs: Vec<(String, String)>,
    /// `relatedNodes` entries naming no node: (node id, related id).
    pub related_nodes: Vec<(String, String)>,
}

/// `pulled` (read from the database for `tiers`) put into `base`, or on its own.
pub fn into_file(base: Option<Document>, pulled: Document, tiers: &[Scope]) -> (Document, Dropped) {
    let mut doc = match base {
        Some(base) => merged(base, pulled, tiers),
        None => pulled,
    };
    let dropped = drop_dangling(&mut doc);
    (doc, dropped)
}

type EdgeKey = (String, String, String, usize);

fn merged(mut base: Document, pulled: Document, tiers: &[Scope]) -> Document {
    let pulled_graph = pulled.semantic_graph.unwrap_or_default();
    let fresh_order: Vec<String> = pulled_graph
        .nodes()
        .iter()
        .map(|n| n.id.to_string())
        .collect();
    let mut fresh: HashMap<String, Node> = pulled_graph
        .nodes()
        .iter()
        .map(|n| (n.id.to_string(), n.clone()))
        .collect();
    let graph = base.semantic_graph.get_or_insert_with(Default::default);
    let chosen = |n: &Node| tiers.contains(&n.scope.unwrap_or(Scope::Personal));
    // Kept: the other tiers, and tombstoned nodes (the database never holds them)
    // unless the database has a node of that id again.
    let mut kept = HashSet::new();
    let mut nodes = Vec::new();
    for n in graph.nodes() {
        if let Some(newer) = fresh.remove(n.id.as_str()) {
            nodes.push(newer);
        } else if !chosen(n) || n.tombstone == Some(true) {
            kept.insert(n.id.clone());
            nodes.push(n.clone());
        }
    }
    nodes.extend(fresh_order.iter().filter_map(|id| fresh.remove(id)));
    let present: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let fresh_keys: Vec<EdgeKey> = ranked(pulled_graph.edges())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let mut fresh_edges: HashMap<EdgeKey, Edge> = ranked(pulled_graph.edges())
        .into_iter()
        .map(|(k, e)| (k, e.clone()))
        .collect();
    let mut edges = Vec::new();
    for (key, e) in ranked(graph.edges()) {
        if let Some(newer) = fresh_edges.remove(&key) {
            edges.push(newer);
        } else if (kept.contains(&e.from) || kept.contains(&e.to))
            && present.contains(e.from.as_str())
            && present.contains(e.to.as_str())
        {
            edges.push(e.clone());
        }
    }
    edges.extend(fresh_keys.iter().filter_map(|k| fresh_edges.remove(k)));
    graph.nodes = Some(nodes);
    graph.edges = Some(edges);
    if let Some(index) = pulled.deep_archive.and_then(|a| a.vector_index) {
        merge_vectors(&mut base, index);
    }
    base
}

/// Edges keyed by `(from, relation, to, rank among equal triples)`.
fn ranked(edges: &[Edge]) -> Vec<(EdgeKey, &Edge)> {
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    edges
        .iter()
        .map(|e| {
            let rank = seen.entry((&e.from, &e.relation, &e.to)).or_default();
            let key = (
                e.from.to_string(),
                e.relation.to_string(),
                e.to.to_string(),
                *rank,
            );
            *rank += 1;
            (key, e)
        })
        .collect()
}

/// The pulled nodes' embeddings replace the file's for those nodes.
fn merge_vectors(base: &mut Document, pulled: VectorIndex) {
    let mut fresh: HashMap<String, Vector> = pulled
        .embeddings
        .iter()
        .flatten()
        .filter_map(|e| Some((e.node_id.clone()?, e.vector.clone())))
        .collect();
    let archive = base.deep_archive.get_or_insert_with(Default::default);
    let index = archive.vector_index.get_or_insert_with(|| VectorIndex {
        embeddings: None,
        ..pulled.clone()
    });
    let embeddings = index.embeddings.get_or_insert_with(Vec::new);
    for e in embeddings.iter_mut() {
        if let Some(v) = e.node_id.as_ref().and_then(|id| fresh.remove(id)) {
            e.vector = v;
        }
    }
    for e in pulled.embeddings.into_iter().flatten() {
        if e.node_id.as_ref().is_some_and(|id| fresh.contains_key(id)) {
            embeddings.push(e);
        }
    }
}

fn drop_dangling(doc: &mut Document) -> Dropped {
    let artifacts: HashSet<String> = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref())
        .map(|a| a.keys().cloned().collect())
        .unwrap_or_default();
    let mut ids: HashSet<String> = doc
        .sealed_sections
        .iter()
        .flatten()
        .flat_map(|s| s.node_ids.iter().flatten().cloned())
        .collect();
    let mut dropped = Dropped::default();
    let Some(graph) = doc.semantic_graph.as_mut() else {
        return dropped;
    };
    ids.extend(graph.nodes().iter().map(|n| n.id.to_string()));
    for n in graph.nodes.iter_mut().flatten() {
        if let Some(a) = n.artifact_ref.take_if(|a| !artifacts.contains(a.as_str())) {
            dropped.artifact_refs.push((n.id.to_string(), a));
        }
        if let Some(related) = n.related_nodes.as_mut() {
            let id = &n.id;
            related.retain(|r| {
                let known = ids.contains(r);
                if !known {
                    dropped.related_nodes.push((id.to_string(), r.clone()));
                }
                known
            });
        }
    }
    dropped
}
