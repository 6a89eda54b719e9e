//! The smg engine: a `.smg` document's graphs loaded into petgraph for traversal.
//!
//! Every graph of the document (semantic, shared and private) becomes one directed
//! graph whose nodes are found by id in constant time.
//!
//! ```
//! use smg_format::{Document, Edge, Graph, Node};
//! let mut doc = Document::new("2025-12-04T10:30:00Z");
//! let node = |id: &str| Node { id: id.into(), kind: "concept".into(), ..Node::default() };
//! doc.semantic_graph = Some(Graph {
//!     nodes: Some(vec![node("a"), node("b")]),
//!     edges: Some(vec![Edge { from: "a".into(), to: "b".into(), relation: "requires".into(), ..Edge::default() }]),
//!     ..Graph::default()
//! });
//! let graph = smg_engine::MemoryGraph::load(&doc).unwrap();
//! assert_eq!(graph.neighbors("a").unwrap().collect::<Vec<_>>(), vec!["b"]);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
pub mod eval;
mod fast;
mod graph;
pub mod ingest;
pub mod query;
pub mod search;
mod text;

pub use error::{Error, Result};
pub use graph::MemoryGraph;
