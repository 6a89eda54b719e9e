//! Limits that guard a reader against hostile input.

/// The deepest JSON nesting a v1 reader accepts (the spec fixes it so that every
/// implementation agrees on which files are readable).
pub(crate) const MAX_DEPTH: usize = 128;

/// Bounds applied while decoding untrusted input.
///
/// The defaults are generous enough for any real memory file and small enough
/// that a decompression bomb cannot exhaust memory: what a compressed input may
/// decompress to is proportionate to its size (64 times, at least 256 MiB) and never
/// more than [`Limits::max_bytes`]. A bound given with [`Limits::with_max_bytes`] is
/// the bound, whatever the input's size.
///
/// ```
/// let limits = smg_format::Limits::default();
/// assert_eq!(limits.for_input(100_000), 256 << 20, "a 100 kB file: 256 MiB");
/// assert_eq!(limits.for_input(1 << 30), 4 << 30, "1 GiB: 4 GiB at most");
/// let limits = limits.with_max_bytes(64 << 20);
/// assert_eq!(limits.for_input(100_000), 64 << 20);
/// ```
///
/// Counts are bounded too, each with its own error code ([`Bound`]): a file over one of
/// them is refused when it is read, before any work is spent on what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most bytes any decompression (whole file or one archive block) may produce.
    pub max_bytes: u64,
    /// When set, an input of `n` compressed bytes may decompress to at most `ratio × n`
    /// bytes, or [`Limits::PROPORTIONAL_FLOOR`] when that is more (and never more
    /// than `max_bytes`).
    pub max_ratio: Option<u64>,
    /// The most graph nodes, over all graphs ([`Bound::Nodes`]).
    pub max_nodes: u64,
    /// The most graph edges, over all graphs ([`Bound::Edges`]).
    pub max_edges: u64,
    /// The most turns: working memory's and the archive's ([`Bound::Turns`]).
    pub max_turns: u64,
    /// The most bytes of one turn's content ([`Bound::TurnBytes`]).
    pub max_turn_bytes: u64,
    /// The most artifacts in the vault ([`Bound::Artifacts`]).
    pub max_artifacts: u64,
    /// The most versions of one artifact ([`Bound::Versions`]).
    pub max_versions: u64,
    /// The longest run of diffs between two full versions of an artifact, which is what
    /// rebuilding one version may cost ([`Bound::DeltaChain`]).
    pub max_delta_chain: u64,
}

/// A count a reader bounds: which [`Limits`] field, error code and CLI flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bound {
    /// Graph nodes (`SMG-E024`, `--max-nodes`).
    Nodes,
    /// Graph edges (`SMG-E025`, `--max-edges`).
    Edges,
    /// Turns (`SMG-E026`, `--max-turns`).
    Turns,
    /// Bytes of one turn's content (`SMG-E027`, `--max-turn-bytes`).
    TurnBytes,
    /// Vault artifacts (`SMG-E028`, `--max-artifacts`).
    Artifacts,
    /// Versions of one artifact (`SMG-E029`, `--max-versions`).
    Versions,
    /// Diffs in a row between full versions (`SMG-E030`, `--max-delta-chain`).
    DeltaChain,
}

/// A count over its limit: what [`Error::OverLimit`](crate::Error::OverLimit) carries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {found} {} is more than the limit of {limit} (raise it with {} if the input is trusted)", bound.noun(), bound.flag())]
#[non_exhaustive]
pub struct OverLimit {
    /// Which count.
    pub bound: Bound,
    /// The limit in force.
    pub limit: u64,
    /// What the input has (or declares).
    pub found: u64,
    /// Where: a JSON Pointer, or an input file and position.
    pub at: String,
}

impl Bound {
    /// Every bound, in code order.
    pub const ALL: [Bound; 7] = [
        Bound::Nodes,
        Bound::Edges,
        Bound::Turns,
        Bound::TurnBytes,
        Bound::Artifacts,
        Bound::Versions,
        Bound::DeltaChain,
    ];

    /// The stable error code of going over this bound.
    ///
    /// ```
    /// assert_eq!(smg_format::limits::Bound::Turns.code(), "SMG-E026");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            Bound::Nodes => "SMG-E024",
            Bound::Edges => "SMG-E025",
            Bound::Turns => "SMG-E026",
            Bound::TurnBytes => "SMG-E027",
            Bound::Artifacts => "SMG-E028",
            Bound::Versions => "SMG-E029",
            Bound::DeltaChain => "SMG-E030",
        }
    }

    /// The CLI flag that sets this bound.
    pub fn flag(self) -> &'static str {
        match self {
            Bound::Nodes => "--max-nodes",
            Bound::Edges => "--max-edges",
            Bound::Turns => "--max-turns",
            Bound::TurnBytes => "--max-turn-bytes",
            Bound::Artifacts => "--max-artifacts",
            Bound::Versions => "--max-versions",
            Bound::DeltaChain => "--max-delta-chain",
        }
    }

    /// What is counted, in the plural.
    pub fn noun(self) -> &'static str {
        match self {
            Bound::Nodes => "nodes",
            Bound::Edges => "edges",
            Bound::Turns => "turns",
            Bound::TurnBytes => "bytes of content",
            Bound::Artifacts => "artifacts",
            Bound::Versions => "versions",
            Bound::DeltaChain => "diffs in a row",
        }
    }
}

impl Limits {
    /// Default for [`Limits::max_bytes`]: 4 GiB.
    pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;
    /// Default for [`Limits::max_ratio`]: 64 (text compresses 3 to 10 times).
    pub const DEFAULT_MAX_RATIO: u64 = 64;
    /// What any input may decompress to under a ratio: 256 MiB.
    pub const PROPORTIONAL_FLOOR: u64 = 256 << 20;

    /// Default for [`Limits::max_nodes`]: 10 million.
    pub const DEFAULT_MAX_NODES: u64 = 10_000_000;
    /// Default for [`Limits::max_edges`]: 50 million.
    pub const DEFAULT_MAX_EDGES: u64 = 50_000_000;
    /// Default for [`Limits::max_turns`]: 100 million.
    pub const DEFAULT_MAX_TURNS: u64 = 100_000_000;
    /// Default for [`Limits::max_turn_bytes`]: 64 MiB.
    pub const DEFAULT_MAX_TURN_BYTES: u64 = 64 << 20;
    /// Default for [`Limits::max_artifacts`]: 1 million.
    pub const DEFAULT_MAX_ARTIFACTS: u64 = 1_000_000;
    /// Default for [`Limits::max_versions`]: 100,000.
    pub const DEFAULT_MAX_VERSIONS: u64 = 100_000;
    /// Default for [`Limits::max_delta_chain`]: 1,000 (smg writes at most 32).
    pub const DEFAULT_MAX_DELTA_CHAIN: u64 = 1_000;

    /// The limit in force for `bound`.
    pub fn get(&self, bound: Bound) -> u64 {
        match bound {
            Bound::Nodes => self.max_nodes,
            Bound::Edges => self.max_edges,
            Bound::Turns => self.max_turns,
            Bound::TurnBytes => self.max_turn_bytes,
            Bound::Artifacts => self.max_artifacts,
            Bound::Versions => self.max_versions,
            Bound::DeltaChain => self.max_delta_chain,
        }
    }

    /// These limits with `bound` set to `value`.
    ///
    /// ```
    /// use smg_format::limits::Bound;
    /// let limits = smg_format::Limits::default().with(Bound::Nodes, 10);
    /// assert_eq!(limits.get(Bound::Nodes), 10);
    /// ```
    pub fn with(mut self, bound: Bound, value: u64) -> Self {
        let field = match bound {
            Bound::Nodes => &mut self.max_nodes,
            Bound::Edges => &mut self.max_edges,
            Bound::Turns => &mut self.max_turns,
            Bound::TurnBytes => &mut self.max_turn_bytes,
            Bound::Artifacts => &mut self.max_artifacts,
            Bound::Versions => &mut self.max_versions,
            Bound::DeltaChain => &mut self.max_delta_chain,
        };
        *field = value;
        self
    }

    /// `Ok` when `found` is within `bound`, else what is over, at `at` (a JSON
    /// Pointer, or a place such as an input file); `?` makes it an
    /// [`Error::OverLimit`](crate::Error::OverLimit).
    ///
    /// ```
    /// use smg_format::limits::Bound;
    /// let limits = smg_format::Limits::default().with(Bound::Turns, 2);
    /// assert!(limits.check(Bound::Turns, 2, "/").is_ok());
    /// let over = limits.check(Bound::Turns, 3, "/").unwrap_err();
    /// assert_eq!(smg_format::Error::from(over).code(), "SMG-E026");
    /// ```
    pub fn check(&self, bound: Bound, found: u64, at: &str) -> Result<(), OverLimit> {
        let limit = self.get(bound);
        if found <= limit {
            return Ok(());
        }
        Err(OverLimit {
            bound,
            limit,
            found,
            at: at.to_string(),
        })
    }

    /// These limits with another decompressed-size bound, for every input (no ratio).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self.max_ratio = None;
        self
    }

    /// The most bytes an input of `compressed` bytes may decompress to.
    pub fn for_input(&self, compressed: u64) -> u64 {
        match self.max_ratio {
            Some(ratio) => compressed
                .saturating_mul(ratio)
                .max(Self::PROPORTIONAL_FLOOR)
                .min(self.max_bytes),
            None => self.max_bytes,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Self::DEFAULT_MAX_BYTES,
            max_ratio: Some(Self::DEFAULT_MAX_RATIO),
            max_nodes: Self::DEFAULT_MAX_NODES,
            max_edges: Self::DEFAULT_MAX_EDGES,
            max_turns: Self::DEFAULT_MAX_TURNS,
            max_turn_bytes: Self::DEFAULT_MAX_TURN_BYTES,
            max_artifacts: Self::DEFAULT_MAX_ARTIFACTS,
            max_versions: Self::DEFAULT_MAX_VERSIONS,
            max_delta_chain: Self::DEFAULT_MAX_DELTA_CHAIN,
        }
    }
}
