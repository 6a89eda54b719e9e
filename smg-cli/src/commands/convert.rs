use smg_format::Error;

use super::write_options;
use super::Context;
use crate::cli::ConvertArgs;
use crate::io::{load, write_output};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, ctx: &Context) -> Result<Outcome, Error> {
    let doc = load(&args.input, ctx)?.doc;
    let bytes = smg_format::to_bytes(&doc, &write_options(&args.encode)?)?;
    write_output(&args.output, &bytes)?;
    Ok(Outcome::Success)
}
