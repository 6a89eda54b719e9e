//! Arguments of ingest and retrieval: `ingest`, `search`, `context`, `bench`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::EncodeArgs;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["output", "append"]))]
pub(crate) struct IngestArgs {
    /// Transcripts or exports to read (`-` for stdin); with `--from git` or
    /// `--from markdown`, a repository or a folder.
    #[arg(required = true)]
    pub(crate) inputs: Vec<PathBuf>,
    /// Write a new memory file (`-` for stdout).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Add to this memory file instead: turns it already holds are skipped.
    #[arg(long, value_name = "FILE")]
    pub(crate) append: Option<PathBuf>,
    /// Input format.
    #[arg(long = "from", value_enum, default_value_t = FormatArg::Auto)]
    pub(crate) format: FormatArg,
    /// Fail on the first malformed record instead of skipping it.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Brotli quality of archive blocks (0-11) [default: 2, the fastest that compresses
    /// chat well; 5 or more for a smaller archive].
    #[arg(long = "block-level", value_name = "N")]
    pub(crate) block_level: Option<i32>,
    /// Store the search index in the file (a new file needs `--layout packed`; an
    /// appended one must be packed). Appending to a file that has a current index
    /// stores a new one without being asked.
    #[arg(long)]
    pub(crate) index: bool,
    /// Turns kept verbatim in working memory.
    #[arg(long, default_value_t = 8)]
    pub(crate) recent: usize,
    /// The scope of the conversations read: `restricted` for talk most readers must
    /// never see (it and all that is drawn from it can then be sealed whole with
    /// `smg seal --tier restricted`).
    #[arg(long, value_enum, default_value_t = ConversationScope::Personal)]
    pub(crate) scope: ConversationScope,
    /// A conversation (by its id in the input, as `smg scope list` shows it) whose
    /// talk is restricted; repeat for more. An id no input holds is an error.
    #[arg(long = "restricted-conversation", value_name = "ID")]
    pub(crate) restricted_conversations: Vec<String>,
    /// Embed every new turn and node with the model of --model (see `smg embed`).
    #[arg(long, requires = "model")]
    pub(crate) embed: bool,
    /// Replace credentials and personal data (the rules of `smg share`) everywhere in
    /// the memory before it is written: turns, source records, vault, graph. With
    /// --append, what the file held before is redacted too.
    #[arg(long)]
    pub(crate) redact: bool,
    #[command(flatten)]
    pub(crate) model: ModelArg,
    /// Append as one allowed to: the sealed sections this passphrase file (first
    /// line) opens are opened in memory, the talk added (restricted talk joins its
    /// sealed tier), and sealed again before the file is written.
    #[arg(
        long = "seal-passphrase-file",
        value_name = "PATH",
        requires = "append"
    )]
    pub(crate) seal_passphrase_file: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) encode: EncodeArgs,
}

/// Scopes of conversations (departmental and global knowledge is curated, with an
/// approver: `smg knowledge add`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConversationScope {
    /// One user's own memory (the default).
    Personal,
    /// Talk most readers must never see.
    Restricted,
}

impl From<ConversationScope> for smg_format::model::Scope {
    fn from(s: ConversationScope) -> Self {
        match s {
            ConversationScope::Personal => smg_format::model::Scope::Personal,
            ConversationScope::Restricted => smg_format::model::Scope::Restricted,
        }
    }
}

/// Input formats of `smg ingest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    /// Detect from the content.
    Auto,
    /// One JSON message per line (spec §16).
    Jsonl,
    /// ChatGPT data export (conversations.json).
    Chatgpt,
    /// Claude.ai data export (conversations.json).
    Claude,
    /// LoCoMo conversation file.
    Locomo,
    /// The MCP memory server's JSON Lines (entities, observations, relations).
    McpMemory,
    /// A Letta Agent File (.af): agents, messages, core memory blocks, tools.
    Letta,
    /// A git repository (its folder): commits as turns, changed text files' versions
    /// into the vault, the branch and latest commits as working memory.
    Git,
    /// A folder of Markdown documents (ADRs, incident reports, design notes): each a
    /// turn (its decisions found) and a vault document.
    Markdown,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The memory file.
    pub(crate) file: PathBuf,
    /// What to look for.
    pub(crate) query: String,
    /// How many results (turns and memory nodes).
    #[arg(short, default_value_t = 10)]
    pub(crate) k: usize,
    #[command(flatten)]
    pub(crate) period: PeriodArg,
    /// The query's embedding, `{"model": NAME, "vector": [...]}` (`-` for stdin), to
    /// search the file's embeddings of the same model as well (it wins over --model).
    #[arg(long, value_name = "FILE")]
    pub(crate) vector: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) model: ModelArg,
    /// Score every embedding against the query's: a file of 65,536 embeddings or
    /// more is otherwise first narrowed by their sign bits (faster, nearly always
    /// the same hits).
    #[arg(long)]
    pub(crate) exact: bool,
    #[command(flatten)]
    pub(crate) links: LinksArg,
    #[command(flatten)]
    pub(crate) sealed: SealedArg,
    /// Record the retrieval of the memory nodes (and segments) returned, in the file
    /// (rewritten under its lock): what reactivates them and feeds `smg curate`.
    #[arg(long, conflicts_with = "passphrase_file")]
    pub(crate) track: bool,
    /// Who retrieved them, for --track (a user or agent id).
    #[arg(long, value_name = "ID", requires = "track")]
    pub(crate) by: Option<String>,
    /// JSON output.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
    /// The memory file.
    pub(crate) file: PathBuf,
    /// What the prompt is about.
    pub(crate) query: String,
    /// Tokens the context may take, counted as --tokenizer says.
    #[arg(long, default_value_t = 8000)]
    pub(crate) budget: usize,
    /// Only turns of this span of time (working memory is the memory's present: its
    /// summary, goals and artifacts are kept).
    #[command(flatten)]
    pub(crate) period: PeriodArg,
    #[command(flatten)]
    pub(crate) tokenizer: TokenizerArg,
    #[command(flatten)]
    pub(crate) model: ModelArg,
    #[command(flatten)]
    pub(crate) links: LinksArg,
    #[command(flatten)]
    pub(crate) sealed: SealedArg,
    /// Record the retrieval of the memory nodes (and segments) returned, in the file
    /// (rewritten under its lock): what reactivates them and feeds `smg curate`.
    #[arg(long, conflicts_with = "passphrase_file")]
    pub(crate) track: bool,
    /// Who retrieved them, for --track (a user or agent id).
    #[arg(long, value_name = "ID", requires = "track")]
    pub(crate) by: Option<String>,
    /// JSON output (a context pack).
    #[arg(long)]
    pub(crate) json: bool,
}

/// `smg expand`.
#[derive(Debug, Args)]
pub(crate) struct ExpandArgs {
    /// The memory file.
    pub(crate) file: PathBuf,
    /// A segment id (`seg-…`).
    pub(crate) segment: String,
    /// The segment of the file this link reaches (as a search or context names it),
    /// rather than of the first file that has one of that id.
    #[arg(long, value_name = "NAME", conflicts_with = "no_links")]
    pub(crate) link: Option<String>,
    #[command(flatten)]
    pub(crate) links: LinksArg,
    #[command(flatten)]
    pub(crate) sealed: SealedArg,
    /// Record the retrieval of the memory nodes (and segments) returned, in the file
    /// (rewritten under its lock): what reactivates them and feeds `smg curate`.
    #[arg(long, conflicts_with = "passphrase_file")]
    pub(crate) track: bool,
    /// Who retrieved them, for --track (a user or agent id).
    #[arg(long, value_name = "ID", requires = "track")]
    pub(crate) by: Option<String>,
}

/// Whether and how links to other memory files are followed (spec §4.1).
#[derive(Debug, Args)]
pub(crate) struct LinksArg {
    /// This file alone: its links to other memory files are not followed.
    #[arg(long)]
    pub(crate) no_links: bool,
    /// The passphrase of the encrypted file the link NAME reaches, in FILE (first
    /// line); repeatable. Without it, the environment variable
    /// `SMG_LINK_PASSPHRASE_<NAME>` (NAME in capitals, other characters as _); an
    /// encrypted linked file with neither is left out with a warning.
    #[arg(long = "link-passphrase-file", value_name = "NAME=FILE")]
    pub(crate) passphrases: Vec<String>,
}

/// `--tokenizer`: how a context's tokens are counted.
#[derive(Debug, Args)]
pub(crate) struct TokenizerArg {
    /// How tokens are counted: characters / 4, or OpenAI's BPE (cl100k: GPT-4 and
    /// GPT-3.5; o200k: GPT-4o and later), exactly as the model will.
    #[arg(long = "tokenizer", value_enum, default_value_t = Tokenizer::Chars)]
    pub(crate) tokenizer: Tokenizer,
}

/// Token counters of `--tokenizer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Tokenizer {
    /// Characters / 4, rounded up (close to BPE on English prose).
    Chars,
    /// tiktoken's cl100k_base.
    Cl100k,
    /// tiktoken's o200k_base.
    O200k,
}

impl TokenizerArg {
    /// The counter it names.
    pub(crate) fn tokens(&self) -> smg_engine::search::Tokens {
        let name = match self.tokenizer {
            Tokenizer::Chars => return smg_engine::search::Tokens::Chars,
            Tokenizer::Cl100k => "cl100k",
            Tokenizer::O200k => "o200k",
        };
        smg_embed::bpe::tokens(name).unwrap_or_default()
    }
}

/// `--model DIR`: the sentence-embedding model.
#[derive(Debug, Args)]
pub(crate) struct SealedArg {
    /// Read as one allowed to: open the file's sealed sections that the passphrase in
    /// this file (first line) opens, in memory only; the file stays sealed (a command
    /// that writes seals them again first).
    #[arg(long = "seal-passphrase-file", value_name = "PATH")]
    pub(crate) passphrase_file: Option<PathBuf>,
}

impl SealedArg {
    /// Open in `doc`, in memory, the sealed sections the passphrase opens (none
    /// without one): what was opened and the passphrase, for an authorised writer to
    /// seal them again before writing.
    pub(crate) fn open(
        &self,
        doc: &mut smg_format::Document,
    ) -> Result<Option<(smg_format::seal::Opened, crate::secret::Secret)>, smg_format::Error> {
        let Some(pass) = self.passphrase()? else {
            return Ok(None);
        };
        let opened = smg_format::seal::unseal_all(doc, &pass)?;
        Ok(Some((opened, pass)))
    }

    /// The passphrase in the file given, if one is.
    pub(crate) fn passphrase(&self) -> Result<Option<crate::secret::Secret>, smg_format::Error> {
        let file = self.passphrase_file.as_deref();
        file.map(|f| crate::secret::other_passphrase(Some(f), "SMG_SEAL_PASSPHRASE", false))
            .transpose()
    }
}

#[derive(Debug, Args)]
pub(crate) struct PeriodArg {
    /// Only what was said at this time or later: turns by their time, memory nodes by
    /// their timestamp (what has no time is left out). A date (2023-05-08, its
    /// midnight UTC) or an RFC 3339 date-time.
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<String>,
    /// Only what was said before this time; a date means through the end of that day.
    #[arg(long, value_name = "TIME")]
    pub(crate) until: Option<String>,
}

impl PeriodArg {
    /// The period it names (`SMG-E020` for a time that is none, or an empty period).
    pub(crate) fn period(&self) -> Result<smg_engine::search::Period, smg_engine::Error> {
        smg_engine::search::Period::parse(self.since.as_deref(), self.until.as_deref())
    }
}

#[derive(Debug, Args)]
pub(crate) struct ModelArg {
    /// A sentence-embedding model's folder (config.json, model.safetensors,
    /// tokenizer.json; all-MiniLM-L6-v2 as sentence-transformers saves it): the
    /// query is embedded with it and meaning joins the words. Nothing is downloaded.
    #[arg(id = "model", long = "model", value_name = "DIR", env = "SMG_MODEL")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Retrieval on LoCoMo files: R@5/10/20, Rtok500/1000/2000, latency.
    Locomo {
        /// A folder of LoCoMo `*.json` files.
        dir: PathBuf,
        /// Curate each memory at this time (RFC 3339) before asking it.
        #[arg(long, value_name = "TIME")]
        curate_at: Option<String>,
        #[command(flatten)]
        model: ModelArg,
        #[command(flatten)]
        tokenizer: TokenizerArg,
        /// JSON output.
        #[arg(long)]
        json: bool,
        /// Write each question's outcome here as a JSON line (`-`: standard output,
        /// the summary then going to standard error): where its evidence ranked by
        /// the mix, by words alone and by meaning alone, and how many turns each
        /// context showed (`bench/locomo-ceiling.py` reads it).
        #[arg(long, value_name = "FILE")]
        questions: Option<PathBuf>,
        /// For each conversation, how meaning joins words (the share of meaning,
        /// the word matches kept whole) chosen on the other conversations and
        /// measured on it, beside words alone: the folds and their mean. Needs
        /// --model and two files at least.
        #[arg(long, conflicts_with = "questions")]
        leave_one_out: bool,
    },
}

/// `smg embed`.
#[derive(Debug, Args)]
pub(crate) struct EmbedArgs {
    /// The memory file: every turn and node without an embedding gets one (written
    /// back in place; a search index it has is made again).
    #[arg(required_unless_present = "query")]
    pub(crate) file: Option<PathBuf>,
    /// Print this text's embedding instead, as `{"model": NAME, "vector": [...]}`
    /// (what `smg search --vector` reads).
    #[arg(long, value_name = "TEXT", conflicts_with = "file")]
    pub(crate) query: Option<String>,
    #[command(flatten)]
    pub(crate) model: ModelArg,
    /// Drop embeddings of another model and embed everything again (without it, a
    /// file embedded by another model is refused, SMG-E231).
    #[arg(long)]
    pub(crate) replace: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
