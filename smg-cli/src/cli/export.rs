//! `smg export`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Formats `smg export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// The MCP memory server's JSON Lines (entities, observations, relations).
    McpMemory,
    /// One readable document: summary, decisions, memories, entities, artifacts, timeline.
    Markdown,
    /// ChatGPT's conversations.json (conversations a ChatGPT export gave come back equal).
    Chatgpt,
    /// Claude.ai's conversations.json (conversations a Claude export gave come back equal).
    Claude,
    /// A Letta Agent File, .af (a Letta file's agents come back equal; any other memory
    /// becomes one agent with its working memory as core memory blocks).
    Letta,
    /// RDF N-Quads of the JSON-LD document, for triple stores.
    JsonldNquads,
}

/// `smg export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The memory file (`-` for stdin).
    pub(crate) file: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    pub(crate) to: ExportFormat,
    /// Where to write (`-` for stdout, the default).
    #[arg(short, long, default_value = "-")]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    /// Print what was written and what was left out as JSON (on stderr when the
    /// export goes to stdout).
    #[arg(long)]
    pub(crate) json: bool,
}

/// `smg view`.
#[derive(Debug, Args)]
pub(crate) struct ViewArgs {
    /// The memory file (`-` for stdin).
    pub(crate) file: PathBuf,
    /// Where to write the page (`-` for stdout); default: FILE with `.html`.
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Measure freshness at this time (RFC 3339); default: the memory's last change.
    #[arg(long)]
    pub(crate) at: Option<String>,
    /// Nodes the graph shows at first, the most important (the page's "show more"
    /// adds as many again; search reaches every node).
    #[arg(long, default_value_t = smg_view::DEFAULT_SHOWN)]
    pub(crate) shown: usize,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    #[command(flatten)]
    pub(crate) links: crate::cli::LinksArg,
    /// Print what the page holds as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `smg mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The memory file (`smg init FILE` makes an empty one).
    pub(crate) file: PathBuf,
    /// Refuse the six writing tools (create_*, add_observations, delete_*).
    #[arg(long)]
    pub(crate) read_only: bool,
    /// Answer read_graph, search_nodes and open_nodes whole, in graph order, exactly as
    /// the reference server does (by default an answer holds at most 50 entities and
    /// 64,000 characters, the best first, and says how to get the next page).
    #[arg(long)]
    pub(crate) unbounded: bool,
    #[command(flatten)]
    pub(crate) sealed: crate::cli::SealedArg,
    #[command(flatten)]
    pub(crate) links: crate::cli::LinksArg,
    #[command(flatten)]
    pub(crate) model: crate::cli::ModelArg,
    #[command(flatten)]
    pub(crate) tokenizer: crate::cli::TokenizerArg,
}
