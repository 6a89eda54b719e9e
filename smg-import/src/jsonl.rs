//! The generic JSON Lines transcript (spec §16): one message per line.

use std::collections::HashMap;

use rayon::prelude::*;
use serde_json::Value;
use smg_format::model::role;

use crate::records::{rfc3339, str_field, unix_time, Records};
use smg_engine::ingest::{compact_record, Conversation, Imported, Message};
use smg_engine::Result;

use crate::records::{file_bytes, text};
use crate::{Importer, Input};

/// JSON Lines, one message per line (spec §16).
pub(crate) struct Jsonl;

impl Importer for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn read(&self, input: &Input, records: &mut Records<'_>) -> Result<Imported> {
        let text = text(file_bytes(input, records, self.name())?, records)?;
        Ok(Imported {
            format: self.name(),
            conversations: read(text, records)?,
            ..Imported::default()
        })
    }
}

/// Whether a lone JSON object reads as one message of this format.
pub(crate) fn looks_like(v: &Value) -> bool {
    let any = |keys: &[&str]| keys.iter().any(|k| v.get(*k).is_some());
    any(&["conversation_id", "conversationId"]) && any(&["content", "text"])
}

fn field<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().find_map(|k| v.get(*k))
}

/// The messages of `text`, grouped by conversation in the order each first speaks.
pub(crate) fn read(text: &str, records: &mut Records<'_>) -> Result<Vec<Conversation>> {
    let mut conversations: Vec<Conversation> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(|line| line.trim_start_matches('\u{feff}'))
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    // Lines are parsed side by side; what they say is taken in order.
    let parsed: Vec<_> = lines
        .into_par_iter()
        .map(|(n, line)| (n, parse(line)))
        .collect();
    for (n, got) in parsed {
        match got {
            Ok((conversation, message)) => {
                let at = *index.entry(conversation.clone()).or_insert_with(|| {
                    conversations.push(Conversation {
                        id: conversation,
                        ..Conversation::default()
                    });
                    conversations.len() - 1
                });
                conversations[at].messages.push(message);
            }
            Err(reason) => records.skip(format!("line {}", n + 1), reason)?,
        }
    }
    Ok(conversations)
}

fn parse(line: &str) -> std::result::Result<(String, Message), String> {
    match serde_json::from_str(line) {
        Ok(record @ Value::Object(_)) => message(record),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}

fn message(record: Value) -> std::result::Result<(String, Message), String> {
    let text_of = |keys: &[&str], what: &str| match field(&record, keys) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if what == "an id" => Ok(Some(n.to_string())),
        Some(_) => Err(format!("`{}` is not {what}", keys[0])),
    };
    let conversation =
        text_of(&["conversation_id", "conversationId"], "an id")?.ok_or("no `conversation_id`")?;
    let message_id =
        text_of(&["message_id", "messageId", "id"], "an id")?.ok_or("no `message_id`")?;
    let mut content = text_of(&["content", "text"], "a string")?.ok_or("no `content`")?;
    let speaker = text_of(&["speaker", "name"], "a string")?;
    let role = match text_of(&["role"], "a string")? {
        Some(raw) => crate::records::role(&raw)?,
        None if speaker.is_some() => role::USER,
        None => return Err("neither `role` nor `speaker`".into()),
    };
    let timestamp = match field(&record, &["timestamp", "created_at", "time"]) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            Some(rfc3339(s).ok_or(format!("`timestamp` {s:?} is not an RFC 3339 date-time"))?)
        }
        Some(v) => Some(unix_time(v).ok_or("`timestamp` is neither a date-time nor Unix seconds")?),
    };
    if let Some(list) = field(&record, &["attachments"]) {
        let list = list.as_array().ok_or("`attachments` is not an array")?;
        for a in list {
            let name = str_field(a, "name").or_else(|| str_field(a, "file_name"));
            let body = str_field(a, "content").or_else(|| str_field(a, "extracted_content"));
            if let Some(body) = body {
                content.push_str(&crate::claude::attachment(
                    name.unwrap_or("attachment"),
                    body,
                ));
            }
        }
    }
    let session_id = text_of(&["session_id", "sessionId"], "an id")?;
    let scope = match text_of(&["scope"], "a string")?.as_deref() {
        None | Some("personal") => None,
        Some("restricted") => Some(smg_format::model::Scope::Restricted),
        Some(other) => {
            return Err(format!(
                "`scope` {other:?} is neither personal nor restricted"
            ))
        }
    };
    Ok((
        conversation,
        Message {
            message_id,
            session_id,
            role,
            speaker,
            record: compact_record(&record, &content, None),
            content,
            timestamp,
            scope,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_group_by_conversation_and_bad_lines_are_counted() {
        let text = concat!(
            "{\"conversation_id\":\"a\",\"message_id\":\"1\",\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"2025-01-01T10:00:00Z\"}\n",
            "not json\n",
            "{\"conversation_id\":\"b\",\"message_id\":\"1\",\"speaker\":\"Ann\",\"content\":\"yo\",\"timestamp\":1700000000}\n",
            "{\"conversation_id\":\"a\",\"message_id\":\"2\",\"role\":\"assistant\",\"content\":\"hello\",",
            "\"attachments\":[{\"name\":\"notes.md\",\"content\":\"# Notes\\n\"}]}\n",
            "{\"conversation_id\":\"a\",\"role\":\"user\",\"content\":\"no id\"}\n",
        );
        let mut records = Records::new("t.jsonl", false);
        let convs = read(text, &mut records).unwrap();
        assert_eq!(convs.len(), 2);
        assert_eq!(convs[0].messages.len(), 2);
        assert_eq!(convs[1].messages[0].role, "user");
        assert_eq!(
            convs[1].messages[0].timestamp.as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
        assert!(convs[0].messages[1]
            .content
            .contains("```name=notes.md\n# Notes\n```"));
        let lines: Vec<_> = records
            .skipped
            .iter()
            .map(|s| s.position.as_str())
            .collect();
        assert_eq!(lines, ["line 2", "line 5"]);
        assert!(records.skipped[1].reason.contains("message_id"));
        let mut strict = Records::new("t.jsonl", true);
        let err = read(text, &mut strict).unwrap_err();
        assert!(err.to_string().contains("t.jsonl, line 2"), "{err}");
    }
}
