//! One module per subcommand; each is a thin layer over the library.

mod archive;
mod convert;
mod info;
mod init;
mod validate;
mod vault;

use smg_format::{Error, Limits};

use crate::cli::{Cli, Command, EncodeArgs, EncodingArg, LayoutArg};
use crate::Outcome;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Error> {
    let limits = Limits::default().with_max_bytes(cli.global.max_bytes);
    match cli.command {
        Command::Init(a) => init::run(&a),
        Command::Info(a) => info::run(&a, &limits),
        Command::Cat(a) => info::cat(&a, &limits),
        Command::Convert(a) => convert::run(&a, &limits),
        Command::Validate(a) => validate::run(&a, &limits),
        Command::Vault(c) => vault::run(c, &limits),
        Command::Archive(c) => archive::run(c, &limits),
    }
}

fn write_options(args: &EncodeArgs) -> Result<smg_format::WriteOptions, Error> {
    let encoding = match (args.layout, args.encoding) {
        (LayoutArg::Packed, Some(_)) => {
            return Err(Error::InvalidArgument(
                "--layout packed has its own encoding; leave out --encoding".into(),
            ))
        }
        (LayoutArg::Packed, None) => smg_format::Encoding::Packed,
        (LayoutArg::Json, e) => e.unwrap_or(EncodingArg::Brotli).into(),
    };
    let options = smg_format::WriteOptions::new(encoding);
    Ok(match args.level {
        Some(level) => options.with_level(level),
        None => options,
    })
}

/// Options that write a document back in the encoding it was read in.
fn same_encoding(found: smg_format::Encoding) -> smg_format::WriteOptions {
    let encoding = match found {
        smg_format::Encoding::ZstdFrame => smg_format::Encoding::Zstd,
        other => other,
    };
    smg_format::WriteOptions::new(encoding)
}
