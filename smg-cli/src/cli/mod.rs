//! Command-line definitions (clap): every flag, its help, and the exit codes.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod checkpoint;
mod curate;
mod export;
mod neo4j;
mod retrieve;

pub(crate) use checkpoint::{DiffArgs, MergeArgs, PreferArg};
pub(crate) use curate::{
    CurateArgs, KnowledgeCommand, KnowledgeTier, PolicyCommand, PolicySetArgs, ScopeCommand,
    ScopeSetArgs, TierCommand,
};
pub(crate) use export::{ExportArgs, ExportFormat, McpArgs, ViewArgs};
pub(crate) use neo4j::{DialectArg, Neo4jCommand, PullArgs, PushArgs, ServerArgs, SliceArgs};
pub(crate) use retrieve::{
    BenchCommand, ContextArgs, EmbedArgs, ExpandArgs, FormatArg, IngestArgs, LinksArg, ModelArg,
    SealedArg, SearchArgs, TokenizerArg,
};

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
    /// Largest decompressed size accepted, in bytes, for any input (guards against
    /// decompression bombs). Default: 64 times the compressed input, at least 256 MiB,
    /// at most 4 GiB.
    #[arg(long, global = true, value_name = "BYTES", help_heading = "Limits")]
    pub(crate) max_bytes: Option<u64>,
    /// Most graph nodes a file may hold (SMG-E024). Default: 10,000,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_nodes: Option<u64>,
    /// Most graph edges a file may hold (SMG-E025). Default: 50,000,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_edges: Option<u64>,
    /// Most turns a file (or an ingest) may hold (SMG-E026). Default: 100,000,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_turns: Option<u64>,
    /// Most bytes of one turn's content (SMG-E027). Default: 64 MiB.
    #[arg(long, global = true, value_name = "BYTES", help_heading = "Limits")]
    pub(crate) max_turn_bytes: Option<u64>,
    /// Most artifacts in a vault (SMG-E028). Default: 1,000,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_artifacts: Option<u64>,
    /// Most versions of one artifact (SMG-E029). Default: 100,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_versions: Option<u64>,
    /// Longest run of diffs between two full versions of an artifact (SMG-E030).
    /// Default: 1,000.
    #[arg(long, global = true, value_name = "N", help_heading = "Limits")]
    pub(crate) max_delta_chain: Option<u64>,
    /// Read the passphrase of encrypted files from this file (first line). Otherwise
    /// SMG_PASSPHRASE, otherwise a prompt; never from a command-line value.
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) passphrase_file: Option<PathBuf>,
    /// How long a command that rewrites a file waits for another smg writing it, in
    /// seconds, before it gives up (SMG-E021).
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 10.0)]
    pub(crate) wait: f64,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create a new, empty memory file.
    #[command(after_help = EXIT_CODES)]
    Init(InitArgs),
    /// Show a file's encoding, version, counts and bytes per section.
    #[command(after_help = EXIT_CODES)]
    Info(FileJson),
    /// Print a file's document as canonical JSON (RFC 8785).
    #[command(after_help = EXIT_CODES)]
    Cat(CatArgs),
    /// Rewrite a file in another encoding, losslessly.
    #[command(after_help = EXIT_CODES)]
    Convert(ConvertArgs),

    /// Check files against the v1 spec.
    ///
    /// Schema, references, hashes, blocks, JSON-LD.
    #[command(after_help = EXIT_CODES)]
    Validate(ValidateArgs),
    /// Encrypt a file (AES-256-GCM, key from PBKDF2-HMAC-SHA256).
    #[command(after_help = EXIT_CODES)]
    Encrypt(EncryptArgs),
    /// Decrypt a file back to the file it wraps.
    #[command(after_help = EXIT_CODES)]
    Decrypt(InOut),
    /// Change an encrypted file's passphrase (new salt, nonce and key).
    #[command(after_help = EXIT_CODES)]
    Rekey(RekeyArgs),
    /// Seal a private context or a memory tier with its own passphrase.
    ///
    /// A collaborator's private context, or a whole tier, is encrypted apart from the
    /// rest; only its passphrase opens it (`smg unseal`).
    #[command(after_help = EXIT_CODES)]
    Seal(SealArgs),
    /// Open a sealed section and put its content back.
    #[command(after_help = EXIT_CODES)]
    Unseal(UnsealArgs),
    /// Make an Ed25519 key pair for signing.
    ///
    /// KEY (secret, mode 0600) and KEY.pub.
    #[command(after_help = EXIT_CODES)]
    Keygen {
        /// Where to write the secret key; the public key goes to the same path + `.pub`.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Sign a file's document (Ed25519 over a hash of each section).
    #[command(after_help = EXIT_CODES)]
    Sign {
        /// The memory file, changed in place unless -o is given.
        file: PathBuf,
        /// The secret key file from `smg keygen`.
        #[arg(long)]
        key: PathBuf,
        /// Where to write (default: replace FILE atomically).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Check a file's signature.
    ///
    /// On failure, name the sections that changed.
    #[command(after_help = EXIT_CODES)]
    Verify {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// The signer's public key file; without it only integrity is checked.
        #[arg(long)]
        public_key: Option<PathBuf>,
    },
    /// The artifact vault: code and documents, stored once.
    ///
    /// Versions as diffs.
    #[command(subcommand)]
    Vault(VaultCommand),
    /// The deep archive: every original turn, in compressed blocks.
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Turn chat transcripts and exports into memory.
    ///
    /// ChatGPT, Claude, LoCoMo, JSONL, Letta agent files, the MCP memory server's JSON
    /// Lines.
    #[command(after_help = EXIT_CODES)]
    Ingest(IngestArgs),
    /// The archived turns that best answer a query, with their provenance.
    #[command(after_help = EXIT_CODES)]
    Search(SearchArgs),
    /// Prompt-ready memory for a query, within a token budget.
    #[command(after_help = EXIT_CODES)]
    Context(ContextArgs),
    /// Embed turns and nodes with a local sentence-embedding model.
    ///
    /// The model is a local directory (--model DIR); search and context then rank by
    /// meaning too. Or print a query's embedding.
    #[command(after_help = EXIT_CODES)]
    Embed(EmbedArgs),
    /// Store the search index in a packed file.
    ///
    /// Search, context and expand then open it without indexing every turn (any
    /// rewrite of the file drops it).
    #[command(after_help = EXIT_CODES)]
    Index {
        /// The memory file, in the packed layout (`smg convert --layout packed`).
        file: PathBuf,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// The original turns of a segment named by a reference card.
    ///
    /// Byte for byte, as they were ingested.
    #[command(after_help = EXIT_CODES)]
    Expand(ExpandArgs),
    /// Nodes that match a FIND query (SMG §12.3).
    ///
    /// E.g. 'FIND decisions WHERE topic = "database" AND timestamp > "2025-12-01" ORDER
    /// BY importance DESC LIMIT 10'.
    #[command(after_help = EXIT_CODES)]
    Query {
        /// The memory file.
        file: PathBuf,
        /// The query.
        query: String,
        /// JSON output (the nodes as stored; with `file` when linked files answered).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        sealed: SealedArg,
        #[command(flatten)]
        links: LinksArg,
    },
    /// What changed from one memory file to another.
    ///
    /// Nodes, edges, artifact versions, archive turns, working memory, metadata.
    #[command(after_help = EXIT_CODES)]
    Diff(DiffArgs),
    /// Rebuild a file from its base and one or more delta files.
    ///
    /// The deltas are what `smg diff --delta` writes; the file comes back byte for
    /// byte: v1 + d2 + d3 = v3.
    #[command(after_help = EXIT_CODES)]
    Apply {
        /// The base file the first delta names (`-` for stdin).
        base: PathBuf,
        /// Delta files, applied in order.
        #[arg(required = true)]
        deltas: Vec<PathBuf>,
        /// Where to write the rebuilt file (`-` for stdout); written atomically.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Copy a memory onto a new branch, recording its parent.
    ///
    /// Id, hash, branch, time.
    #[command(after_help = EXIT_CODES)]
    Fork {
        /// The parent file (`-` for stdin).
        file: PathBuf,
        /// Where to write the fork (`-` for stdout), in the parent's encoding.
        #[arg(short, long)]
        output: PathBuf,
        /// The new branch's name.
        #[arg(long)]
        branch: String,
        /// The fork's time (RFC 3339); default now. Give it to make a fork reproducible.
        #[arg(long, value_name = "TIME")]
        at: Option<String>,
    },
    /// A copy safe to hand out.
    ///
    /// Credentials and personal data replaced everywhere by typed placeholders;
    /// restricted tiers, private contexts, access records, the audit log and the
    /// signature left out. `--check` exits 1 while a file holds any.
    #[command(after_help = EXIT_CODES)]
    Share(ShareArgs),
    /// A memory's id, branch and the forks that led to it, newest first.
    #[command(after_help = EXIT_CODES)]
    Log(FileJson),
    /// Link other memory files: add, list, remove.
    #[command(subcommand)]
    Link(LinkCommand),
    /// Three-way merge of two memories changed from a common base.
    ///
    /// The archives and vaults as unions (a message both sides added, once), then the
    /// derived graph and working memory built again from the merged archive.
    /// Conflicting changes of the same authored field are listed and nothing is written
    /// (exit 1) unless --prefer settles them.
    #[command(after_help = EXIT_CODES)]
    Merge(MergeArgs),
    /// Write the memory in another system's format.
    ///
    /// ChatGPT, Claude, a Letta agent file, the MCP memory server's JSON Lines,
    /// Markdown, RDF N-Quads; says what the format cannot carry. Conversations an
    /// export gave come back equal to it.
    #[command(after_help = EXIT_CODES)]
    Export(ExportArgs),
    /// Write one self-contained HTML page of the memory.
    ///
    /// Its graph, timeline, vault and archive, searchable, working offline (it fetches
    /// nothing). Sealed sections show as sealed; an encrypted file needs its
    /// passphrase, which the page never holds.
    #[command(after_help = EXIT_CODES)]
    View(ViewArgs),
    /// Push memory tiers to Neo4j over Bolt and pull them back.
    ///
    /// Neo4j or FalkorDB, as spec §19 maps the tiers onto labels.
    #[command(subcommand, after_help = EXIT_CODES)]
    Neo4j(Neo4jCommand),
    /// Serve the memory over the Model Context Protocol on stdin/stdout.
    ///
    /// The MCP memory server's nine tools (a drop-in replacement), smg's search,
    /// context, expand and FIND, and the M3S tier searches. Writes are atomic and
    /// durable before the reply. An encrypted file takes its passphrase from
    /// --passphrase-file or SMG_PASSPHRASE (stdin is the protocol: no prompt).
    #[command(after_help = EXIT_CODES)]
    Mcp(McpArgs),
    /// Curate the graph (spec §18).
    ///
    /// Scores, TTLs, tiers and budgets, near-duplicates, never-prune rails; every
    /// action audited and undoable. In place.
    #[command(after_help = EXIT_CODES)]
    Curate(CurateArgs),
    /// List curation's audit log and cycles.
    #[command(after_help = EXIT_CODES)]
    Audit {
        /// The memory file.
        file: PathBuf,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Undo an audit entry, or a whole cycle, by its id.
    ///
    /// The ids are those `smg audit` lists. In place.
    #[command(after_help = EXIT_CODES)]
    Restore {
        /// The memory file.
        file: PathBuf,
        /// An audit entry's or a cycle's id.
        id: String,
    },
    /// Move a node between the HOT, WARM, COLD and ARCHIVE tiers by hand.
    #[command(subcommand)]
    Tier(TierCommand),
    /// Governance: who may approve departmental and global knowledge.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Curated knowledge.
    #[command(subcommand)]
    Knowledge(KnowledgeCommand),
    /// The scope of conversations.
    ///
    /// Restricted talk, and all drawn from it, is sealed whole with `smg seal --tier
    /// restricted` (spec §10.3).
    #[command(subcommand)]
    Scope(ScopeCommand),
    /// Bring a file written by an older smg up to date.
    ///
    /// Format 1 becomes format 2 (blocks' turns in the clear, spec §13; the file keeps
    /// its encoding, layout and encryption). Derived nodes named by archive position
    /// (`seg-12`, `mem-12-1`) get the stable ids of spec §11, every reference to them
    /// follows, and the derived graph is built again. In place unless -o.
    #[command(after_help = EXIT_CODES)]
    Migrate {
        /// The memory file (`-` for stdin, with -o).
        file: PathBuf,
        /// Where to write the result (`-` for stdout); default: FILE, in place.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure retrieval.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum VaultCommand {
    /// Add a file's content: stored once; under a known name it becomes the next version.
    #[command(after_help = EXIT_CODES)]
    Add {
        /// The memory file, changed in place (atomically, keeping its encoding).
        file: PathBuf,
        /// The file to add (`-` for stdin; UTF-8 text).
        path: PathBuf,
        /// Name in the vault (default: PATH's file name).
        #[arg(long)]
        name: Option<String>,
        /// Programming language.
        #[arg(long)]
        language: Option<String>,
        /// Artifact type: code, document, canvas, data.
        #[arg(long, default_value = "code")]
        kind: String,
    },
    /// List the artifacts.
    #[command(after_help = EXIT_CODES)]
    List(FileJson),
    /// List an artifact's versions.
    #[command(after_help = EXIT_CODES)]
    Log {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// Artifact id or name.
        artifact: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print one version's content, byte for byte.
    #[command(after_help = EXIT_CODES)]
    Show {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// Artifact id or name.
        artifact: String,
        /// Version, from 1 (default: the newest).
        #[arg(long)]
        version: Option<u64>,
    },
    /// Write one version to a file; a folder gets the artifact's own (checked) name.
    #[command(after_help = EXIT_CODES)]
    Export {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// Artifact id or name.
        artifact: String,
        /// Version, from 1 (default: the newest).
        #[arg(long)]
        version: Option<u64>,
        /// A file, or an existing folder (never written outside of).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// A unified diff between two versions (GNU patch applies it).
    #[command(after_help = EXIT_CODES)]
    Diff {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// Artifact id or name.
        artifact: String,
        /// Older version.
        v1: u64,
        /// Newer version.
        v2: u64,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum LinkCommand {
    /// Link FILE to OTHER: its path relative to FILE, its id and its hash are recorded.
    #[command(after_help = EXIT_CODES)]
    Add {
        /// The memory file, changed in place (atomically, keeping its encoding).
        file: PathBuf,
        /// The memory file to link to.
        other: PathBuf,
        /// The link's name (default: OTHER's file name without its extension).
        #[arg(long)]
        name: Option<String>,
        /// Only read OTHER through this link, never write it.
        #[arg(long)]
        read_only: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the links and what became of each file (ok, changed, missing, unreadable).
    #[command(after_help = EXIT_CODES)]
    List(FileJson),
    /// Remove the link named NAME.
    #[command(after_help = EXIT_CODES)]
    Remove {
        /// The memory file, changed in place (atomically, keeping its encoding).
        file: PathBuf,
        /// The link's name.
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ArchiveCommand {
    /// List the blocks: turn and time ranges, size, summary.
    #[command(after_help = EXIT_CODES)]
    List(FileJson),
    /// Print one turn's original text, byte for byte (only its block is read).
    #[command(after_help = EXIT_CODES)]
    Show {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// Turn number.
        turn: u64,
        /// Print the whole turn as JSON (role, time, provenance).
        #[arg(long)]
        json: bool,
    },
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

/// How the archive's blocks are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LayoutArg {
    /// Blocks as base64 inside the JSON document.
    Json,
    /// Sections read on demand: a reader opens the index and one block per turn.
    Packed,
}

#[derive(Debug, Args)]
pub(crate) struct EncodeArgs {
    /// Encoding to write (json layout only) [default: brotli].
    #[arg(long, value_enum)]
    pub(crate) encoding: Option<EncodingArg>,
    /// Layout: json (one JSON document) or packed (sections read on demand).
    #[arg(long, value_enum, default_value_t = LayoutArg::Json)]
    pub(crate) layout: LayoutArg,
    /// Compression level (brotli 0-11, default 11 up to 128 KiB of JSON, 10 up to 1 MiB, 5 up to 4 MiB, 2 above; zstd 1-22, default 9; packed: brotli for the head, default 9, or 5 above 4 MiB).
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

/// An input and an output file.
#[derive(Debug, Args)]
pub(crate) struct InOut {
    /// The file to read (`-` for stdin).
    pub(crate) input: PathBuf,
    /// The file to write (`-` for stdout); written atomically.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct EncryptArgs {
    #[command(flatten)]
    pub(crate) files: InOut,
    /// PBKDF2 iterations (600000 to 10000000).
    #[arg(long, default_value_t = smg_format::crypto::MIN_ITERATIONS)]
    pub(crate) iterations: u64,
}

#[derive(Debug, Args)]
pub(crate) struct RekeyArgs {
    /// The encrypted file.
    pub(crate) file: PathBuf,
    /// Where to write (default: replace FILE atomically).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// PBKDF2 iterations of the new key (default: keep the file's).
    #[arg(long)]
    pub(crate) iterations: Option<u64>,
    /// Read the new passphrase from this file. Otherwise SMG_NEW_PASSPHRASE, otherwise a prompt.
    #[arg(long, value_name = "PATH")]
    pub(crate) new_passphrase_file: Option<PathBuf>,
}

/// Memory tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TierArg {
    /// One user's own memory.
    Personal,
    /// Curated team knowledge.
    Departmental,
    /// Curated organisation-wide knowledge.
    Global,
    /// Knowledge most readers must never see.
    Restricted,
}

impl From<TierArg> for smg_format::model::Scope {
    fn from(t: TierArg) -> Self {
        match t {
            TierArg::Personal => smg_format::model::Scope::Personal,
            TierArg::Departmental => smg_format::model::Scope::Departmental,
            TierArg::Global => smg_format::model::Scope::Global,
            TierArg::Restricted => smg_format::model::Scope::Restricted,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct SealArgs {
    /// The memory file (changed in place unless -o is given).
    pub(crate) file: PathBuf,
    /// Seal this collaborator's private context.
    #[arg(long)]
    pub(crate) collaborator: Option<String>,
    /// Seal every node of this tier, with the edges that touch them.
    #[arg(long, value_enum)]
    pub(crate) tier: Option<TierArg>,
    /// Where to write (default: replace FILE atomically).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// PBKDF2 iterations.
    #[arg(long, default_value_t = smg_format::crypto::MIN_ITERATIONS)]
    pub(crate) iterations: u64,
    /// Read the section's passphrase from this file. Otherwise SMG_SEAL_PASSPHRASE, otherwise a prompt.
    #[arg(long, value_name = "PATH")]
    pub(crate) seal_passphrase_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct UnsealArgs {
    /// The memory file (changed in place unless -o is given).
    pub(crate) file: PathBuf,
    /// The sealed section's id (`private:<collaborator>` or `tier:<tier>`; see `smg info`).
    pub(crate) section: String,
    /// Where to write (default: replace FILE atomically).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Read the section's passphrase from this file. Otherwise SMG_SEAL_PASSPHRASE, otherwise a prompt.
    #[arg(long, value_name = "PATH")]
    pub(crate) seal_passphrase_file: Option<PathBuf>,
}

/// `smg share`.
#[derive(Debug, Args)]
pub(crate) struct ShareArgs {
    /// The memory file (`-` for stdin); an encrypted one takes its passphrase.
    pub(crate) file: PathBuf,
    /// Where to write the copy (`-` for stdout), in the input's encoding and layout,
    /// unencrypted; a stored search index is made again for the copy.
    #[arg(short, long, required_unless_present_any = ["dry_run", "check"])]
    pub(crate) output: Option<PathBuf>,
    /// Report what would be replaced and left out; write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Exit 1 when the file holds anything a share would replace or leave out (for
    /// pipelines that publish memory files); write nothing.
    #[arg(long, conflicts_with = "output")]
    pub(crate) check: bool,
    /// Kinds to leave as they are, comma-separated: aws-key, openai-key,
    /// anthropic-key, github-token, gitlab-token, slack-token, stripe-key, google-key,
    /// jwt, private-key, password, secret, url-credentials, email, phone, card, iban, ip.
    #[arg(long, value_delimiter = ',', value_name = "KIND,…")]
    pub(crate) keep: Vec<String>,
    /// The copy's branch, recorded in its lineage with the input's SHA-256.
    #[arg(long, default_value = "shared")]
    pub(crate) branch: String,
    /// The copy's time (RFC 3339); default now. Give it to make a copy reproducible.
    #[arg(long, value_name = "TIME")]
    pub(crate) at: Option<String>,
    /// JSON output: every finding's kind, section and place (never the value).
    #[arg(long)]
    pub(crate) json: bool,
}

/// A memory file to read, and whether to print JSON.
#[derive(Debug, Args)]
pub(crate) struct FileJson {
    /// The memory file (`-` for stdin).
    pub(crate) file: PathBuf,
    /// Print JSON.
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
    /// Store the search index in the new file, as `smg index` does (needs `--layout
    /// packed`).
    #[arg(long)]
    pub(crate) index: bool,
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
