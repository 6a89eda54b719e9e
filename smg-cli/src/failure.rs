//! Why a command failed: an error of the file and engine crates, of the Neo4j bridge or
//! of the MCP server.

use std::fmt;

/// A command's error, with its stable code.
#[derive(Debug)]
pub(crate) enum Failure {
    Engine(smg_engine::Error),
    Neo4j(smg_neo4j::Error),
    Mcp(smg_mcp::Error),
}

impl Failure {
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Failure::Engine(e) => e.code(),
            Failure::Neo4j(e) => e.code(),
            Failure::Mcp(e) => e.code(),
        }
    }

    /// Exit 2 (could not read, write or reach) rather than 1 (bad input).
    pub(crate) fn is_io(&self) -> bool {
        match self {
            Failure::Engine(e) => e.is_io(),
            Failure::Neo4j(e) => e.is_io(),
            Failure::Mcp(e) => e.is_io(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Engine(e) => e.fmt(f),
            Failure::Neo4j(e) => e.fmt(f),
            Failure::Mcp(e) => e.fmt(f),
        }
    }
}

impl From<smg_engine::Error> for Failure {
    fn from(e: smg_engine::Error) -> Self {
        Failure::Engine(e)
    }
}

impl From<smg_format::Error> for Failure {
    fn from(e: smg_format::Error) -> Self {
        Failure::Engine(e.into())
    }
}

impl From<smg_neo4j::Error> for Failure {
    fn from(e: smg_neo4j::Error) -> Self {
        Failure::Neo4j(e)
    }
}

impl From<smg_mcp::Error> for Failure {
    fn from(e: smg_mcp::Error) -> Self {
        Failure::Mcp(e)
    }
}
