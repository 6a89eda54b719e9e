//! A document read for a merge that derives its derived graph again: without the
//! derived nodes curation never marked, and without the edges between two of them.
//! In a large memory they are most of what there is to parse, and such a merge
//! throws them away (the merged archive gives them again).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::Ids;
use crate::model::{Document, Edge, Node};

/// A document without the semantic graph's derived nodes that carry no mark of
/// curation (spec §18.10) and the edges between two of them, with the ids of those
/// nodes. Only a caller that derives those nodes again takes it ([`super::merge_lean`],
/// an ingest), and each gives it back when it needs what was left out: smg never
/// writes a document read this way but with its derived graph made anew.
///
/// ```
/// use smg_format::{merge::Lean, model::{Graph, Node, NonEmpty}, Document};
/// let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
/// let derived = Node {
///     created_by: Some(Node::DERIVED_BY.into()),
///     ..Node::new(NonEmpty::from_static("seg-1"), NonEmpty::from_static("segment"))
/// };
/// let authored = Node::new(NonEmpty::from_static("n-1"), NonEmpty::from_static("concept"));
/// doc.semantic_graph = Some(Graph { nodes: Some(vec![derived, authored]), ..Graph::default() });
/// let lean = Lean::new(doc);
/// assert_eq!(lean.left_out(), ["seg-1"]);
/// assert_eq!(lean.document().semantic_graph.as_ref().unwrap().nodes().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Lean {
    pub(super) document: Document,
    pub(super) left_out: Vec<String>,
}

impl Lean {
    /// `doc` without what a lean read leaves out.
    pub fn new(mut doc: Document) -> Lean {
        let mut left_out = Vec::new();
        if let Some(g) = doc.semantic_graph.as_mut() {
            if let Some(nodes) = g.nodes.as_mut() {
                nodes.retain(|n| {
                    let out = leaves_out(n);
                    if out {
                        left_out.push(n.id.to_string());
                    }
                    !out
                });
            }
            let ids = ids(&left_out);
            if let Some(edges) = g.edges.as_mut() {
                edges.retain(|e| !between(&ids, &e.from, &e.to));
            }
        }
        Lean {
            document: doc,
            left_out,
        }
    }

    /// A lean read's document, without the nodes of ids `left_out`.
    pub(crate) fn read(document: Document, left_out: Vec<String>) -> Lean {
        Lean { document, left_out }
    }

    /// `doc` whole, nothing left out: for a document that could not be read again
    /// (from stdin, or asking for a passphrase) when the merge needs all of it.
    pub fn whole(doc: Document) -> Lean {
        Lean {
            document: doc,
            left_out: Vec::new(),
        }
    }

    /// What is left of the document.
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// The document, when nothing was left out of it.
    pub fn into_whole(self) -> Option<Document> {
        self.left_out.is_empty().then_some(self.document)
    }

    /// The document, for a caller that derives the nodes left out again: what it
    /// derives takes their place (an ingest's derivation replaces every derived node
    /// and edge between two of them, and keeps the marks of those a lean read kept).
    pub fn into_derivable(self) -> Document {
        let Lean {
            mut document,
            left_out,
        } = self;
        // The edges between a node kept and one left out, both derived, go as those
        // between two left out went: the derivation draws them again.
        if let Some(g) = document.semantic_graph.as_mut() {
            let mut derived = ids(&left_out);
            let nodes = g.nodes.as_deref().unwrap_or_default();
            derived.extend(
                nodes
                    .iter()
                    .filter(|n| n.is_derived())
                    .map(|n| n.id.as_str()),
            );
            if let Some(edges) = g.edges.as_mut() {
                edges.retain(|e| !between(&derived, &e.from, &e.to));
            }
        }
        document
    }

    /// The ids of the nodes left out, in the document's order.
    pub fn left_out(&self) -> &[String] {
        &self.left_out
    }
}

/// Whether a lean read leaves `n` out.
fn leaves_out(n: &Node) -> bool {
    n.is_derived() && !n.has_lifecycle()
}

pub(super) fn ids(left_out: &[String]) -> Ids<'_> {
    left_out.iter().map(String::as_str).collect()
}

fn between(ids: &Ids<'_>, from: &str, to: &str) -> bool {
    ids.contains(from) && ids.contains(to)
}

/// What a node's text says of [`leaves_out`], read without the rest of it: its
/// `createdBy` and the fields of [`Node::has_lifecycle`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeProbe<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    created_by: Option<Cow<'a, str>>,
    access_count: Option<IgnoredAny>,
    last_accessed: Option<IgnoredAny>,
    recent_accesses: Option<IgnoredAny>,
    tier: Option<IgnoredAny>,
    tombstone: Option<IgnoredAny>,
    deleted_at: Option<IgnoredAny>,
}

impl NodeProbe<'_> {
    fn leaves_out(&self) -> bool {
        let marked = [
            &self.access_count,
            &self.last_accessed,
            &self.recent_accesses,
            &self.tier,
            &self.tombstone,
            &self.deleted_at,
        ];
        self.created_by.as_deref() == Some(Node::DERIVED_BY) && marked.iter().all(|m| m.is_none())
    }
}

/// The ends of an edge, read without the rest of it.
#[derive(Deserialize)]
struct EdgeProbe<'a> {
    #[serde(borrow)]
    from: Cow<'a, str>,
    #[serde(borrow)]
    to: Cow<'a, str>,
}

/// The nodes and edges of a semantic graph as a lean read takes them, item by item
/// from their text: a node is parsed only when kept, an edge's text is held until
/// every node has been seen (edges come first in canonical JSON).
#[derive(Default)]
pub(crate) struct LeanLists {
    pub(crate) left_out: Vec<String>,
    edges: Vec<Box<[u8]>>,
    /// How many edges were dropped.
    pub(crate) dropped: u64,
}

impl LeanLists {
    /// A node's text: the node when kept, `None` (and its id noted) when left out,
    /// an error when the text is not a node.
    pub(crate) fn node(&mut self, text: &[u8]) -> serde_json::Result<Option<Node>> {
        let probe: NodeProbe<'_> = serde_json::from_slice(text)?;
        if probe.leaves_out() {
            self.left_out.push(probe.id.into_owned());
            return Ok(None);
        }
        serde_json::from_slice(text).map(Some)
    }

    /// An edge's text, held.
    pub(crate) fn edge(&mut self, text: &[u8]) {
        self.edges.push(text.into());
    }

    /// Whether an edge was held.
    pub(crate) fn has_edges(&self) -> bool {
        !self.edges.is_empty()
    }

    /// The edges held, but those between two nodes left out.
    pub(crate) fn edges(&mut self) -> serde_json::Result<Vec<Edge>> {
        let ids = ids(&self.left_out);
        let mut kept = Vec::new();
        for text in std::mem::take(&mut self.edges) {
            let ends: EdgeProbe<'_> = serde_json::from_slice(&text)?;
            if between(&ids, &ends.from, &ends.to) {
                self.dropped += 1;
            } else {
                kept.push(serde_json::from_slice(&text)?);
            }
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_left_out_alike_from_its_text_and_from_the_document() {
        let doc = crate::read_file(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/valid/full.smg").as_ref(),
            &Default::default(),
        )
        .unwrap()
        .0;
        let mut lists = LeanLists::default();
        let mut nodes = doc.semantic_graph.clone().unwrap_or_default();
        let mut marked = nodes.nodes()[0].clone();
        marked.created_by = Some(Node::DERIVED_BY.into());
        let mut derived = marked.clone();
        derived.id = crate::model::NonEmpty::from_static("derived-1");
        marked.tier = Some(crate::model::LifecycleTier::Cold);
        nodes
            .nodes
            .get_or_insert_default()
            .extend([marked, derived]);
        let mut kept = Vec::new();
        for n in nodes.nodes() {
            let text = serde_json::to_vec(n).unwrap();
            kept.extend(lists.node(&text).unwrap());
        }
        let mut with = doc.clone();
        with.semantic_graph = Some(nodes);
        let lean = Lean::new(with);
        assert_eq!(lists.left_out, ["derived-1"]);
        assert_eq!(lean.left_out, lists.left_out);
        assert_eq!(lean.document.semantic_graph.unwrap().nodes(), kept);
    }

    #[test]
    fn a_derived_node_with_any_mark_of_curation_is_kept() {
        let base = serde_json::json!({"id": "d", "type": "segment", "createdBy": Node::DERIVED_BY});
        let marks = serde_json::json!({
            "accessCount": 1, "lastAccessed": "2025-01-01T00:00:00Z",
            "recentAccesses": [{"at": "2025-01-01T00:00:00Z"}], "tier": "COLD",
            "tombstone": true, "deletedAt": "2025-01-01T00:00:00Z",
        });
        for (field, value) in marks.as_object().unwrap() {
            let mut marked = base.clone();
            marked[field] = value.clone();
            let text = marked.to_string();
            let node: Node = serde_json::from_str(&text).unwrap();
            assert!(node.has_lifecycle(), "{field}");
            let kept = LeanLists::default().node(text.as_bytes()).unwrap();
            assert_eq!(kept.as_ref(), Some(&node), "{field}");
        }
        let mut lists = LeanLists::default();
        assert_eq!(lists.node(base.to_string().as_bytes()).unwrap(), None);
        assert_eq!(lists.left_out, ["d"]);
    }

    #[test]
    fn an_edge_between_two_nodes_left_out_is_dropped_and_others_kept() {
        let mut lists = LeanLists {
            left_out: vec!["a".into(), "b".into()],
            ..LeanLists::default()
        };
        for (from, to) in [("a", "b"), ("a", "n"), ("n", "b")] {
            let edge = serde_json::json!({"from": from, "relation": "relates_to", "to": to});
            lists.edge(edge.to_string().as_bytes());
        }
        let kept: Vec<_> = lists.edges().unwrap();
        let ends: Vec<_> = kept
            .iter()
            .map(|e| (e.from.as_str(), e.to.as_str()))
            .collect();
        assert_eq!(ends, [("a", "n"), ("n", "b")]);
        assert!(LeanLists::default().node(b"{\"id\": 3}").is_err());
    }
}
