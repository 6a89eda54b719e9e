//! `smg neo4j`: the bridge to Neo4j (and FalkorDB) over Bolt.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::KnowledgeTier;

/// `smg neo4j …`.
#[derive(Debug, Subcommand)]
pub(crate) enum Neo4jCommand {
    /// Print the constraints and indexes the bridge uses (idempotent in the neo4j
    /// dialect); with --uri, create the missing ones on the server.
    Schema(SchemaArgs),
    /// Write a Cypher script that stores the memory (for `cypher-shell`): MERGE in
    /// UNWIND batches, idempotent, no parameters.
    Export(Neo4jExportArgs),
    /// Make the database's copy of the memory equal to the file: changed nodes and
    /// relationships written, deleted and tombstoned ones removed, batch by batch.
    Push(PushArgs),
    /// Read a memory's tiers back. Into an existing file they replace its tiers and
    /// keep the rest (vault, archive, working memory); otherwise a new file.
    Pull(PullArgs),
}

/// Cypher dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DialectArg {
    /// Neo4j 5.
    Neo4j,
    /// FalkorDB (no constraints, no IF NOT EXISTS, no 64-bit vector index).
    Falkordb,
}

/// Where the server is and how to log in. The password comes from NEO4J_PASSWORD or
/// --password-file (the user from NEO4J_USERNAME, default neo4j), never from the
/// command line; without one the connection uses no authentication.
#[derive(Debug, Args)]
pub(crate) struct ServerArgs {
    /// bolt://HOST:PORT, bolt+s://HOST:PORT (TLS), or neo4j:// and neo4j+s:// (one
    /// server, no cluster routing).
    #[arg(long)]
    pub(crate) uri: String,
    /// The database (default: the server's).
    #[arg(long)]
    pub(crate) database: Option<String>,
    /// A file whose first line is the password.
    #[arg(long, value_name = "FILE")]
    pub(crate) password_file: Option<PathBuf>,
    /// Certificate authorities (PEM) to trust for bolt+s besides the public ones.
    #[arg(long, value_name = "FILE")]
    pub(crate) ca_file: Option<PathBuf>,
    /// Seconds to wait for the connection.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub(crate) connect_timeout: f64,
    /// Seconds to wait for each answer of the server.
    #[arg(long, default_value_t = 120.0, value_name = "SECS")]
    pub(crate) timeout: f64,
    /// The server's Cypher dialect.
    #[arg(long, value_enum, default_value_t = DialectArg::Neo4j)]
    pub(crate) dialect: DialectArg,
}

/// `smg neo4j schema`.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The Cypher dialect to print.
    #[arg(long, value_enum, default_value_t = DialectArg::Neo4j)]
    pub(crate) dialect: DialectArg,
    /// Also a vector index per tier for embeddings of this many dimensions.
    #[arg(long, value_name = "N")]
    pub(crate) dimensions: Option<u64>,
    /// Create them on this server (bolt://HOST:PORT) instead of printing them.
    #[arg(long)]
    pub(crate) uri: Option<String>,
    /// The database (with --uri).
    #[arg(long)]
    pub(crate) database: Option<String>,
}

/// Which memory and tiers.
#[derive(Debug, Args)]
pub(crate) struct SliceArgs {
    /// The memory's name in the database. Default: the file's metadata id, else its
    /// file name without extension (push, export); the only memory there (pull).
    #[arg(long)]
    pub(crate) memory: Option<String>,
    /// Tiers, comma-separated (default: all four).
    #[arg(long = "tier", value_enum, value_delimiter = ',')]
    pub(crate) tiers: Vec<KnowledgeTier>,
}

/// `smg neo4j export`.
#[derive(Debug, Args)]
pub(crate) struct Neo4jExportArgs {
    /// The memory file (`-` for stdin).
    pub(crate) file: PathBuf,
    /// Where to write the script (`-` for stdout, the default).
    #[arg(short, long, default_value = "-")]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) slice: SliceArgs,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    /// The Cypher dialect.
    #[arg(long, value_enum, default_value_t = DialectArg::Neo4j)]
    pub(crate) dialect: DialectArg,
}

/// `smg neo4j push`.
#[derive(Debug, Args)]
pub(crate) struct PushArgs {
    /// The memory file (`-` for stdin, with --memory).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) server: ServerArgs,
    #[command(flatten)]
    pub(crate) slice: SliceArgs,
    /// Rows per batch (each batch is one transaction).
    #[arg(long, default_value_t = 1000)]
    pub(crate) batch: usize,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `smg neo4j pull`.
#[derive(Debug, Args)]
pub(crate) struct PullArgs {
    #[command(flatten)]
    pub(crate) server: ServerArgs,
    #[command(flatten)]
    pub(crate) slice: SliceArgs,
    /// The file to write (`-` for stdout). An existing file gets the pulled tiers in
    /// place of its own, and keeps everything else; a tier sealed in it is left as it
    /// is unless its passphrase is given (then it is pulled and sealed again).
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    /// The creation time of a new file's metadata when the database has none (RFC 3339;
    /// default now).
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
