//! Claude.ai's `conversations.json` from a memory: conversations with `chat_messages`.
//!
//! A conversation a Claude export gave comes back as it was: its own fields and its
//! messages, in their places, from the turns' source records and the records the
//! archive keeps beside it (empty messages, malformed ones). Conversations from
//! elsewhere are written from their turns, and said; Claude's messages are a human's
//! or the assistant's, so system and tool turns are left out, and said.

use serde_json::{json, Value};
use smg_format::limits::Limits;
use smg_format::model::Turn;
use smg_format::Document;

use super::sources::{conversations, in_place_order, Conversation};
use super::Export;
use crate::error::Result;

const FORMAT: &str = "claude";

/// The memory's conversations as a Claude export (`conversations.json`).
pub fn claude(doc: &Document, limits: &Limits) -> Result<Export> {
    let mut out = Export::default();
    let mut list = super::JsonList::default();
    for c in conversations(doc, limits)? {
        let mut conv = if c.format() == Some(FORMAT) && c.header().is_some() {
            let mut conv = c.header().cloned().unwrap_or_else(|| json!({}));
            conv["chat_messages"] = Value::Array(in_place_order(c.records(FORMAT)));
            conv
        } else {
            out.left_out.push(super::rewritten(&c, "Claude"));
            header(&c)
        };
        let mut written = Vec::new();
        for t in c.foreign_turns(FORMAT) {
            match sender(&t.role) {
                Some(sender) => written.push(message(t, sender)),
                None => out.left_out.push((
                    format!("turn {} ({})", t.turn, t.role),
                    "a Claude export holds only human and assistant messages".into(),
                )),
            }
        }
        if let Some(messages) = conv["chat_messages"].as_array_mut() {
            messages.extend(written);
            out.messages += messages.len();
        }
        list.push(&conv);
    }
    out.conversations = list.len();
    out.text = list.finish();
    Ok(out)
}

/// A conversation's own fields, written for one from elsewhere.
fn header(c: &Conversation) -> Value {
    let time = |t: Option<&Turn>| t.and_then(|t| t.timestamp.clone());
    json!({
        "uuid": c.id,
        "name": c.title(),
        "created_at": time(c.turns.first()),
        "updated_at": time(c.turns.last()),
        "chat_messages": [],
    })
}

fn sender(role: &str) -> Option<&'static str> {
    match role {
        "user" => Some("human"),
        "assistant" => Some("assistant"),
        _ => None,
    }
}

/// A turn as a Claude message.
fn message(t: &Turn, sender: &str) -> Value {
    let id = t
        .message_id
        .clone()
        .map_or_else(|| format!("turn-{}", t.turn), String::from);
    json!({
        "uuid": id,
        "text": t.content,
        "content": [{"type": "text", "text": t.content}],
        "sender": sender,
        "created_at": t.timestamp,
        "updated_at": t.timestamp,
        "attachments": [],
        "files": [],
    })
}
