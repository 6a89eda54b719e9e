//! The document's graphs as one petgraph `StableDiGraph`.

use std::collections::HashMap;

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use smg_format::{
    model::{Edge, Node},
    Document,
};

use crate::error::Error;

/// A node's own text fields, those it has: label, description, content, outcome and
/// rationale.
pub(crate) fn node_texts(n: &Node) -> impl Iterator<Item = &str> {
    [
        &n.label,
        &n.description,
        &n.content,
        &n.outcome,
        &n.rationale,
    ]
    .into_iter()
    .filter_map(|f| f.as_deref())
}

/// All nodes and edges of a document, indexed by node id.
#[derive(Debug, Clone)]
pub struct MemoryGraph {
    graph: StableDiGraph<Node, Edge>,
    by_id: HashMap<String, NodeIndex>,
}

impl MemoryGraph {
    /// Load every graph of `doc`; duplicate ids and dangling edges are errors.
    pub fn load(doc: &Document) -> Result<Self, Error> {
        let mut graph = StableDiGraph::new();
        let mut by_id = HashMap::new();
        let graphs = doc.graphs();
        for (_, g) in &graphs {
            for n in g.nodes() {
                let ix = graph.add_node(n.clone());
                if by_id.insert(n.id.to_string(), ix).is_some() {
                    return Err(Error::DuplicateNode(n.id.to_string()));
                }
            }
        }
        for (_, g) in &graphs {
            for e in g.edges() {
                match (by_id.get(e.from.as_str()), by_id.get(e.to.as_str())) {
                    (Some(&a), Some(&b)) => {
                        graph.add_edge(a, b, e.clone());
                    }
                    _ => {
                        return Err(Error::DanglingEdge {
                            from: e.from.to_string(),
                            to: e.to.to_string(),
                            relation: e.relation.to_string(),
                        })
                    }
                }
            }
        }
        Ok(MemoryGraph { graph, by_id })
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.by_id.get(id).map(|&ix| &self.graph[ix])
    }

    /// Ids of the nodes an edge from `id` leads to, in the order the edges were added.
    pub fn neighbors<'a>(&'a self, id: &str) -> Result<impl Iterator<Item = &'a str> + 'a, Error> {
        let &ix = self
            .by_id
            .get(id)
            .ok_or_else(|| Error::UnknownNode(id.to_string()))?;
        let mut out: Vec<_> = self.graph.edges_directed(ix, Direction::Outgoing).collect();
        out.sort_by_key(|e| e.id());
        Ok(out.into_iter().map(|e| self.graph[e.target()].id.as_str()))
    }

    /// Edges touching `id`, in either direction.
    pub fn degree(&self, id: &str) -> Result<usize, Error> {
        let &ix = self
            .by_id
            .get(id)
            .ok_or_else(|| Error::UnknownNode(id.to_string()))?;
        Ok(self.graph.edges_directed(ix, Direction::Outgoing).count()
            + self.graph.edges_directed(ix, Direction::Incoming).count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smg_format::Limits;

    fn fixture(name: &str) -> Document {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        smg_format::read_file(&path, &Limits::default()).unwrap().0
    }

    #[test]
    fn loads_every_graph_of_the_full_fixture() {
        let g = MemoryGraph::load(&fixture("valid/full.smg")).unwrap();
        assert_eq!(g.node_count(), 13 + 1 + 1);
        assert_eq!(g.edge_count(), 6 + 1 + 1);
        assert_eq!(g.node("n_elements").unwrap().kind, "decision");
        assert_eq!(
            g.neighbors("n_stripe").unwrap().collect::<Vec<_>>(),
            vec!["n_elements", "n_401"]
        );
        assert_eq!(g.degree("n_elements").unwrap(), 3);
        assert_eq!(g.degree("nope").unwrap_err().code(), "SMG-E201");
    }

    #[test]
    fn refuses_what_the_validator_refuses() {
        let dup = MemoryGraph::load(&fixture("invalid/dangling-edge.smg")).unwrap_err();
        assert_eq!(dup.code(), "SMG-E111");
    }
}
