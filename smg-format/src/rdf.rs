//! A memory as RDF: the document's JSON-LD expanded with the bundled v1 context
//! (never fetched) and written as N-Quads, for triple stores.
//!
//! Opaque JSON (`metadata`, `source`, vectors, `conversations`) becomes
//! `rdf:JSON` literals, as JSON-LD 1.1 says; blank nodes are numbered in document
//! order, so the same document gives the same quads.
//!
//! ```
//! let doc = smg_format::Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let quads = smg_format::rdf::nquads(&doc).unwrap();
//! assert!(quads.contains("<https://w3id.org/smg/v1#created>"), "{quads}");
//! ```

use json_ld::rdf_types::generator::Blank;
use json_ld::syntax::Value as LdValue;
use json_ld::{JsonLdProcessor, RemoteDocument};

use crate::validate::jsonld::loader;
use crate::{Document, Error, Result};

/// The document as N-Quads, one statement per line, sorted.
pub fn nquads(doc: &Document) -> Result<String> {
    let value = serde_json::to_value(doc).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let input = RemoteDocument::new(None, None, LdValue::from_serde_json(value));
    let loader = loader();
    let mut rdf =
        futures::executor::block_on(input.to_rdf(Blank::new(), &loader)).map_err(|e| {
            Error::InvalidArgument(format!("the document does not expand as JSON-LD: {e}"))
        })?;
    let mut lines: Vec<String> = rdf.cloned_quads().map(|q| format!("{q} .")).collect();
    lines.sort_unstable();
    lines.dedup();
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}
