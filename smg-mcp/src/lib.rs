//! `smg mcp`: a `.smg` memory served over the Model Context Protocol on stdin/stdout.
//!
//! - The official MCP memory server's nine tools, same names and argument shapes, so
//!   that `smg mcp` replaces it: `create_entities`, `create_relations`,
//!   `add_observations`, `delete_entities`, `delete_observations`, `delete_relations`,
//!   `read_graph`, `search_nodes`, `open_nodes` — over the memory's semantic graph
//!   ([`smg_engine::mcp`]), every write validated, written atomically under the file's
//!   write lock and durable before the reply.
//! - smg's own: `search_memory` (hybrid search of turns and nodes), `get_context` (the
//!   text `smg context` prints, within a token budget), `expand_segment`, `query` (FIND).
//! - The M3S tier searches: `search_conversation_memory`,
//!   `search_departmental_knowledge`, `search_global_knowledge`, `intelligent_search`.
//! - The working memory (summary, goals) as the resource `smg://working-memory`.
//!
//! Links to other memory files (spec §4.1) are followed by the search tools, as `smg
//! search` follows them ([`Options::follow_links`]); linked files are read when the
//! memory is first searched and again after it changes.
//!
//! Another writer of the file (a CLI command, another server) is seen at the next call:
//! the file is read again when it changed. `read_only` refuses the six writing tools.
//! Sealed sections stay sealed and unseen unless the server is given their passphrase
//! ([`Options::seal_passphrase`]); then they are open in memory only, and sealed again
//! in every write.
//!
//! ```
//! let tools = smg_mcp::tool_names();
//! assert_eq!(tools.len(), 17);
//! assert!(tools.iter().any(|t| t == "search_nodes"));
//! ```

#![forbid(unsafe_code)]

mod error;
mod links;
mod store;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use smg_engine::search::{QueryVector, Tokens};
use smg_format::limits::Limits;
use zeroize::Zeroizing;

pub use error::Error;
pub use links::LinkPassphrases;

/// How the server opens and writes its memory.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The memory file (it must exist: `smg init` makes an empty one).
    pub path: PathBuf,
    /// The passphrase of an encrypted file.
    pub passphrase: Option<Zeroizing<Vec<u8>>>,
    /// The passphrase of sealed sections the server may read: they are opened in
    /// memory, and sealed again in every write.
    pub seal_passphrase: Option<Zeroizing<Vec<u8>>>,
    /// Refuse the writing tools.
    pub read_only: bool,
    /// Answer `read_graph`, `search_nodes` and `open_nodes` whole, in graph order, as
    /// the reference server does, rather than a page at a time within 64,000
    /// characters.
    pub unbounded: bool,
    /// Limits for reading the file.
    pub limits: Limits,
    /// How long a write waits for another writer of the file.
    pub wait: Duration,
    /// Embeds queries, so that search and context fuse meaning with words (the
    /// memory's vectors must come from the same model).
    pub embedder: Option<QueryEmbedder>,
    /// How `get_context` counts its budget's tokens (default: characters / 4).
    pub tokens: Tokens,
    /// Follow the memory's links (spec §4.1; default): `search_memory`, `get_context`,
    /// `expand_segment` and `search_conversation_memory` answer from the memory and
    /// every file its links reach, each result naming its file. The graph tools serve
    /// (and write) the memory's own graph.
    pub follow_links: bool,
    /// The passphrases of encrypted linked files, by link name.
    pub link_passphrases: Option<LinkPassphrases>,
}

/// A query embedder: the text of a query to its vector, under the model's name.
#[derive(Clone)]
pub struct QueryEmbedder(Arc<Embed>);

/// What a [`QueryEmbedder`] calls.
type Embed = dyn Fn(&str) -> smg_engine::Result<QueryVector> + Send + Sync;

impl QueryEmbedder {
    /// An embedder calling `embed` for each query.
    pub fn new(
        embed: impl Fn(&str) -> smg_engine::Result<QueryVector> + Send + Sync + 'static,
    ) -> Self {
        QueryEmbedder(Arc::new(embed))
    }

    pub(crate) fn embed(&self, query: &str) -> smg_engine::Result<QueryVector> {
        (self.0)(query)
    }
}

impl std::fmt::Debug for QueryEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QueryEmbedder")
    }
}

impl Options {
    /// Serve `path` with default limits, read-write, waiting up to 5 s for the lock.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Options {
            path: path.into(),
            passphrase: None,
            seal_passphrase: None,
            read_only: false,
            unbounded: false,
            limits: Limits::default(),
            wait: Duration::from_secs(5),
            embedder: None,
            tokens: Tokens::default(),
            follow_links: true,
            link_passphrases: None,
        }
    }

    /// Options following the memory's links (or not): [`Options::follow_links`].
    pub fn follow_links(mut self, follow: bool) -> Self {
        self.follow_links = follow;
        self
    }

    /// Options opening encrypted linked files with `passphrases`.
    pub fn link_passphrases(mut self, passphrases: LinkPassphrases) -> Self {
        self.link_passphrases = Some(passphrases);
        self
    }

    /// Options with the passphrase of an encrypted file.
    pub fn passphrase(mut self, passphrase: Zeroizing<Vec<u8>>) -> Self {
        self.passphrase = Some(passphrase);
        self
    }

    /// Options opening, in memory, the sealed sections `passphrase` opens (a wrong one
    /// fails [`serve_stdio`] with `SMG-E141`).
    pub fn seal_passphrase(mut self, passphrase: Zeroizing<Vec<u8>>) -> Self {
        self.seal_passphrase = Some(passphrase);
        self
    }

    /// Options refusing (or not) the writing tools.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Options answering reads whole (or a page at a time): [`Options::unbounded`].
    pub fn unbounded(mut self, unbounded: bool) -> Self {
        self.unbounded = unbounded;
        self
    }

    /// Options reading under `limits`.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Options embedding queries with `embedder`.
    pub fn embedder(mut self, embedder: QueryEmbedder) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Options counting context tokens with `tokens`.
    pub fn tokens(mut self, tokens: Tokens) -> Self {
        self.tokens = tokens;
        self
    }

    /// Options waiting up to `wait` for another writer.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }
}

/// Open the memory, then serve MCP on stdin/stdout until the client closes stdin.
/// A memory that cannot be read fails here, before the first message.
pub fn serve_stdio(options: Options) -> Result<(), Error> {
    let store = store::Store::open(options)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Transport(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        use rmcp::ServiceExt;
        let server = tools::Server::new(store)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Transport(e.to_string()))?;
        server
            .waiting()
            .await
            .map_err(|e| Error::Transport(e.to_string()))?;
        Ok(())
    })
}

/// The names of the tools the server offers, in the order it lists them.
pub fn tool_names() -> Vec<String> {
    tools::Server::names()
}
