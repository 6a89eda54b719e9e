//! The engine's error type, with stable `SMG-` codes.

/// What can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The document could not be read or is not valid.
    #[error(transparent)]
    Format(#[from] smg_format::Error),
    /// Two nodes share an id.
    #[error("node id `{0}` is used twice")]
    DuplicateNode(String),
    /// An edge names a node that does not exist.
    #[error("edge {from} -[{relation}]-> {to} names a node that does not exist")]
    DanglingEdge {
        /// Source id.
        from: String,
        /// Target id.
        to: String,
        /// Relation.
        relation: String,
    },
    /// A node id the caller asked for does not exist.
    #[error("no node has id `{0}`")]
    UnknownNode(String),
    /// An entity an MCP memory tool names does not exist.
    #[error("entity with name `{0}` not found")]
    UnknownEntity(String),
    /// A `FIND` query is malformed.
    #[error("query, column {column}: {detail}")]
    Query {
        /// Where (characters from 1).
        column: usize,
        /// What was expected.
        detail: String,
    },
    /// A query vector that the file's embeddings cannot be searched with.
    #[error("query vector: {0}")]
    Vector(String),
    /// Embedding refused or failed: the file's embeddings come from another model
    /// (`SMG-E231`), or the model failed (`SMG-E232`).
    #[error("embedding: {detail}")]
    Embedding {
        /// The stable code.
        code: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// Curation or governance refused: a policy rule, an audit entry that does not
    /// exist, or one that can no longer be undone.
    #[error("{detail}")]
    Curation {
        /// The stable code (SMG-E120, E121, E240–E242).
        code: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// An input to ingest could not be read as its format.
    #[error("{file}, {position}: {detail}")]
    Import {
        /// The input file.
        file: String,
        /// Where in it.
        position: String,
        /// What is wrong.
        detail: String,
    },
}

impl Error {
    /// The stable code, shared with the validator's codes for the same problem.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Format(e) => e.code(),
            Error::DuplicateNode(_) => "SMG-E110",
            Error::DanglingEdge { .. } => "SMG-E111",
            Error::UnknownNode(_) => "SMG-E201",
            Error::UnknownEntity(_) => "SMG-E202",
            Error::Import { .. } => "SMG-E210",
            Error::Query { .. } => "SMG-E220",
            Error::Vector(_) => "SMG-E230",
            Error::Curation { code, .. } | Error::Embedding { code, .. } => code,
        }
    }

    /// Whether the error is about reading or writing bytes at all (exit code 2)
    /// rather than about their content (exit code 1).
    pub fn is_io(&self) -> bool {
        matches!(self, Error::Format(e) if e.is_io())
    }
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
