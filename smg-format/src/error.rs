//! The one error type of the format crate, with stable `SMG-` codes.

use std::path::PathBuf;

/// Everything that can go wrong while reading, decoding or writing a `.smg` file.
///
/// Every variant has a stable code (see [`Error::code`]) that is part of the
/// published spec (`spec/smg-v1.md`, "Error codes"); codes are never reused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read or written at all.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned (`-` for stdin/stdout).
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The input holds no bytes (or only white space).
    #[error("the file is empty")]
    Empty,
    /// The first bytes are neither JSON nor a known `.smg` envelope.
    #[error("unknown encoding: {0}")]
    UnknownEncoding(String),
    /// The envelope was written by a newer envelope version.
    #[error("envelope version {found} is not supported (this reader knows version 1; a newer smg is needed)")]
    UnsupportedEnvelope {
        /// The version byte found in the header.
        found: u8,
    },
    /// The input ends before the envelope header or its payload is complete.
    #[error("truncated file: {0}")]
    Truncated(String),
    /// The compressed payload is corrupt.
    #[error("{encoding} payload does not decompress: {detail}")]
    Decompress {
        /// `brotli`, `zstd` or `gzip`.
        encoding: &'static str,
        /// What the decoder reported.
        detail: String,
    },
    /// Decompressed data would exceed the configured limit.
    #[error("decompressed size exceeds the limit of {limit} bytes (raise it with --max-bytes if the file is trusted)")]
    TooLarge {
        /// The limit in force, in bytes.
        limit: u64,
    },
    /// The payload's CRC-32 does not match the header.
    #[error("checksum mismatch: header says {expected:08x}, payload hashes to {actual:08x}")]
    Checksum {
        /// CRC-32 stored in the header.
        expected: u32,
        /// CRC-32 of the decompressed payload.
        actual: u32,
    },
    /// Reserved header bits are set (a newer writer's feature).
    #[error("envelope flags {0:#06x} are not understood by this reader")]
    UnsupportedFlags(u16),
    /// The JSON text is not valid UTF-8.
    #[error("invalid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence within the JSON text.
        offset: usize,
    },
    /// The JSON text is malformed.
    #[error("JSON syntax error at line {line}, column {column}: {detail}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser reported.
        detail: String,
    },
    /// JSON nesting is deeper than the reader allows.
    #[error("JSON nesting deeper than {max} levels at line {line}, column {column}")]
    TooDeep {
        /// The nesting limit.
        max: usize,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A value has the wrong type or shape for the v1 model.
    #[error("{pointer}: {detail}")]
    Shape {
        /// JSON Pointer to the offending value.
        pointer: String,
        /// What is wrong.
        detail: String,
    },
    /// The document declares no `version`, or an unparsable one.
    #[error("missing or malformed `version` (expected \"1.x\"): {0}")]
    BadVersion(String),
    /// The document is of a major version this reader does not implement.
    #[error("format version {0} is not supported: this reader implements 1.x and refuses other major versions")]
    UnsupportedVersion(String),
    /// An archive block could not be decoded.
    #[error("archive block {block}: {detail}")]
    Block {
        /// The block's `id`.
        block: u64,
        /// What is wrong.
        detail: String,
    },
    /// An artifact version could not be rebuilt.
    #[error("artifact {artifact} version {version}: {detail}")]
    Artifact {
        /// The artifact's id.
        artifact: String,
        /// The version number (`v`).
        version: u64,
        /// What is wrong.
        detail: String,
    },
    /// The file is encrypted and no passphrase was given.
    #[error("the file is encrypted: give its passphrase (SMG_PASSPHRASE, --passphrase-file, or the prompt)")]
    NeedPassphrase,
    /// The passphrase does not open the file.
    #[error("wrong passphrase (or the header's salt or iteration count was altered)")]
    WrongPassphrase,
    /// The encrypted content does not authenticate.
    #[error(
        "the encrypted file was altered or damaged after it was written; nothing was decrypted"
    )]
    Tampered,
    /// Too few key-derivation iterations to be safe.
    #[error("{iterations} PBKDF2 iterations is too weak (v1 requires at least 600000)")]
    WeakKdf {
        /// The count in the header.
        iterations: u64,
    },
    /// Too many key-derivation iterations: a file could stall its reader.
    #[error("{iterations} PBKDF2 iterations is more than a reader accepts (at most 10000000)")]
    KdfTooCostly {
        /// The count in the header.
        iterations: u64,
    },
    /// An algorithm the header names is not defined in v1.
    #[error("unknown algorithm: {0}")]
    UnknownAlgorithm(String),
    /// The work needs what a sealed section holds (its turns, its nodes): the
    /// section's passphrase is needed first.
    #[error("{0}")]
    Sealed(String),
    /// The document carries no signature.
    #[error("the document is not signed")]
    Unsigned,
    /// The signature does not hold.
    #[error("signature check failed: {0}")]
    BadSignature(String),
    /// The caller asked for something the format cannot do.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A delta file was made against another base file.
    #[error("this delta applies to the file with SHA-256 {expected}, not to this one ({actual})")]
    DeltaBase {
        /// The base's SHA-256 named by the delta.
        expected: String,
        /// The SHA-256 of the file given.
        actual: String,
    },
    /// A delta file is malformed, or does not rebuild the file it names.
    #[error("bad delta file: {0}")]
    BadDelta(String),
    /// Another writer held the file's lock for longer than this one would wait.
    #[error("{path}: another smg is writing this file (waited {waited_ms} ms; try again, or give a longer --wait)")]
    Locked {
        /// The file to be written.
        path: PathBuf,
        /// How long this writer waited.
        waited_ms: u64,
    },
    /// What a command would write does not validate: nothing is written.
    #[error("nothing was written: the result would not pass `smg validate` ({code} at {pointer}: {detail}{}); if what was read validates, this is a bug in smg, please report it", more_errors(*more))]
    Unwritable {
        /// The validation code of the first error.
        code: &'static str,
        /// JSON Pointer to the field concerned.
        pointer: String,
        /// What is wrong with it.
        detail: String,
        /// How many other errors there are.
        more: usize,
    },
    /// A count in the input is over its limit (see [`crate::limits::Bound`]).
    #[error(transparent)]
    OverLimit(#[from] crate::limits::OverLimit),
    /// The file changed between its reading and its replacement, by a writer that did
    /// not take the lock (another machine on a network file system): nothing written.
    #[error("{path}: the file changed while this command ran (another writer, maybe on another machine); nothing was written, run the command again")]
    Changed {
        /// The file that changed.
        path: PathBuf,
    },
}

impl Error {
    /// The stable `SMG-` code of this error.
    ///
    /// ```
    /// assert_eq!(smg_format::Error::Empty.code(), "SMG-E002");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Error::Io { .. } => "SMG-E001",
            Error::Empty => "SMG-E002",
            Error::UnknownEncoding(_) => "SMG-E003",
            Error::UnsupportedEnvelope { .. } => "SMG-E004",
            Error::Truncated(_) => "SMG-E005",
            Error::Decompress { .. } => "SMG-E006",
            Error::TooLarge { .. } => "SMG-E007",
            Error::Checksum { .. } => "SMG-E008",
            Error::UnsupportedFlags(_) => "SMG-E015",
            Error::InvalidUtf8 { .. } => "SMG-E009",
            Error::Syntax { .. } => "SMG-E010",
            Error::TooDeep { .. } => "SMG-E011",
            Error::Shape { .. } => "SMG-E012",
            Error::BadVersion(_) => "SMG-E014",
            Error::UnsupportedVersion(_) => "SMG-E013",
            Error::Block { .. } => "SMG-E117",
            Error::Artifact { .. } => "SMG-E116",
            Error::InvalidArgument(_) => "SMG-E020",
            Error::NeedPassphrase => "SMG-E140",
            Error::WrongPassphrase => "SMG-E141",
            Error::Sealed(_) => "SMG-E146",
            Error::Tampered => "SMG-E142",
            Error::WeakKdf { .. } => "SMG-E143",
            Error::KdfTooCostly { .. } => "SMG-E144",
            Error::UnknownAlgorithm(_) => "SMG-E145",
            Error::Unsigned => "SMG-E150",
            Error::BadSignature(_) => "SMG-E151",
            Error::DeltaBase { .. } => "SMG-E160",
            Error::BadDelta(_) => "SMG-E161",
            Error::Locked { .. } => "SMG-E021",
            Error::Changed { .. } => "SMG-E022",
            Error::Unwritable { .. } => "SMG-E023",
            Error::OverLimit(over) => over.bound.code(),
        }
    }

    /// True when the file could not be read or written at all, or not now because
    /// another writer has it (exit code 2 in the CLI),
    /// as opposed to a file whose content is invalid (exit code 1).
    pub fn is_io(&self) -> bool {
        matches!(
            self,
            Error::Io { .. } | Error::Locked { .. } | Error::Changed { .. }
        )
    }

    /// The JSON Pointer of the offending value, where the error has one.
    pub fn pointer(&self) -> &str {
        match self {
            Error::Shape { pointer, .. } | Error::Unwritable { pointer, .. } => pointer,
            Error::OverLimit(over) if over.at.starts_with('/') => &over.at,
            Error::BadVersion(_) | Error::UnsupportedVersion(_) => "/version",
            _ => "",
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Classify a `serde_json` error on the document text.
    pub(crate) fn from_json(e: &serde_json::Error, pointer: Option<String>) -> Self {
        use serde_json::error::Category;
        let msg = e.to_string();
        match e.classify() {
            Category::Syntax | Category::Eof if msg.contains("recursion limit") => Error::TooDeep {
                max: crate::limits::MAX_DEPTH,
                line: e.line(),
                column: e.column(),
            },
            Category::Syntax | Category::Eof | Category::Io => Error::Syntax {
                line: e.line(),
                column: e.column(),
                detail: strip_position(&msg),
            },
            Category::Data => Error::Shape {
                pointer: pointer.unwrap_or_default(),
                detail: strip_position(&msg),
            },
        }
    }
}

/// serde_json appends " at line L column C"; we report the position separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Result alias of the format crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn more_errors(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => ", and 1 more error".into(),
        n => format!(", and {n} more errors"),
    }
}
