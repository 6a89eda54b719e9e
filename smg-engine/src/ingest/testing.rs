//! Transcripts for this crate's tests, built as an importer would give them: the
//! readers live in `smg-import`, which depends on this crate.

use serde_json::Value;
use smg_format::model::{role, Timestamp};

use super::{compact_record, Conversation, Imported, Message};

/// JSON Lines of spec §16 (`conversation_id`, `message_id`, `role` or `speaker`,
/// `content`, an RFC 3339 `timestamp`, `session_id`, `scope`) as conversations of
/// messages, each keeping its record. Only well-formed lines are given.
pub(crate) fn jsonl(text: impl AsRef<[u8]>) -> Imported {
    let text = std::str::from_utf8(text.as_ref()).expect("UTF-8");
    let mut out = Imported {
        format: "jsonl",
        bytes: text.len() as u64,
        ..Imported::default()
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let record: Value = serde_json::from_str(line).expect("a JSON line");
        let field = |k: &str| match record.get(k) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let conversation = field("conversation_id").expect("conversation_id");
        let content = field("content").expect("content");
        let role = match field("role").as_deref() {
            Some("assistant") => role::ASSISTANT,
            Some("system") => role::SYSTEM,
            Some("tool") => role::TOOL,
            _ => role::USER,
        };
        let message = Message {
            message_id: field("message_id").expect("message_id"),
            session_id: field("session_id"),
            role,
            speaker: field("speaker"),
            timestamp: field("timestamp").map(|t| Timestamp::new(t).expect("RFC 3339")),
            record: compact_record(&record, &content, None),
            content,
            scope: (field("scope").as_deref() == Some("restricted"))
                .then_some(smg_format::model::Scope::Restricted),
        };
        match out.conversations.iter_mut().find(|c| c.id == conversation) {
            Some(c) => c.messages.push(message),
            None => out.conversations.push(Conversation {
                id: conversation,
                messages: vec![message],
                ..Conversation::default()
            }),
        }
    }
    out
}
