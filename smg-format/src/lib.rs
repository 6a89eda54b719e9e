//! The `.smg` file format: a portable, JSON-LD *Semantic Memory Graph* for an AI
//! assistant's long-term memory.
//!
//! This crate holds everything about the file and nothing about using it. The root
//! has the entry points — a [`Document`] read with [`from_bytes`] or [`read_file`],
//! written with [`to_bytes`] or [`write_file`] in an [`Encoding`] — and each concept
//! of the format is a module:
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | the document's types, one per section of the spec |
//! | [`codec`] | bytes to a document and back, canonical JSON (RFC 8785) |
//! | [`envelope`] | the byte envelope: JSON, Brotli, Zstandard and how to tell them apart |
//! | [`packed`] | the packed layout: sections read on demand, extension sections |
//! | [`crypto`] | the encrypted wrapper (AES-256-GCM, PBKDF2 keys) |
//! | [`vault`] | artifacts stored once by SHA-256, versions as unified diffs |
//! | [`archive`] | every original turn in Brotli blocks that open one at a time |
//! | [`validate`] | checks against the published spec, each finding with its `SMG-` code |
//! | [`diff`], [`delta`], [`merge`], [`lineage`] | checkpoints: changes, delta files, three-way merge, forks |
//! | [`links`] | other memory files a memory reaches, and what became of each |
//! | [`seal`], [`sign`] | sealed sections for a tier or a collaborator; Ed25519 signatures |
//! | [`stats`], [`file`](mod@file) | what a file holds, byte by byte; atomic file writes |
//!
//! The layers go one way: raw bytes ([`envelope`], [`crypto`]'s wrapper, [`packed`]'s
//! sections) below the [`codec`] that picks among them, below the checkpoint modules.
//! ARCHITECTURE.md at the repository's root walks through them.
//!
//! ```
//! use smg_format::{Document, Encoding, Limits, WriteOptions};
//! let doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let bytes = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
//! let (back, encoding) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
//! assert_eq!((back, encoding), (doc, Encoding::Brotli));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod archive;
mod brotli_memory;
mod canonical;
pub mod codec;
mod counts;
pub mod crypto;
pub mod delta;
pub mod diff;
pub mod envelope;
mod error;
pub mod file;
mod head;
mod languages;
pub mod limits;
pub mod lineage;
pub mod links;
pub mod merge;
pub mod model;
pub mod packed;
pub mod rdf;
pub mod seal;
pub mod sign;
pub mod stats;
#[cfg(test)]
mod test_support;
pub mod validate;
pub mod vault;

pub use codec::{from_bytes, to_bytes};
pub use envelope::{Encoding, WriteOptions};
pub use error::{Error, Result};
pub use file::{read_file, write_file};
pub use limits::Limits;
pub use model::Document;
