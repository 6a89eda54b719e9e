//! The Letta Agent File (`.af`): one JSON document (or, as some tools write it, that
//! document as one JSON string) with `agents` (each with its `messages`), the core
//! memory `blocks` they share, `tools` with their source code, and LLM and embedding
//! configs.
//!
//! Each agent is a conversation (`FILE/AGENT-ID`, since ids like `agent-0` are local to
//! their file); its messages are turns; the agent's own fields are its header, and
//! the file's other fields go with its first agent, so that an export gives the file
//! back. Blocks become `memory` nodes and tools' code goes to the vault.

use serde_json::{json, Map, Value};
use smg_engine::ingest::{compact_record, Conversation, Imported, Message, Version};
use smg_engine::Result;
use smg_format::model::{role, Node, NonEmpty, Unit};

use crate::records::{file_bytes, rfc3339, str_field, text as utf8, without, Records};
use crate::{Importer, Input};

/// `created_by` of the nodes a Letta import makes.
const CREATED_BY: &str = "letta";

/// A Letta Agent File.
pub(crate) struct Letta;

impl Importer for Letta {
    fn name(&self) -> &'static str {
        "letta"
    }

    fn read(&self, input: &Input, records: &mut Records<'_>) -> Result<Imported> {
        let text = utf8(file_bytes(input, records, self.name())?, records)?;
        let doc = document(text.trim_start_matches('\u{feff}'), records)?;
        read(doc, records)
    }
}

/// Whether a parsed document reads as an agent file.
pub(crate) fn looks_like(v: &Value) -> bool {
    v.get("agents").is_some_and(Value::is_array)
}

/// The document of an agent file, decoding a double-encoded one.
fn document(text: &str, records: &Records<'_>) -> Result<Value> {
    let not_json = |e: serde_json::Error| {
        records.fail(
            format!("line {}, column {}", e.line(), e.column()),
            format!("not JSON: {e}"),
        )
    };
    let v: Value = serde_json::from_str(text).map_err(not_json)?;
    let v = match v {
        Value::String(inner) => serde_json::from_str(&inner)
            .map_err(|e| records.fail("the encoded document", format!("not JSON: {e}")))?,
        v => v,
    };
    if !looks_like(&v) {
        return Err(records.fail("start", "not an agent file: no `agents` array"));
    }
    Ok(v)
}

fn read(doc: Value, records: &mut Records<'_>) -> Result<Imported> {
    let Value::Object(mut top) = doc else {
        return Err(records.fail("start", "not an agent file: not an object"));
    };
    let agents = match top.remove("agents") {
        Some(Value::Array(a)) => a,
        _ => return Err(records.fail("start", "not an agent file: no `agents` array")),
    };
    let name = records.stem().to_string();
    let mut out = Imported {
        format: Letta.name(),
        ..Imported::default()
    };
    extras(&top, &name, &mut out, records)?;
    let mut fields = Some(top);
    for (a, agent) in agents.iter().enumerate() {
        let at = format!("agent {}", a + 1);
        let Some(id) = str_field(agent, "id") else {
            records.skip(at, "no `id`")?;
            continue;
        };
        let mut file = json!({"name": name, "agent": a});
        if let Some(fields) = fields.take() {
            file["fields"] = Value::Object(fields);
        }
        let mut conversation = Conversation {
            id: format!("{name}/{id}"),
            header: Some(without(agent, &["messages"]).unwrap_or_else(|| json!({}))),
            file: Some(file),
            ..Conversation::default()
        };
        for (m, msg) in crate::records::items(agent, "messages").enumerate() {
            match message(msg, m) {
                Ok(Some(message)) => conversation.messages.push(message),
                Ok(None) => conversation.others.push((Value::from(m), msg.clone())),
                Err(reason) => {
                    records.skip(format!("{at} ({id}), message {}", m + 1), reason)?;
                    conversation.others.push((Value::from(m), msg.clone()));
                }
            }
        }
        out.conversations.push(conversation);
    }
    Ok(out)
}

/// Blocks as nodes and tools' code as versions (written when the file was), from the
/// file's top level.
fn extras(
    top: &Map<String, Value>,
    file: &str,
    out: &mut Imported,
    records: &mut Records<'_>,
) -> Result<()> {
    let created = top
        .get("created_at")
        .and_then(Value::as_str)
        .and_then(rfc3339);
    let list = |key: &str| top.get(key).and_then(Value::as_array).into_iter().flatten();
    for (b, block) in list("blocks").enumerate() {
        match block_node(block, file) {
            Some(node) => out.nodes.push(node),
            None => records.skip(format!("block {}", b + 1), "no `id`, `label` or `value`")?,
        }
    }
    for tool in list("tools") {
        let code = str_field(tool, "source_code").filter(|c| !c.trim().is_empty());
        let (Some(name), Some(code)) = (str_field(tool, "name"), code) else {
            continue;
        };
        let (language, ext) = match str_field(tool, "source_type").unwrap_or("python") {
            "typescript" => ("typescript", "ts"),
            "javascript" => ("javascript", "js"),
            _ => ("python", "py"),
        };
        out.versions.push(Version {
            path: format!("{name}.{ext}"),
            content: code.into(),
            time: created.clone(),
            language: Some(language.into()),
        });
    }
    Ok(())
}

/// A core memory block as a `memory` node: its label, its value as content, its
/// limit and description kept.
fn block_node(block: &Value, file: &str) -> Option<Node> {
    let id = str_field(block, "id")?;
    let label = str_field(block, "label")?;
    let value = str_field(block, "value")?;
    let key = smg_format::vault::content_hash(&format!("{file}/{id}"));
    Some(Node {
        label: Some(label.to_string()),
        description: str_field(block, "description").map(str::to_string),
        content: Some(value.trim().to_string()).filter(|v| !v.is_empty()),
        importance: Some(Unit::clamped(0.9)),
        created_by: Some(CREATED_BY.into()),
        metadata: Some(json!({"letta": {
            "file": file, "block": id, "label": label, "limit": block.get("limit"),
        }})),
        ..Node::new(
            NonEmpty::joined(
                &NonEmpty::from_static("letta-"),
                &key["sha256:".len().."sha256:".len() + 12],
            ),
            NonEmpty::from_static("memory"),
        )
    })
}

/// Message `index` of an agent as a turn: `None` when it says nothing.
fn message(msg: &Value, index: usize) -> std::result::Result<Option<Message>, String> {
    let id = str_field(msg, "id").ok_or("no `id`")?;
    let raw = str_field(msg, "role").ok_or("no `role`")?;
    // An approval answers a tool call: a tool message in v1's roles.
    let role = if raw == "approval" {
        role::TOOL
    } else {
        crate::records::role(raw)?
    };
    let content = text(msg);
    if content.trim().is_empty() {
        return Ok(None);
    }
    let timestamp = match str_field(msg, "created_at") {
        Some(t) => Some(rfc3339(t).ok_or(format!("`created_at` {t:?} is not a date-time"))?),
        None => None,
    };
    Ok(Some(Message {
        message_id: id.to_string(),
        session_id: None,
        role,
        speaker: str_field(msg, "name").map(str::to_string),
        record: compact_record(msg, &content, Some(Value::from(index))),
        content,
        timestamp,
        scope: None,
    }))
}

/// A message's text: its content parts (text, reasoning, tool calls and returns), the
/// `send_message` calls that carry an agent's replies, other tool calls, and tool
/// returns when the content says nothing. A user message Letta wrapped as JSON
/// (`{"type": "user_message", "message": …}`) is unwrapped.
fn text(msg: &Value) -> String {
    let mut pieces: Vec<String> = match msg.get("content") {
        Some(Value::String(s)) => vec![unwrap_user(s)],
        Some(Value::Array(parts)) => parts.iter().filter_map(part).collect(),
        _ => Vec::new(),
    };
    for call in crate::records::items(msg, "tool_calls") {
        let f = call.get("function").unwrap_or(call);
        let name = str_field(f, "name").unwrap_or("tool");
        let args = str_field(f, "arguments").unwrap_or_default();
        let said = serde_json::from_str::<Value>(args)
            .ok()
            .and_then(|a| str_field(&a, "message").map(str::to_string));
        match said {
            Some(text) if name == "send_message" => pieces.push(text),
            _ => pieces.push(format!("[tool_call: {name}] {args}")),
        }
    }
    if pieces.iter().all(|p| p.trim().is_empty()) {
        for ret in crate::records::items(msg, "tool_returns") {
            if let Some(r) = str_field(ret, "func_response") {
                pieces.push(format!("[tool_return] {r}"));
            }
        }
    }
    pieces.retain(|p| !p.trim().is_empty());
    pieces.join("\n\n")
}

/// One content part as text.
fn part(p: &Value) -> Option<String> {
    match str_field(p, "type")? {
        "text" => str_field(p, "text").map(unwrap_user),
        "reasoning" => str_field(p, "reasoning").map(|r| format!("[reasoning] {r}")),
        "tool_call" => {
            let name = str_field(p, "name").unwrap_or("tool");
            let input = p.get("input").map(Value::to_string).unwrap_or_default();
            Some(format!("[tool_call: {name}] {input}"))
        }
        "tool_return" => str_field(p, "content").map(|c| format!("[tool_return] {c}")),
        "image" => Some("[image]".into()),
        _ => None,
    }
}

/// The message inside Letta's JSON wrapper of a user's words, else the text as is.
fn unwrap_user(text: &str) -> String {
    let wrapped = text.trim_start().starts_with('{')
        && text.contains("\"user_message\"")
        && text.contains("\"message\"");
    wrapped
        .then(|| serde_json::from_str::<Value>(text).ok())
        .flatten()
        .filter(|v| str_field(v, "type") == Some("user_message"))
        .and_then(|v| str_field(&v, "message").map(str::to_string))
        .unwrap_or_else(|| text.to_string())
}

#[cfg(test)]
mod tests;
