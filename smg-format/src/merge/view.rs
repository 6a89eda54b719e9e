//! A document as the merge of a new archive compares it: without its derived nodes
//! and the edges between them (built again from the merged archive), without its
//! archive blocks (written again from the merged turns) and without the artifacts all
//! three documents hold alike, serialised straight from the document so that a large
//! memory's derived graph and vault are never turned into JSON values.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::archive::Renumbering;
use super::Ids;
use crate::model::{
    Artifact, Collaborator, CompressionMethod, Context, Document, DocumentKind, Edge, Extra,
    FormatVersion, Graph, Metadata, Node, Ordinal, PrivateContext, SealedSection, VectorIndex,
    WorkingMemory,
};

/// [`Document`]'s fields, in its order and names, with the semantic graph and the
/// archive seen through [`GraphView`] and [`ArchiveView`].
#[skip_serializing_none]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DocumentView<'a> {
    #[serde(rename = "@context")]
    context: &'a Context,
    #[serde(rename = "@type")]
    kind: DocumentKind,
    version: &'a FormatVersion,
    metadata: &'a Metadata,
    working_memory: Option<&'a WorkingMemory>,
    semantic_graph: Option<GraphView<'a>>,
    artifact_vault: Option<VaultView<'a>>,
    deep_archive: Option<ArchiveView<'a>>,
    collaborators: Option<&'a Vec<Collaborator>>,
    shared_graph: Option<&'a Graph>,
    private_contexts: Option<&'a BTreeMap<String, PrivateContext>>,
    sealed_sections: Option<&'a Vec<SealedSection>>,
    #[serde(flatten)]
    extra: &'a Extra,
}

#[skip_serializing_none]
#[derive(Serialize)]
struct GraphView<'a> {
    nodes: Option<Vec<&'a Node>>,
    edges: Option<Vec<&'a Edge>>,
    #[serde(flatten)]
    extra: &'a Extra,
}

#[skip_serializing_none]
#[derive(Serialize)]
struct VaultView<'a> {
    artifacts: Option<BTreeMap<&'a str, &'a Artifact>>,
    #[serde(flatten)]
    extra: &'a Extra,
}

#[skip_serializing_none]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArchiveView<'a> {
    compression_method: Option<CompressionMethod>,
    vector_index: Option<&'a VectorIndex>,
    #[serde(flatten)]
    extra: &'a Extra,
}

/// Whether an edge joins two derived nodes.
fn derived_edge(e: &Edge, derived: &Ids<'_>) -> bool {
    derived.contains(e.from.as_str()) && derived.contains(e.to.as_str())
}

/// `doc` as JSON without its semantic graph's derived nodes (ids in `derived`), the
/// edges between them, its archive blocks and the `settled` artifacts.
pub(super) fn authored(
    doc: &Document,
    derived: &Ids<'_>,
    settled: &Ids<'_>,
) -> serde_json::Result<Value> {
    let graph = doc.semantic_graph.as_ref().map(|g| GraphView {
        nodes: g
            .nodes
            .as_ref()
            .map(|n| n.iter().filter(|n| !n.is_derived()).collect()),
        edges: g
            .edges
            .as_ref()
            .map(|e| e.iter().filter(|e| !derived_edge(e, derived)).collect()),
        extra: &g.extra,
    });
    let vault = doc.artifact_vault.as_ref().map(|v| VaultView {
        artifacts: v.artifacts.as_ref().map(|a| {
            a.iter()
                .map(|(id, a)| (id.as_str(), a))
                .filter(|(id, _)| !settled.contains(id))
                .collect()
        }),
        extra: &v.extra,
    });
    let archive = doc.deep_archive.as_ref().map(|a| ArchiveView {
        compression_method: a.compression_method,
        vector_index: a.vector_index.as_ref(),
        extra: &a.extra,
    });
    serde_json::to_value(DocumentView {
        context: &doc.context,
        kind: doc.kind,
        version: &doc.version,
        metadata: &doc.metadata,
        working_memory: doc.working_memory.as_ref(),
        semantic_graph: graph,
        artifact_vault: vault,
        deep_archive: archive,
        collaborators: doc.collaborators.as_ref(),
        shared_graph: doc.shared_graph.as_ref(),
        private_contexts: doc.private_contexts.as_ref(),
        sealed_sections: doc.sealed_sections.as_ref(),
        extra: &doc.extra,
    })
}

/// Put `from`'s derived nodes and the edges between them (turn numbers renumbered)
/// into `into`'s semantic graph, after its own: they stand in until the merged archive
/// gives them again. When the caller derives them again at once (`marked`), only the
/// nodes curation marked are needed, for what they keep, and no edges.
pub(super) fn stand_in(
    into: &mut Document,
    from: &Document,
    derived: &Ids<'_>,
    map: &Renumbering,
    marked: bool,
) {
    let Some(g) = from.semantic_graph.as_ref() else {
        return;
    };
    let to = |n: u64| map.get(&n).copied().unwrap_or(n);
    let mut nodes: Vec<Node> = g
        .nodes()
        .iter()
        .filter(|n| n.is_derived() && (!marked || n.has_lifecycle()))
        .cloned()
        .collect();
    for n in &mut nodes {
        n.first_mentioned = n.first_mentioned.map(to);
        n.last_mentioned = n.last_mentioned.map(to);
        let turns = n
            .provenance
            .iter_mut()
            .flatten()
            .flat_map(|p| p.turns.iter_mut().flatten());
        // A turn is renumbered to a number from 1: `new` never refuses it.
        turns.for_each(|t| *t = Ordinal::new(to(t.get())).unwrap_or(*t));
    }
    let edges: Vec<Edge> = g
        .edges()
        .iter()
        .filter(|e| !marked && derived_edge(e, derived))
        .cloned()
        .collect();
    if nodes.is_empty() && edges.is_empty() {
        return;
    }
    let graph = into.semantic_graph.get_or_insert_with(Graph::default);
    if !nodes.is_empty() {
        graph.nodes.get_or_insert_with(Vec::new).extend(nodes);
    }
    if !edges.is_empty() {
        graph.edges.get_or_insert_with(Vec::new).extend(edges);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_without_derived_nodes_or_blocks_is_seen_whole() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/valid/full.smg"
        ))
        .unwrap();
        let (mut doc, _) = crate::from_bytes(&bytes, &Default::default()).unwrap();
        doc.deep_archive.as_mut().unwrap().blocks = None;
        let whole = serde_json::to_value(&doc).unwrap();
        assert_eq!(
            authored(&doc, &Ids::default(), &Ids::default()).unwrap(),
            whole
        );
    }
}
