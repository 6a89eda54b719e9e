//! Command-line definitions (clap): every flag, its help, and the exit codes.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0  success (for validate: every file is valid; warnings allowed)
  1  invalid input: a file's content is malformed or fails validation
  2  a file could not be read or written at all, or the command line is wrong";

/// smg — build, inspect, convert and validate .smg memory files.
#[derive(Debug, Parser)]
#[command(name = "smg", version, about, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    #[command(flatten)]
    pub(crate) global: Global,
}

#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Largest decompressed size accepted, in bytes (guards against decompression bombs).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = smg_format::Limits::DEFAULT_MAX_BYTES)]
    pub(crate) max_bytes: u64,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a new, empty memory file.
    #[command(after_help = EXIT_CODES)]
    Init(InitArgs),
    /// Show a file's encoding, version, counts and bytes per section.
    #[command(after_help = EXIT_CODES)]
    Info(InfoArgs),
    /// Print a file's document as canonical JSON (RFC 8785).
    #[command(after_help = EXIT_CODES)]
    Cat(CatArgs),
    /// Rewrite a file in another encoding, losslessly.
    #[command(after_help = EXIT_CODES)]
    Convert(ConvertArgs),
    /// Check files against the v1 spec: schema, references, hashes, blocks, JSON-LD.
    #[command(after_help = EXIT_CODES)]
    Validate(ValidateArgs),
}

/// File encodings smg writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EncodingArg {
    /// Plain JSON-LD text.
    Json,
    /// Brotli in the .smg envelope.
    Brotli,
    /// Zstandard in the .smg envelope.
    Zstd,
}

impl From<EncodingArg> for smg_format::Encoding {
    fn from(e: EncodingArg) -> Self {
        match e {
            EncodingArg::Json => smg_format::Encoding::Json,
            EncodingArg::Brotli => smg_format::Encoding::Brotli,
            EncodingArg::Zstd => smg_format::Encoding::Zstd,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct EncodeArgs {
    /// Encoding to write.
    #[arg(long, value_enum, default_value_t = EncodingArg::Brotli)]
    pub(crate) encoding: EncodingArg,
    /// Compression level (brotli 0-11, default 5; zstd 1-22, default 9).
    #[arg(long)]
    pub(crate) level: Option<i32>,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The file to create (`-` for stdout).
    pub(crate) file: PathBuf,
    /// Project name recorded in the metadata.
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Replace the file if it exists.
    #[arg(long)]
    pub(crate) force: bool,
    #[command(flatten)]
    pub(crate) encode: EncodeArgs,
}

#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The file to describe (`-` for stdin).
    pub(crate) file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CatArgs {
    /// The file to print (`-` for stdin).
    pub(crate) file: PathBuf,
    /// Indent for reading (keys stay sorted; the bytes are then not canonical).
    #[arg(long)]
    pub(crate) pretty: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The file to read (`-` for stdin).
    pub(crate) input: PathBuf,
    /// The file to write (`-` for stdout); written atomically.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) encode: EncodeArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Files or folders (folders are searched for *.smg files); `-` for stdin.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Print one JSON report for all files.
    #[arg(long)]
    pub(crate) json: bool,
    /// Skip the JSON-LD expansion check (faster on very large files).
    #[arg(long)]
    pub(crate) no_jsonld: bool,
}
