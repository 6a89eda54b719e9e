use smg_format::Error;

use super::Context;
use crate::cli::{EncryptArgs, InOut, RekeyArgs};
use crate::io::{read_input, write_output};
use crate::secret::new_passphrase;
use crate::Outcome;

/// The input must be a readable, unencrypted .smg file: encrypting garbage or
/// encrypting twice is refused before anything is written.
pub(crate) fn encrypt(args: &EncryptArgs, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.files.input)?;
    if smg_format::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument(
            "the file is already encrypted (use `smg rekey` to change its passphrase)".into(),
        ));
    }
    smg_format::from_bytes(&bytes, &ctx.limits)?;
    let pass = ctx.secrets.get_new()?;
    write_output(
        &args.files.output,
        &smg_format::encrypt(&bytes, &pass, args.iterations)?,
    )?;
    Ok(Outcome::Success)
}

pub(crate) fn decrypt(args: &InOut, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.input)?;
    if !smg_format::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument("the file is not encrypted".into()));
    }
    let inner = smg_format::decrypt(&bytes, &ctx.secrets.get()?, &ctx.limits)?;
    write_output(&args.output, &inner)?;
    Ok(Outcome::Success)
}

pub(crate) fn rekey(args: &RekeyArgs, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.file)?;
    if !smg_format::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument(
            "the file is not encrypted (use `smg encrypt`)".into(),
        ));
    }
    let iterations = args
        .iterations
        .unwrap_or(smg_format::encrypted_iterations(&bytes)?);
    let inner = smg_format::decrypt(&bytes, &ctx.secrets.get()?, &ctx.limits)?;
    let new = new_passphrase(args.new_passphrase_file.as_deref())?;
    let out = args.output.as_ref().unwrap_or(&args.file);
    write_output(out, &smg_format::encrypt(&inner, &new, iterations)?)?;
    Ok(Outcome::Success)
}
