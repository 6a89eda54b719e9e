//! The bridge's one error type, each variant with a stable code (spec §19.6).

/// What went wrong talking to the graph database or mapping its graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server could not be reached.
    #[error("cannot connect: {0}")]
    Connect(String),
    /// The server took longer than the timeout to connect or answer.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The server refused the credentials.
    #[error("authentication refused: {0}")]
    Auth(String),
    /// The server broke the Bolt protocol or dropped the connection.
    #[error("Bolt protocol: {0}")]
    Protocol(String),
    /// The server refused a query.
    #[error("the server refused a query: {code}: {message}")]
    Server {
        /// The server's error code, e.g. `Neo.ClientError.Statement.SyntaxError`.
        code: String,
        /// The server's message.
        message: String,
    },
    /// A graph read from the server does not fit the mapping (spec §19).
    #[error("{element} does not fit the smg mapping: {message}")]
    Mapping {
        /// The first offending node or relationship.
        element: String,
        /// What is wrong with it.
        message: String,
    },
    /// A bad address, TLS setting or certificate file.
    #[error("{0}")]
    Uri(String),
    /// A memory name or tier the database does not hold.
    #[error("{0}")]
    NotFound(String),
    /// An error of the file layer.
    #[error(transparent)]
    Format(#[from] smg_format::Error),
}

impl Error {
    /// The stable code, e.g. `SMG-E300`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Connect(_) => "SMG-E300",
            Error::Timeout(_) => "SMG-E301",
            Error::Auth(_) => "SMG-E302",
            Error::Protocol(_) => "SMG-E303",
            Error::Server { .. } => "SMG-E304",
            Error::Mapping { .. } => "SMG-E305",
            Error::Uri(_) => "SMG-E306",
            Error::NotFound(_) => "SMG-E307",
            Error::Format(e) => e.code(),
        }
    }

    /// Whether the failure is the network's or the server's rather than the input's:
    /// running the command again may succeed.
    pub fn is_io(&self) -> bool {
        match self {
            Error::Connect(_) | Error::Timeout(_) | Error::Protocol(_) => true,
            Error::Format(e) => e.is_io(),
            _ => false,
        }
    }
}
