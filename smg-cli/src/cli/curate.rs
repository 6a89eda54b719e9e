//! Curation and governance commands (spec §18).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// `smg curate`.
#[derive(Debug, Args)]
pub(crate) struct CurateArgs {
    /// The memory file, curated in place.
    pub(crate) file: PathBuf,
    /// The cycle's time (RFC 3339); default: now. Every age is measured to it.
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<String>,
    /// Print what would be done; write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Do not merge or relate near-duplicates.
    #[arg(long)]
    pub(crate) no_dedup: bool,
    /// Print the actions as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `smg tier`.
#[derive(Debug, Subcommand)]
pub(crate) enum TierCommand {
    /// Move a node one tier warmer (ARCHIVE -> COLD -> WARM -> HOT).
    Promote(TierArgs),
    /// Move a node one tier colder (HOT -> WARM -> COLD -> ARCHIVE).
    Demote(TierArgs),
}

/// The node a tier command moves.
#[derive(Debug, Args)]
pub(crate) struct TierArgs {
    /// The memory file, changed in place.
    pub(crate) file: PathBuf,
    /// The node's id.
    pub(crate) node: String,
    /// Why, for the audit log.
    #[arg(long, default_value = "moved by hand")]
    pub(crate) reason: String,
    /// When (RFC 3339); default: now.
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<String>,
}

/// `smg policy`.
#[derive(Debug, Subcommand)]
pub(crate) enum PolicyCommand {
    /// Print the file's governance and retention policy.
    Show {
        /// The memory file.
        file: PathBuf,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change the policy; what is not given stays as it was.
    Set(PolicySetArgs),
}

/// `smg policy set`.
#[derive(Debug, Args)]
pub(crate) struct PolicySetArgs {
    /// The memory file, changed in place.
    pub(crate) file: PathBuf,
    /// DEPARTMENT=ID: ID may approve that department's knowledge (repeatable).
    #[arg(long, value_name = "DEPARTMENT=ID")]
    pub(crate) approver: Vec<String>,
    /// ID may approve global knowledge (repeatable).
    #[arg(long, value_name = "ID")]
    pub(crate) executive: Vec<String>,
    /// Take these ids off every list (repeatable).
    #[arg(long, value_name = "ID")]
    pub(crate) revoke: Vec<String>,
    /// Days audit entries are kept (default 30).
    #[arg(long, value_name = "DAYS")]
    pub(crate) audit_days: Option<u64>,
    /// Days tombstoned nodes are kept before they are purged (default 30).
    #[arg(long, value_name = "DAYS")]
    pub(crate) tombstone_days: Option<u64>,
}

/// `smg knowledge`.
#[derive(Debug, Subcommand)]
pub(crate) enum KnowledgeCommand {
    /// Add curated knowledge; refused below the tier's confidence or without an
    /// approver the policy lists (SMG-E120, E121, E240).
    Add(KnowledgeArgs),
}

/// A curated tier.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum KnowledgeTier {
    /// One user's memory (no approval).
    Personal,
    /// Team knowledge: confidence >= 0.85 and a department approver.
    Departmental,
    /// Organisation-wide: confidence >= 0.90 and an executive.
    Global,
    /// Restricted (e.g. executive-only): sealed at once, so that no reader without
    /// the section's passphrase ever sees it.
    Restricted,
}

impl KnowledgeTier {
    /// The scope this tier names.
    pub(crate) fn scope(self) -> smg_format::model::Scope {
        use smg_format::model::Scope;
        match self {
            KnowledgeTier::Personal => Scope::Personal,
            KnowledgeTier::Departmental => Scope::Departmental,
            KnowledgeTier::Global => Scope::Global,
            KnowledgeTier::Restricted => Scope::Restricted,
        }
    }
}

/// `smg knowledge add`.
#[derive(Debug, Args)]
pub(crate) struct KnowledgeArgs {
    /// The memory file, changed in place.
    pub(crate) file: PathBuf,
    /// Short name.
    #[arg(long)]
    pub(crate) label: String,
    /// The knowledge itself.
    #[arg(long, default_value = "")]
    pub(crate) content: String,
    /// The tier.
    #[arg(long, value_enum)]
    pub(crate) tier: KnowledgeTier,
    /// The department (departmental knowledge).
    #[arg(long)]
    pub(crate) department: Option<String>,
    /// How sure, in [0, 1].
    #[arg(long)]
    pub(crate) confidence: f64,
    /// Who approved it.
    #[arg(long)]
    pub(crate) approved_by: Option<String>,
    /// Who wrote it.
    #[arg(long)]
    pub(crate) created_by: Option<String>,
    /// how_to, expertise, policy, milestone…
    #[arg(long = "type")]
    pub(crate) knowledge_type: Option<String>,
    /// The node's id (default: derived from label, content and time).
    #[arg(long)]
    pub(crate) id: Option<String>,
    /// When (RFC 3339); default: now.
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<String>,
    /// For --tier restricted: read the sealed section's passphrase from this file.
    /// Otherwise SMG_SEAL_PASSPHRASE, otherwise a prompt.
    #[arg(long, value_name = "PATH")]
    pub(crate) seal_passphrase_file: Option<PathBuf>,
}

/// `smg scope`.
#[derive(Debug, Subcommand)]
pub(crate) enum ScopeCommand {
    /// Give a conversation already in the memory a scope (spec §10.3): its turns are
    /// archived again (restricted code stays in its turns) and the graph and working
    /// memory made again, as one ingest of the whole archive would make them.
    Set(ScopeSetArgs),
    /// The conversations in the archive: their turns and scope, and the sealed tiers.
    List {
        /// The memory file (`-` for stdin).
        file: PathBuf,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
}

/// `smg scope set`.
#[derive(Debug, Args)]
pub(crate) struct ScopeSetArgs {
    /// The memory file, changed in place.
    pub(crate) file: PathBuf,
    /// The conversation's id (see `smg scope list`).
    #[arg(long, value_name = "ID")]
    pub(crate) conversation: String,
    /// Its scope.
    #[arg(value_enum)]
    pub(crate) scope: super::retrieve::ConversationScope,
    #[command(flatten)]
    pub(crate) sealed: super::SealedArg,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
