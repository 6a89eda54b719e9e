use super::{encoded, index_needs_packed, write_options};
use crate::cli::ConvertArgs;
use crate::io::Context;
use crate::io::{is_stdio, load, load_bytes, read_input, write_output, write_output_with};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    index_needs_packed(args.index, &args.encode)?;
    // A file is read without holding its bytes (a packed one a section at a time); it
    // is read again only to be converted as read. Stdin's bytes are kept for that.
    let loaded = if is_stdio(&args.input) {
        let bytes = read_input(&args.input)?;
        match load_bytes(&bytes, ctx) {
            Ok(loaded) => loaded,
            Err(e) => return as_read(&bytes, args, ctx, e),
        }
    } else {
        match load(&args.input, ctx) {
            Ok(loaded) => loaded,
            Err(e) if e.code() == AS_READ => {
                return as_read(&read_input(&args.input)?, args, ctx, e)
            }
            Err(e) => return Err(e.into()),
        }
    };
    // Plain JSON is written as it is serialised: its text is never held whole.
    if write_options(&args.encode)?.encoding == smg_format::Encoding::Json && !args.index {
        write_output_with(&args.output, |sink| {
            smg_format::codec::write_canonical_json(loaded.doc, sink)
        })?;
        return Ok(Outcome::Success);
    }
    write_output(
        &args.output,
        &encoded(loaded.doc, &args.encode, args.index, ctx)?,
    )?;
    Ok(Outcome::Success)
}

/// The code of a value the typed model refuses, which [`as_read`] converts anyway.
const AS_READ: &str = "SMG-E012";

/// A file whose values the typed model refuses (a turn's role `""`: `SMG-E012`) is
/// re-encoded from its JSON as it is, so that it can be converted to JSON and mended
/// by hand; the packed layout and the search index need the typed model.
fn as_read(
    bytes: &[u8],
    args: &ConvertArgs,
    ctx: &Context,
    refused: smg_format::Error,
) -> Result<Outcome, smg_engine::Error> {
    let options = write_options(&args.encode)?;
    let plain = !smg_format::crypto::is_encrypted(bytes)
        && options.encoding != smg_format::Encoding::Packed
        && !args.index;
    if refused.code() != AS_READ || !plain {
        return Err(refused.into());
    }
    let Ok((_, json)) = smg_format::codec::decode_json(bytes, &ctx.limits) else {
        return Err(refused.into());
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&json) else {
        return Err(refused.into());
    };
    let canonical = smg_format::codec::to_canonical_json_value(&value);
    write_output(
        &args.output,
        &smg_format::envelope::encode(&canonical, &options)?,
    )?;
    eprintln!("smg: warning: converted as read, without the typed model: {refused}");
    Ok(Outcome::Success)
}
