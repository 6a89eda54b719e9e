//! The crate's error type, with stable `SMG-` codes.

use std::path::PathBuf;

/// What can go wrong loading or running a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file of the model directory is missing or unreadable.
    #[error("{}: {detail}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// A file of the model directory is not what a sentence-embedding model holds.
    #[error("{}: {detail}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The model failed on some text.
    #[error("embedding failed: {0}")]
    Run(String),
}

impl Error {
    /// The stable code: `SMG-E232`, a model that cannot be read or used.
    pub fn code(&self) -> &'static str {
        "SMG-E232"
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Self {
        Error::Run(e.to_string())
    }
}
