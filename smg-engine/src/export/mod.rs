//! A memory in other systems' formats. Each export says what it left out.
//!
//! | format | function |
//! |---|---|
//! | the MCP memory server's JSON Lines | [`mcp_memory`] |
//! | one readable Markdown document | [`markdown`] |

mod markdown;
mod mcp;

pub use markdown::markdown;
pub use mcp::mcp_memory;

/// An export: the text, and what the target format cannot carry.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Export {
    /// The exported file's text.
    pub text: String,
    /// Entities (or records) written.
    pub entities: usize,
    /// Relations written.
    pub relations: usize,
    /// What was left out: `(what, why)`, e.g. a node id and the reason.
    pub left_out: Vec<(String, String)>,
}
