//! The server's one error type.

/// Why the server could not start or went down.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The memory could not be read, or a write could not be made.
    #[error(transparent)]
    Engine(#[from] smg_engine::Error),
    /// The MCP connection failed: the client went away mid-message or spoke no MCP.
    #[error("MCP transport: {0}")]
    Transport(String),
    /// A writing tool was called on a server started read-only.
    #[error("this server is read-only (smg mcp --read-only): {0} refused")]
    ReadOnly(String),
}

impl Error {
    /// The stable code, e.g. `SMG-E320`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Engine(e) => e.code(),
            Error::Transport(_) => "SMG-E320",
            Error::ReadOnly(_) => "SMG-E321",
        }
    }

    /// Whether the error is about reading or writing bytes (exit code 2).
    pub fn is_io(&self) -> bool {
        match self {
            Error::Engine(e) => e.is_io(),
            Error::Transport(_) => true,
            Error::ReadOnly(_) => false,
        }
    }
}

impl From<smg_format::Error> for Error {
    fn from(e: smg_format::Error) -> Self {
        Error::Engine(e.into())
    }
}
