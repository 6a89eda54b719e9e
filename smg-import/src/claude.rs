//! The Claude.ai data export: `conversations.json`, an array of conversations with
//! `chat_messages`, each with content blocks and attachments.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::records::{rfc3339, str_field, without, Records};
use smg_engine::ingest::{compact_record, Conversation, Message};
use smg_engine::Result;

export_importer!(
    /// Claude.ai's data export (`conversations.json`).
    Claude,
    "claude",
    read
);

pub(crate) fn read(list: &[&RawValue], records: &mut Records<'_>) -> Result<Vec<Conversation>> {
    let mut out = Vec::new();
    for (c, raw) in list.iter().enumerate() {
        let at = format!("conversation {}", c + 1);
        let Some(conv) = crate::records::conversation(raw, &at, records)? else {
            continue;
        };
        let conv = &conv;
        let Some(id) = str_field(conv, "uuid") else {
            records.skip(at, "no `uuid`")?;
            continue;
        };
        let Some(messages) = conv.get("chat_messages").and_then(Value::as_array) else {
            records.skip(format!("{at} ({id})"), "no `chat_messages` array")?;
            continue;
        };
        let mut conversation = Conversation {
            id: id.to_string(),
            header: without(conv, &["chat_messages"]),
            ..Conversation::default()
        };
        for (m, msg) in messages.iter().enumerate() {
            let at = format!("{at} ({id}), message {}", m + 1);
            match message(msg, m) {
                Ok(Some(message)) => conversation.messages.push(message),
                Ok(None) => conversation.others.push((Value::from(m), msg.clone())),
                Err(reason) => {
                    records.skip(at, reason)?;
                    conversation.others.push((Value::from(m), msg.clone()));
                }
            }
        }
        out.push(conversation);
    }
    Ok(out)
}

/// Message `index` of its conversation.
fn message(msg: &Value, index: usize) -> std::result::Result<Option<Message>, String> {
    let id = str_field(msg, "uuid").ok_or("no `uuid`")?;
    let sender = str_field(msg, "sender").ok_or("no `sender`")?;
    let role = crate::records::role(sender)?;
    let mut content = match msg.get("content").and_then(Value::as_array) {
        Some(blocks) if !blocks.is_empty() => blocks
            .iter()
            .filter_map(block_text)
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => str_field(msg, "text").unwrap_or_default().to_string(),
    };
    for a in crate::records::items(msg, "attachments") {
        let name = str_field(a, "file_name").unwrap_or("attachment");
        match str_field(a, "extracted_content") {
            Some(body) => content.push_str(&attachment(name, body)),
            None => content.push_str(&format!("\n\n[attachment: {name}]")),
        }
    }
    for f in crate::records::items(msg, "files") {
        if let Some(name) = str_field(f, "file_name") {
            content.push_str(&format!("\n\n[file: {name}]"));
        }
    }
    let timestamp = match str_field(msg, "created_at") {
        Some(t) => Some(rfc3339(t).ok_or(format!("`created_at` {t:?} is not a date-time"))?),
        None => None,
    };
    if content.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(Message {
        message_id: id.to_string(),
        session_id: None,
        role,
        speaker: None,
        record: compact_record(msg, &content, Some(Value::from(index))),
        content,
        timestamp,
        scope: None,
    }))
}

/// The text of one content block: text, thinking, tool calls and their results.
fn block_text(block: &Value) -> Option<String> {
    match str_field(block, "type")? {
        "text" => str_field(block, "text").map(str::to_string),
        "thinking" => str_field(block, "thinking").map(|t| format!("[thinking]\n{t}")),
        "tool_use" => {
            let name = str_field(block, "name").unwrap_or("tool");
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            Some(format!("[tool_use: {name}] {input}"))
        }
        "tool_result" => {
            let text = match block.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| str_field(p, "text"))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            Some(format!("[tool_result] {text}"))
        }
        _ => str_field(block, "text").map(str::to_string),
    }
}

/// An attached document as a fenced block named after the file, so that the vault
/// stores it (and its revisions) like pasted code. The fence is longer than any run
/// of backticks inside.
pub(super) fn attachment(name: &str, body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let name: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("\n\n{fence}name={name}\n{body}{newline}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_attachments_and_thinking_become_text() {
        let v: Value = serde_json::json!([{
        "uuid": "c1", "name": "T", "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": "see file", "created_at": "2025-10-01T18:00:00Z",
             "content": [{"type": "text", "text": "see file"}],
             "attachments": [{"file_name": "a b.txt", "extracted_content": "x ``` y"}]},
            {"uuid": "m2", "sender": "assistant", "text": "",
             "content": [{"type": "thinking", "thinking": "hmm"},
                         {"type": "tool_use", "name": "search", "input": {"q": "x"}},
                         {"type": "tool_result", "content": [{"type": "text", "text": "found"}]},
                         {"type": "token_budget", "budget": 5}]},
            {"uuid": "m3", "sender": "assistant", "text": "", "content": [{"type": "token_budget"}]},
            {"sender": "human", "text": "no id"}
        ]}]);
        let mut records = Records::new("c.json", false);
        let convs = crate::records::read_value(&v, &mut records, read).unwrap();
        let m = &convs[0].messages;
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].role, "user");
        assert!(
            m[0].content.ends_with("\n\n````name=ab.txt\nx ``` y\n````"),
            "{:?}",
            m[0].content
        );
        assert_eq!(
            m[1].content,
            "[thinking]\nhmm\n\n[tool_use: search] {\"q\":\"x\"}\n\n[tool_result] found"
        );
        assert_eq!(records.skipped.len(), 1);
        assert!(records.skipped[0].position.ends_with("message 4"));
        assert!(convs[0]
            .header
            .as_ref()
            .unwrap()
            .get("chat_messages")
            .is_none());
    }
}
