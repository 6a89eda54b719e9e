use smg_engine::search::{Retriever, EXTENSION};
use smg_format::Error;

use super::write_options;
use super::Context;
use crate::cli::{ConvertArgs, LayoutArg};
use crate::io::{load, write_output};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    if args.index && args.encode.layout != LayoutArg::Packed {
        return Err(Error::InvalidArgument(
            "--index stores the search index in the packed layout: add --layout packed".into(),
        )
        .into());
    }
    let doc = load(&args.input, ctx)?.doc;
    // The index is made from the document in hand, as `smg ingest --index` makes it.
    let index = if args.index {
        Some(Retriever::new(&doc, &ctx.limits)?.index_bytes()?)
    } else {
        None
    };
    let mut bytes = smg_format::into_bytes(doc, &write_options(&args.encode)?)?;
    if let Some(index) = index {
        bytes = smg_format::with_extension(&bytes, EXTENSION, &index)?;
    }
    write_output(&args.output, &bytes)?;
    Ok(Outcome::Success)
}
