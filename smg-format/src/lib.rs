//! The `.smg` file format: a portable, JSON-LD *Semantic Memory Graph* for an AI
//! assistant's long-term memory.
//!
//! This crate holds everything about the file and nothing about using it: the
//! document model ([`Document`]), its canonical JSON form, the byte envelope and
//! its encodings ([`Encoding`]), artifact-version rebuilding, archive blocks, and
//! validation against the published spec ([`validate`]).
//!
//! ```
//! use smg_format::{Document, Encoding, Limits, WriteOptions};
//! let doc = Document::new("2025-12-04T10:30:00Z");
//! let bytes = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).unwrap();
//! let (back, encoding) = smg_format::from_bytes(&bytes, &Limits::default()).unwrap();
//! assert_eq!((back, encoding), (doc, Encoding::Brotli));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod archive;
mod brotli_memory;
mod canonical;
mod codec;
mod crypto;
mod delta;
mod diff;
mod envelope;
mod error;
mod file;
mod head;
mod limits;
mod lineage;
mod merge;
mod model;
mod packed;
mod seal;
mod sign;
mod stats;
#[cfg(test)]
mod test_support;
mod validate;
mod vault;

pub use archive::{
    append_turns, decode_block, encode_turns, find_turn, parse_turn_range, read_archive,
    AppendReport, ArchiveOptions, ArchivedTurn,
};
pub use canonical::to_canonical_json_value;
pub use codec::{
    from_bytes, from_bytes_with, from_json_slice, into_bytes, into_bytes_with_head, to_bytes,
    to_canonical_json,
};
pub use crypto::{
    decrypt, encrypt, encrypt_with, encrypted_iterations, is_encrypted, ENCRYPTED_HEADER_LEN,
    MAX_ITERATIONS, MIN_ITERATIONS,
};
pub use delta::{
    apply_delta, delta_header, make_delta, Delta, DeltaHeader, DeltaOptions, ExpandedBlock,
    FileRef, PatchKind, Reencryption, DELTA_MAGIC,
};
pub use diff::{diff, DocDiff, EdgeKey, FieldChange};
pub use envelope::{
    decode as decode_envelope, detect as detect_encoding, encode as encode_envelope, Encoding,
    WriteOptions, HEADER_LEN, MAGIC,
};
pub use error::{Error, Result};
pub use file::{read_bytes, read_file, write_atomic, write_file};
pub use head::{CompressedHead, LeadingMembers};
pub use limits::{Limits, MAX_DEPTH};
pub use lineage::fork;
pub use merge::{merge, Conflict, MergeOptions, Merged, Side};
pub use model::{
    Artifact, ArtifactVault, ArtifactVersion, Block, Collaborator, CompressionMethod, DeepArchive,
    Document, Edge, Embedding, Extra, Fork, Graph, LifecycleTier, Metadata, Node, PrivateContext,
    Provenance, Scope, SealParams, SealedSection, TimeRange, Turn, VectorIndex, WorkingMemory,
    CONTEXT_IRI, DOCUMENT_TYPE, FORMAT_VERSION,
};
pub use packed::{list_extensions, read_extension, with_extension, PackedArchive};
pub use seal::{seal, seal_with, unseal, SealTarget};
pub use sign::{generate_key, sign, verify, Verified};
pub use stats::{stats, Stats};
pub use validate::{validate, Finding, Report, Severity, ValidateOptions};
pub use vault::{
    content_hash, export_path, find_artifact, rebuild_version, rebuild_versions, unified_diff,
    NewContent, Stored, VaultWriter,
};
