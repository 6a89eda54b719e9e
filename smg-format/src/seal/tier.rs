//! A tier's content: what sealing a scope takes out of the document, and how
//! unsealing puts it back.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::model::{Block, Document, Edge, Embedding, Node, Scope, Turn, TurnRange};

/// A node or edge removed from a graph, with where it stood.
#[derive(Debug, Serialize, Deserialize)]
struct Placed<T> {
    at: String,
    index: usize,
    item: T,
}

/// A sealed tier: its nodes and their edges, and (absent from sections sealed before
/// turns had a scope) the archive blocks of its conversations, the embeddings of what
/// is sealed, and its turns in working memory.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct TierContent {
    nodes: Vec<Placed<Node>>,
    edges: Vec<Placed<Edge>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    blocks: Vec<Placed<Block>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    embeddings: Vec<Placed<Embedding>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    recent: Vec<Placed<Turn>>,
    /// Entries of `deepArchive.conversations` (headers, other records) of the tier.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    conversations: serde_json::Map<String, serde_json::Value>,
}

impl TierContent {
    /// What a reader without the key may see of it: the ids of its nodes and the
    /// turn ranges of its blocks (`None` for none).
    pub(super) fn visible(&self) -> (Option<Vec<String>>, Option<Vec<TurnRange>>) {
        let ids: Vec<String> = self.nodes.iter().map(|p| p.item.id.to_string()).collect();
        let ranges = self.blocks.iter().map(|p| p.item.turn_range.clone());
        let ranges: Vec<TurnRange> = ranges.collect();
        (
            (!ids.is_empty()).then_some(ids),
            (!ranges.is_empty()).then_some(ranges),
        )
    }
}

const BLOCKS: &str = "/deepArchive/blocks";
const EMBEDDINGS: &str = "/deepArchive/vectorIndex/embeddings";
const RECENT: &str = "/workingMemory/recentContext";
const CONVERSATIONS: &str = "conversations";

/// Remove every node of `scope` from every graph, with the edges that touch them.
pub(super) fn take_tier(doc: &mut Document, scope: Scope) -> TierContent {
    let mut out = TierContent::default();
    let ids: std::collections::HashSet<String> = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| {
            g.nodes()
                .iter()
                .filter(|n| n.scope == Some(scope))
                .map(|n| n.id.to_string())
        })
        .collect();
    for (at, graph) in graphs_mut(doc) {
        if let Some(nodes) = graph.nodes.as_mut() {
            out.nodes.extend(drain_where(nodes, &at, |n: &Node| {
                ids.contains(n.id.as_str())
            }));
        }
        if let Some(edges) = graph.edges.as_mut() {
            out.edges.extend(drain_where(edges, &at, |e: &Edge| {
                ids.contains(e.from.as_str()) || ids.contains(e.to.as_str())
            }));
        }
    }
    let mut turns = Vec::new();
    if let Some(archive) = doc.deep_archive.as_mut() {
        if let Some(blocks) = archive.blocks.as_mut() {
            out.blocks = drain_where(blocks, BLOCKS, |b: &Block| b.scope == Some(scope));
            turns = out
                .blocks
                .iter()
                .filter_map(|b| crate::archive::parse_turn_range(&b.item.turn_range))
                .collect();
        }
        out.conversations = take_conversations(&mut archive.extra, scope);
        let vectors = archive.vector_index.as_mut();
        if let Some(embeddings) = vectors.and_then(|v| v.embeddings.as_mut()) {
            out.embeddings = drain_where(embeddings, EMBEDDINGS, |e: &Embedding| {
                e.turn.is_some_and(|n| within(&turns, n.get()))
                    || e.node_id.as_ref().is_some_and(|id| ids.contains(id))
            });
        }
    }
    let recent = doc.working_memory.as_mut();
    if let Some(context) = recent.and_then(|w| w.recent_context.as_mut()) {
        out.recent = drain_where(context, RECENT, |t: &Turn| {
            t.scope == Some(scope) || within(&turns, t.turn.get())
        });
    }
    out
}

/// Whether `doc` holds a node or an archive block of `scope`: something sealing the
/// tier would take.
pub(super) fn has_tier(doc: &Document, scope: Scope) -> bool {
    let graphs = doc.graphs();
    let mut nodes = graphs.iter().flat_map(|(_, g)| g.nodes());
    let mut blocks = doc
        .deep_archive
        .iter()
        .flat_map(|a| a.blocks.iter().flatten());
    nodes.any(|n| n.scope == Some(scope)) || blocks.any(|b| b.scope == Some(scope))
}

/// The entries of the archive's `conversations` that the importer marked with
/// `scope` (the member is dropped when none is left).
fn take_conversations(
    extra: &mut crate::model::Extra,
    scope: Scope,
) -> serde_json::Map<String, serde_json::Value> {
    let Some(map) = extra.get_mut(CONVERSATIONS).and_then(|c| c.as_object_mut()) else {
        return Default::default();
    };
    let ids: Vec<String> = map
        .iter()
        .filter(|(_, e)| e.get("scope").and_then(|s| s.as_str()) == Some(scope.name()))
        .map(|(id, _)| id.clone())
        .collect();
    let taken = ids
        .into_iter()
        .filter_map(|id| map.remove(&id).map(|e| (id, e)))
        .collect();
    if map.is_empty() {
        extra.remove(CONVERSATIONS);
    }
    taken
}

fn within(ranges: &[(u64, u64)], n: u64) -> bool {
    ranges.iter().any(|&(a, z)| a <= n && n <= z)
}

fn drain_where<T>(
    items: &mut Vec<T>,
    at: &str,
    mut pick: impl FnMut(&T) -> bool,
) -> Vec<Placed<T>> {
    let mut kept = Vec::with_capacity(items.len());
    let mut taken = Vec::new();
    for (index, item) in std::mem::take(items).into_iter().enumerate() {
        if pick(&item) {
            taken.push(Placed {
                at: at.to_string(),
                index,
                item,
            });
        } else {
            kept.push(item);
        }
    }
    *items = kept;
    taken
}

fn graphs_mut(doc: &mut Document) -> Vec<(String, &mut crate::model::Graph)> {
    let mut out = Vec::new();
    if let Some(g) = doc.semantic_graph.as_mut() {
        out.push(("/semanticGraph".to_string(), g));
    }
    if let Some(g) = doc.shared_graph.as_mut() {
        out.push(("/sharedGraph".to_string(), g));
    }
    for (id, ctx) in doc.private_contexts.iter_mut().flatten() {
        if let Some(g) = ctx.graph.as_mut() {
            out.push((
                format!(
                    "/privateContexts/{}/graph",
                    crate::model::escape_pointer(id)
                ),
                g,
            ));
        }
    }
    out
}

/// Put sealed nodes, edges, blocks, embeddings and turns back at their original
/// places (ascending index order restores each array exactly).
pub(super) fn restore(doc: &mut Document, content: TierContent) {
    let archived = !content.conversations.is_empty();
    if archived || !content.blocks.is_empty() || !content.embeddings.is_empty() {
        let archive = doc.deep_archive.get_or_insert_with(Default::default);
        if archived {
            let entry = archive.extra.entry(CONVERSATIONS);
            if let Some(map) = entry
                .or_insert_with(|| serde_json::json!({}))
                .as_object_mut()
            {
                map.extend(content.conversations);
            }
        }
        if !content.blocks.is_empty() {
            put_back(archive.blocks.get_or_insert_with(Vec::new), content.blocks);
        }
        if !content.embeddings.is_empty() {
            let vectors = archive.vector_index.get_or_insert_with(Default::default);
            let embeddings = vectors.embeddings.get_or_insert_with(Vec::new);
            put_back(embeddings, content.embeddings);
        }
    }
    if !content.recent.is_empty() {
        let wm = doc.working_memory.get_or_insert_with(Default::default);
        put_back(
            wm.recent_context.get_or_insert_with(Vec::new),
            content.recent,
        );
    }
    // A node made again while the tier was sealed (new talk named the same entity)
    // is kept as it is now: the sealed copy, and edges now present twice, are not
    // put back; nor are edges to nodes that are gone (a write while sealed made the
    // graph again without them).
    let mut ids: HashSet<String> = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| g.nodes().iter().map(|n| n.id.to_string()))
        .collect();
    let links: HashSet<(String, String, String)> = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| g.edges().iter().map(link))
        .collect();
    let mut graphs = graphs_mut(doc);
    let nodes: Vec<Placed<Node>> = content
        .nodes
        .into_iter()
        .filter(|p| !ids.contains(p.item.id.as_str()))
        .collect();
    ids.extend(nodes.iter().map(|p| p.item.id.to_string()));
    for p in nodes {
        if let Some((_, g)) = graphs.iter_mut().find(|(at, _)| *at == p.at) {
            put_back(g.nodes.get_or_insert_with(Vec::new), vec![p]);
        }
    }
    let ends = |e: &Edge| ids.contains(e.from.as_str()) && ids.contains(e.to.as_str());
    let edges = content.edges.into_iter();
    for p in edges.filter(|p| !links.contains(&link(&p.item)) && ends(&p.item)) {
        if let Some((_, g)) = graphs.iter_mut().find(|(at, _)| *at == p.at) {
            put_back(g.edges.get_or_insert_with(Vec::new), vec![p]);
        }
    }
}

fn link(e: &Edge) -> (String, String, String) {
    (e.from.to_string(), e.relation.to_string(), e.to.to_string())
}

/// Insert each item at its index, in the order taken (ascending).
fn put_back<T>(items: &mut Vec<T>, placed: Vec<Placed<T>>) {
    for p in placed {
        items.insert(p.index.min(items.len()), p.item);
    }
}
