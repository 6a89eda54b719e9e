//! What curation set on derived nodes outlives their derivation (spec §18.10): a
//! graph built again keeps each node's tier, retrievals and tombstone.

use smg_format::model::{Document, Node};

use crate::fast::{FastMap, FastSet};

use super::graph::CREATED_BY;

/// What a graph built again needs of the derived nodes it replaces: the nodes
/// curation left its marks on.
#[derive(Default)]
pub(super) struct Replaced {
    marked: Vec<Node>,
}

impl Replaced {
    /// Take the derived nodes out of `doc`'s graph, and the edges between two of
    /// them, before the graph is derived again: the derivation makes them anew, and
    /// at a million turns they hold hundreds of megabytes the derivation would
    /// otherwise have to share memory with. Nodes from elsewhere (authored, imported)
    /// stay.
    pub(super) fn take(doc: &mut Document) -> Replaced {
        let Some(graph) = doc.semantic_graph.as_mut() else {
            return Replaced::default();
        };
        let (ours, kept): (Vec<Node>, Vec<Node>) = graph
            .nodes
            .take()
            .unwrap_or_default()
            .into_iter()
            .partition(|n| n.created_by.as_deref() == Some(CREATED_BY));
        graph.nodes = (!kept.is_empty()).then_some(kept);
        if let Some(edges) = graph.edges.as_mut() {
            let ids: FastSet<&str> = ours.iter().map(|n| n.id.as_str()).collect();
            edges.retain(|e| !(ids.contains(e.from.as_str()) && ids.contains(e.to.as_str())));
            edges.shrink_to_fit();
        }
        let marked = ours.into_iter().filter(Node::has_lifecycle).collect();
        Replaced { marked }
    }

    /// Copy the lifecycle fields of the replaced nodes onto the `new` nodes of the
    /// same id.
    pub(super) fn carry(&self, new: &mut [Node]) {
        if self.marked.is_empty() {
            return;
        }
        let set: FastMap<&str, &Node> = self.marked.iter().map(|n| (n.id.as_str(), n)).collect();
        for n in new.iter_mut() {
            if let Some(o) = set.get(n.id.as_str()) {
                n.access_count = o.access_count;
                n.last_accessed.clone_from(&o.last_accessed);
                n.recent_accesses.clone_from(&o.recent_accesses);
                n.tier = o.tier;
                n.tombstone = o.tombstone;
                n.deleted_at.clone_from(&o.deleted_at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use smg_format::model::{Document, LifecycleTier};

    use crate::curate::{curate, record_access, CurateOptions};
    use crate::ingest::{ingest, IngestOptions, Silent};

    fn jsonl(prefix: &str, lines: &[(&str, &str)]) -> crate::ingest::Imported {
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (role, content))| {
                format!(
                    "{{\"conversation_id\":\"c1\",\"message_id\":\"{prefix}{i}\",\"role\":\"{role}\",\"content\":\"{content}\",\"timestamp\":\"2025-01-01T10:{i:02}:00Z\"}}\n"
                )
            })
            .collect();
        crate::ingest::testing::jsonl(text.into_bytes())
    }

    #[test]
    fn an_append_keeps_what_curation_did_to_derived_nodes() {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let first = [
            (
                "user",
                "We decided to use Postgres for billing because of transactions.",
            ),
            ("assistant", "Good, Postgres it is for the billing service."),
        ];
        ingest(
            &mut doc,
            vec![jsonl("m", &first)],
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let nodes = doc.semantic_graph.as_ref().unwrap().nodes();
        let seg = nodes
            .iter()
            .find(|n| n.kind == "segment")
            .unwrap()
            .id
            .clone();
        let other = nodes
            .iter()
            .find(|n| n.kind != "segment")
            .unwrap()
            .id
            .clone();
        record_access(
            &mut doc,
            &[&other],
            &smg_format::model::Timestamp::from_static("2025-06-01T00:00:00Z"),
            None,
        )
        .unwrap();
        let report = curate(
            &mut doc,
            &CurateOptions::at(smg_format::model::Timestamp::from_static(
                "2025-06-01T01:00:00Z",
            )),
        )
        .unwrap();
        assert!(
            report.actions.iter().any(|a| a.node == seg),
            "{:?}",
            report.actions
        );
        let before: Vec<_> = doc.semantic_graph.as_ref().unwrap().nodes().to_vec();
        let more = [
            ("user", "Also the reports run nightly at two."),
            ("assistant", "Noted."),
        ];
        ingest(
            &mut doc,
            vec![jsonl("n", &more)],
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let after = doc.semantic_graph.as_ref().unwrap().nodes();
        for b in before
            .iter()
            .filter(|b| b.tier.is_some() || b.tombstone.is_some())
        {
            let a = after.iter().find(|a| a.id == b.id).unwrap();
            assert_eq!(
                (a.tier, a.tombstone, &a.access_count),
                (b.tier, b.tombstone, &b.access_count)
            );
        }
        let touched = after.iter().find(|n| n.id == other).unwrap();
        assert_eq!(touched.tier, Some(LifecycleTier::Cold));
    }

    #[test]
    fn derived_nodes_leave_before_the_derivation_and_only_their_marks_stay() {
        use smg_format::model::{Edge, Graph, Node, NonEmpty};
        let id = |s: &str| NonEmpty::new(s).unwrap();
        let node = |name: &str, derived: bool| Node {
            created_by: derived.then(|| super::CREATED_BY.into()),
            ..Node::new(id(name), id("concept"))
        };
        let mut marked = node("d2", true);
        marked.tier = Some(LifecycleTier::Cold);
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let edge = |a: &str, b: &str| Edge::new(id(a), id("related_to"), id(b));
        doc.semantic_graph = Some(Graph {
            nodes: Some(vec![
                node("a1", false),
                node("d1", true),
                marked,
                node("a2", false),
            ]),
            edges: Some(vec![edge("d1", "d2"), edge("a1", "d1"), edge("a1", "a2")]),
            ..Graph::default()
        });
        let replaced = super::Replaced::take(&mut doc);
        let g = doc.semantic_graph.as_ref().unwrap();
        let ids: Vec<&str> = g.nodes().iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["a1", "a2"]);
        let ends: Vec<(&str, &str)> = g
            .edges()
            .iter()
            .map(|e| (e.from.as_str(), e.to.as_str()))
            .collect();
        assert_eq!(
            ends,
            [("a1", "d1"), ("a1", "a2")],
            "an edge to a derived node stays"
        );
        let mut new = vec![node("d1", true), node("d2", true)];
        replaced.carry(&mut new);
        assert_eq!(
            (new[0].tier, new[1].tier),
            (None, Some(LifecycleTier::Cold))
        );
    }
}
