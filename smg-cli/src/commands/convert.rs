use smg_format::{Error, Limits};

use super::write_options;
use crate::cli::ConvertArgs;
use crate::io::{read_document, write_output};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, limits: &Limits) -> Result<Outcome, Error> {
    let (doc, _) = read_document(&args.input, limits)?;
    let bytes = smg_format::to_bytes(&doc, &write_options(&args.encode)?)?;
    write_output(&args.output, &bytes)?;
    Ok(Outcome::Success)
}
