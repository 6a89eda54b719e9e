use super::{encoded, index_needs_packed};
use crate::cli::ConvertArgs;
use crate::io::Context;
use crate::io::{load, write_output};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    index_needs_packed(args.index, &args.encode)?;
    let doc = load(&args.input, ctx)?.doc;
    write_output(&args.output, &encoded(doc, &args.encode, args.index, ctx)?)?;
    Ok(Outcome::Success)
}
