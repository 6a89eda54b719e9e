//! Limits that guard a reader against hostile input.

/// The deepest JSON nesting a v1 reader accepts (the spec fixes it so that every
/// implementation agrees on which files are readable).
pub(crate) const MAX_DEPTH: usize = 128;

/// Bounds applied while decoding untrusted input.
///
/// The defaults are generous enough for any real memory file and small enough
/// that a decompression bomb cannot exhaust memory.
///
/// ```
/// let limits = smg_format::Limits::default().with_max_bytes(64 << 20);
/// assert_eq!(limits.max_bytes, 64 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most bytes any decompression (whole file or one archive block) may produce.
    pub max_bytes: u64,
}

impl Limits {
    /// Default for [`Limits::max_bytes`]: 4 GiB.
    pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

    /// These limits with another decompressed-size bound.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }
}
