//! One module per subcommand; each is a thin layer over the library.

mod convert;
mod info;
mod init;
mod validate;

use smg_format::{Error, Limits};

use crate::cli::{Cli, Command, EncodeArgs};
use crate::Outcome;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Error> {
    let limits = Limits::default().with_max_bytes(cli.global.max_bytes);
    match cli.command {
        Command::Init(a) => init::run(&a),
        Command::Info(a) => info::run(&a, &limits),
        Command::Cat(a) => info::cat(&a, &limits),
        Command::Convert(a) => convert::run(&a, &limits),
        Command::Validate(a) => validate::run(&a, &limits),
    }
}

fn write_options(args: &EncodeArgs) -> smg_format::WriteOptions {
    let options = smg_format::WriteOptions::new(args.encoding.into());
    match args.level {
        Some(level) => options.with_level(level),
        None => options,
    }
}
