//! Arguments of the checkpoint commands: `diff` (and `--delta`), `merge`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The earlier file (`-` for stdin).
    pub(crate) a: PathBuf,
    /// The later file.
    pub(crate) b: PathBuf,
    /// JSON output.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only counts.
    #[arg(long, conflicts_with_all = ["json", "delta"])]
    pub(crate) stat: bool,
    /// Write a delta file that rebuilds B from A byte for byte (`smg apply`).
    #[arg(long, requires = "output")]
    pub(crate) delta: bool,
    /// Where to write the delta (`-` for stdout); written atomically.
    #[arg(short, long, requires = "delta")]
    pub(crate) output: Option<PathBuf>,
    /// Zstandard level of the delta (1–22).
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22), requires = "delta")]
    pub(crate) level: i32,
}

/// Which side wins merge conflicts.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PreferArg {
    /// OURS, the first changed file.
    Ours,
    /// THEIRS, the second changed file.
    Theirs,
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The common ancestor.
    pub(crate) base: PathBuf,
    /// One changed file; the output takes its encoding.
    pub(crate) ours: PathBuf,
    /// The other changed file.
    pub(crate) theirs: PathBuf,
    /// Where to write the merge (`-` for stdout); written atomically.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// Settle every conflict with this side's value.
    #[arg(long, value_enum)]
    pub(crate) prefer: Option<PreferArg>,
    /// Print the report (conflicts, renumbered turns) as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
