use super::{encoded, index_needs_packed, write_options};
use crate::cli::ConvertArgs;
use crate::io::Context;
use crate::io::{load_bytes, read_input, write_output};
use crate::Outcome;

pub(crate) fn run(args: &ConvertArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    index_needs_packed(args.index, &args.encode)?;
    let bytes = read_input(&args.input)?;
    let doc = match load_bytes(&bytes, ctx) {
        Ok(loaded) => loaded.doc,
        Err(e) => return as_read(&bytes, args, ctx, e),
    };
    write_output(&args.output, &encoded(doc, &args.encode, args.index, ctx)?)?;
    Ok(Outcome::Success)
}

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
    if refused.code() != "SMG-E012" || !plain {
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
