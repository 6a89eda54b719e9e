//! The smg engine: what is done with a `.smg` document once smg-format has read it.
//! Synchronous, no servers, no I/O beyond the files it is given.
//!
//! | module | what it does |
//! |---|---|
//! | [`curate`] | curation: scores, tiers, TTL, dedup, never-prune rails, audit and restore, governance |
//! | [`embed`] | turns and nodes embedded by a sentence-embedding model, into the vector index |
//! | [`export`] | a memory in other systems' formats: ChatGPT, Claude, Letta, the MCP memory server's JSON Lines, Markdown, N-Quads |
//! | [`ingest`] | what an importer read (the `smg-import` crate) into a document: archive, vault, graph by rules |
//! | [`mcp`] | the MCP memory server's knowledge graph (entities, relations, observations) over the semantic graph |
//! | [`merge`] | three-way merge of whole files, the graph and working memory derived again from the merged archive |
//! | [`search`] | hybrid retrieval (BM25, names and hops, vectors; RRF, MMR), context packing, the stored index |
//! | [`query`] | FIND, the query language over the graph |
//! | [`share`] | a copy safe to hand out: credentials and personal data replaced, restricted talk left out |
//! | [`eval`] | retrieval measured on LoCoMo-format question sets |
//! | [`graph`] | the document's graphs in petgraph, for traversal |
//!
//! Bytes become a document in smg-format; ingest makes or grows one; a
//! [`search::Retriever`] indexes it (or opens the index stored in a packed file) and
//! answers searches and context requests. ARCHITECTURE.md at the repository's root
//! walks through the data flow.
//!
//! The document's graphs (semantic, shared and private) become one directed graph
//! whose nodes are found by id in constant time:
//!
//! ```
//! use smg_format::{model::{Edge, Graph, Node, NonEmpty}, Document};
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let node = |id: &'static str| Node::new(NonEmpty::from_static(id), NonEmpty::from_static("concept"));
//! doc.semantic_graph = Some(Graph {
//!     nodes: Some(vec![node("a"), node("b")]),
//!     edges: Some(vec![Edge::new(NonEmpty::from_static("a"), NonEmpty::from_static("requires"), NonEmpty::from_static("b"))]),
//!     ..Graph::default()
//! });
//! let graph = smg_engine::graph::MemoryGraph::load(&doc).unwrap();
//! assert_eq!(graph.neighbors("a").unwrap().collect::<Vec<_>>(), vec!["b"]);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod curate;
pub mod embed;
mod error;
pub mod eval;
pub mod export;
mod fast;
pub mod graph;
pub mod ingest;
pub mod mcp;
pub mod merge;
pub mod query;
pub mod search;
pub mod share;
mod text;

pub use error::{Error, Result};
