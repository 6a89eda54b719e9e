//! RDF N-Quads of a memory, for triple stores: the whole document through JSON-LD
//! expansion with the bundled context ([`smg_format::rdf::nquads`]).

use smg_format::Document;

use super::Export;
use crate::error::Result;

/// The memory as N-Quads. Archive blocks stay compressed literals (their turns are not
/// statements of their own), and that is said.
pub fn nquads(doc: &Document) -> Result<Export> {
    let text = smg_format::rdf::nquads(doc)?;
    let mut left_out = Vec::new();
    let blocks = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.blocks.as_ref())
        .map_or(0, Vec::len);
    if blocks > 0 {
        left_out.push((
            format!("the turns of {blocks} archive blocks"),
            "each block is one compressed literal: export conversations as chatgpt or claude to read them".into(),
        ));
    }
    Ok(Export {
        entities: text.lines().count(),
        text,
        left_out,
        ..Export::default()
    })
}
