use smg_format::Error;

use crate::cli::{EncryptArgs, InOut, RekeyArgs, SealArgs, UnsealArgs};
use crate::io::Context;
use std::path::Path;

use crate::commands::merge::load_indexed;
use crate::io::{load, read_input, save_indexed, save_like, write_output, write_stdout};
use crate::secret::other_passphrase;
use crate::Outcome;

/// The input must be a readable, unencrypted .smg file: encrypting garbage or
/// encrypting twice is refused before anything is written.
pub(crate) fn encrypt(args: &EncryptArgs, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.files.input)?;
    if smg_format::crypto::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument(
            "the file is already encrypted (use `smg rekey` to change its passphrase)".into(),
        ));
    }
    smg_format::codec::check_bytes(&bytes, &ctx.limits)?;
    let pass = ctx.secrets.get_new()?;
    write_output(
        &args.files.output,
        &smg_format::crypto::encrypt(&bytes, &pass, args.iterations)?,
    )?;
    Ok(Outcome::Success)
}

pub(crate) fn decrypt(args: &InOut, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.input)?;
    if !smg_format::crypto::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument("the file is not encrypted".into()));
    }
    let inner = smg_format::crypto::decrypt(&bytes, &ctx.secrets.get()?, &ctx.limits)?;
    write_output(&args.output, &inner)?;
    Ok(Outcome::Success)
}

pub(crate) fn rekey(args: &RekeyArgs, ctx: &Context) -> Result<Outcome, Error> {
    let bytes = read_input(&args.file)?;
    if !smg_format::crypto::is_encrypted(&bytes) {
        return Err(Error::InvalidArgument(
            "the file is not encrypted (use `smg encrypt`)".into(),
        ));
    }
    let iterations = args
        .iterations
        .unwrap_or(smg_format::crypto::encrypted_iterations(&bytes)?);
    let inner = smg_format::crypto::decrypt(&bytes, &ctx.secrets.get()?, &ctx.limits)?;
    let new = other_passphrase(
        args.new_passphrase_file.as_deref(),
        "SMG_NEW_PASSPHRASE",
        true,
    )?;
    let out = args.output.as_ref().unwrap_or(&args.file);
    write_output(out, &smg_format::crypto::encrypt(&inner, &new, iterations)?)?;
    Ok(Outcome::Success)
}

fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

pub(crate) fn keygen(output: &Path) -> Result<Outcome, Error> {
    let public_path = {
        let mut p = output.as_os_str().to_owned();
        p.push(".pub");
        std::path::PathBuf::from(p)
    };
    for p in [output, public_path.as_path()] {
        if p.exists() {
            return Err(Error::InvalidArgument(format!(
                "{} exists; refusing to overwrite a key",
                p.display()
            )));
        }
    }
    let (secret, public) = smg_format::sign::generate_key()?;
    write_private(output, secret.as_bytes())?;
    write_output(&public_path, public.as_bytes())?;
    eprintln!(
        "secret key: {}\npublic key: {}",
        output.display(),
        public_path.display()
    );
    Ok(Outcome::Success)
}

/// Create the secret key file readable by its owner only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(path).map_err(io)?;
    f.write_all(bytes).and_then(|_| f.sync_all()).map_err(io)
}

pub(crate) fn sign(
    file: &Path,
    key: &Path,
    output: Option<&Path>,
    ctx: &Context,
) -> Result<Outcome, Error> {
    let mut loaded = load(file, ctx)?;
    let now = smg_format::model::Timestamp::now();
    let secret = zeroize::Zeroizing::new(read_text(key)?);
    smg_format::sign::sign(&mut loaded.doc, &secret, &now)?;
    save_like(output.unwrap_or(file), loaded)?;
    Ok(Outcome::Success)
}

pub(crate) fn verify(
    file: &Path,
    public_key: Option<&Path>,
    ctx: &Context,
) -> Result<Outcome, Error> {
    let doc = load(file, ctx)?.doc;
    let public = public_key.map(read_text).transpose()?;
    let v = smg_format::sign::verify(&doc, public.as_deref())?;
    let origin = if public.is_some() {
        "signed by the given key"
    } else {
        "intact; signer not checked (no --public-key)"
    };
    write_stdout(
        format!(
            "good signature: {origin}, key {}, signed {}\n",
            v.public_key, v.signed
        )
        .as_bytes(),
    )?;
    Ok(Outcome::Success)
}

/// Sealing and unsealing keep a stored search index, made again for what is readable
/// now: an index of sealed turns would give their words away.
pub(crate) fn seal(args: &SealArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let (mut loaded, indexed) = load_indexed(&args.file, ctx)?;
    let target = match (&args.collaborator, args.tier) {
        (Some(c), None) => smg_format::seal::SealTarget::Collaborator(c),
        (None, Some(t)) => smg_format::seal::SealTarget::Tier(t.into()),
        _ => {
            let why = "give exactly one of --collaborator and --tier".into();
            return Err(Error::InvalidArgument(why).into());
        }
    };
    let pass = other_passphrase(
        args.seal_passphrase_file.as_deref(),
        "SMG_SEAL_PASSPHRASE",
        true,
    )?;
    let id = smg_format::seal::seal(&mut loaded.doc, target, &pass, args.iterations)?;
    let out = args.output.as_deref().unwrap_or(&args.file);
    save_indexed(out, loaded, indexed, &ctx.limits)?;
    eprintln!("sealed {id}");
    Ok(Outcome::Success)
}

pub(crate) fn unseal(args: &UnsealArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let (mut loaded, indexed) = load_indexed(&args.file, ctx)?;
    let pass = other_passphrase(
        args.seal_passphrase_file.as_deref(),
        "SMG_SEAL_PASSPHRASE",
        false,
    )?;
    smg_format::seal::unseal(&mut loaded.doc, &args.section, &pass)?;
    let out = args.output.as_deref().unwrap_or(&args.file);
    save_indexed(out, loaded, indexed, &ctx.limits)?;
    Ok(Outcome::Success)
}
