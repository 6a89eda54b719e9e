//! The Neo4j bridge: a `.smg` memory's tiers pushed to a graph database over Bolt and
//! pulled back (spec §19). Works with Neo4j 5 and with FalkorDB.
//!
//! - [`mapping`]: which label, which properties, what stays in the file.
//! - [`schema`]: constraints and indexes for each dialect.
//! - [`push`] and [`pull`]: live, batched, idempotent.
//! - [`export`]: the same writes as a Cypher script.
//! - [`bolt`]: the small synchronous Bolt client underneath.
//!
//! ```
//! use smg_format::model::{Document, Graph, Node, NonEmpty};
//! use smg_neo4j::mapping::{read, slice, TIERS};
//!
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
//! let node = Node::new(NonEmpty::from_static("concept:rust"), NonEmpty::from_static("concept"));
//! doc.semantic_graph = Some(Graph { nodes: Some(vec![node]), ..Graph::default() });
//! let rows = slice(&doc, "alice", &TIERS).unwrap();
//! assert_eq!(rows.nodes.len(), 1);
//! ```

#![forbid(unsafe_code)]

pub mod bolt;
mod error;
pub mod export;
pub mod mapping;
pub mod pull;
pub mod push;
mod query;
pub mod schema;

pub use error::Error;
