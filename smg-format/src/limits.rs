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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most bytes any decompression (whole file or one archive block) may produce.
    pub max_bytes: u64,
    /// When set, an input of `n` compressed bytes may decompress to at most `ratio × n`
    /// bytes, or [`Limits::PROPORTIONAL_FLOOR`] when that is more (and never more
    /// than `max_bytes`).
    pub max_ratio: Option<u64>,
}

impl Limits {
    /// Default for [`Limits::max_bytes`]: 4 GiB.
    pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;
    /// Default for [`Limits::max_ratio`]: 64 (text compresses 3 to 10 times).
    pub const DEFAULT_MAX_RATIO: u64 = 64;
    /// What any input may decompress to under a ratio: 256 MiB.
    pub const PROPORTIONAL_FLOOR: u64 = 256 << 20;

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
        }
    }
}
