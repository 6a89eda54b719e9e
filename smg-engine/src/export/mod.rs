//! A memory in other systems' formats. Each export says what it left out.
//!
//! | format | function |
//! |---|---|
//! | the MCP memory server's JSON Lines | [`mcp_memory`] |
//! | one readable Markdown document | [`markdown`] |
//! | ChatGPT's `conversations.json` | [`chatgpt`] |
//! | Claude.ai's `conversations.json` | [`claude`] |
//! | a Letta Agent File (`.af`) | [`letta`] |
//! | RDF N-Quads of the JSON-LD document | [`nquads`] |
//!
//! Conversations that an import of the same format gave come back equal to their
//! source records (spec §9.3).

mod chatgpt;
mod claude;
mod letta;
mod markdown;
mod mcp;
mod nquads;
mod sources;

pub use chatgpt::chatgpt;
pub use claude::claude;
pub use letta::letta;
pub use markdown::markdown;
pub use mcp::mcp_memory;
pub use nquads::nquads;

use serde_json::Value;

/// An export: the text, and what the target format cannot carry.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Export {
    /// The exported file's text.
    pub text: String,
    /// Entities (or records) written: MCP entities, Letta core memory blocks, quads.
    pub entities: usize,
    /// Relations written.
    pub relations: usize,
    /// Conversations (or Letta agents) written.
    pub conversations: usize,
    /// Messages written.
    pub messages: usize,
    /// What was left out: `(what, why)`, e.g. a node id and the reason.
    pub left_out: Vec<(String, String)>,
}

/// A conversation written from its turns for a format it did not come from.
fn rewritten(c: &sources::Conversation, target: &str) -> (String, String) {
    let from = c.format().unwrap_or("smg");
    (
        format!("conversation {}", c.id),
        format!(
            "from {from}, not a {target} export: written from its turns (text, role, time); its {from} records' own fields are not carried"
        ),
    )
}

/// A JSON array written an item at a time, so that an export never holds the whole
/// list as values: each conversation is text as soon as it is built.
#[derive(Default)]
struct JsonList {
    text: String,
    items: usize,
}

impl JsonList {
    fn push(&mut self, item: &Value) {
        self.text.push(if self.items == 0 { '[' } else { ',' });
        self.text.push_str(&item.to_string());
        self.items += 1;
    }

    fn len(&self) -> usize {
        self.items
    }

    /// The array's text with a final newline.
    fn finish(mut self) -> String {
        if self.items == 0 {
            self.text.push('[');
        }
        self.text.push_str("]\n");
        self.text
    }
}

/// Compact JSON text with a final newline.
fn json_text(v: &Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}
