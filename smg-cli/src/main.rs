//! `smg`: the command-line tool over the smg-format and smg-engine crates.
#![forbid(unsafe_code)]

mod cli;
mod commands;
mod failure;
mod io;
mod secret;

use std::process::ExitCode;

use clap::Parser;

pub(crate) use failure::Failure;

// Ingest allocates and frees hundreds of megabytes from several threads. jemalloc, with
// the purging configured in .cargo/config.toml, hands freed pages back, so peak memory
// tracks what is live; mimalloc and glibc kept 1.7–2× the live peak resident.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// How a command ended, mapped to the documented exit codes.
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: some input is invalid (already reported).
    Invalid,
    /// Exit 2: some input could not be read (already reported).
    Unreadable,
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid) => ExitCode::from(1),
        Ok(Outcome::Unreadable) => ExitCode::from(2),
        Err(e) => {
            eprintln!("smg: error[{}]: {e}", e.code());
            ExitCode::from(if e.is_io() { 2 } else { 1 })
        }
    }
}
