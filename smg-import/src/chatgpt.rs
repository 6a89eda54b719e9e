//! The ChatGPT data export: `conversations.json`, an array of conversations whose
//! messages form a tree (`mapping`); the active thread runs from `current_node` back to
//! the root.

use std::collections::{BTreeMap, HashSet};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::records::{str_field, unix_time, without, Records};
use smg_engine::ingest::{compact_record, Conversation, Message};
use smg_engine::Result;

export_importer!(
    /// ChatGPT's data export (`conversations.json`).
    Chatgpt,
    "chatgpt",
    read
);

fn read(list: &[&RawValue], records: &mut Records<'_>) -> Result<Vec<Conversation>> {
    let mut out = Vec::new();
    for (c, raw) in list.iter().enumerate() {
        let at = format!("conversation {}", c + 1);
        let Some(conv) = crate::records::conversation(raw, &at, records)? else {
            continue;
        };
        let conv = &conv;
        let Some(id) = str_field(conv, "id").or_else(|| str_field(conv, "conversation_id")) else {
            records.skip(at, "no `id`")?;
            continue;
        };
        let Some(mapping) = conv.get("mapping").and_then(Value::as_object) else {
            records.skip(format!("{at} ({id})"), "no `mapping` object")?;
            continue;
        };
        let nodes: BTreeMap<&str, &Value> = mapping.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut conversation = Conversation {
            id: id.to_string(),
            header: without(conv, &["mapping"]),
            ..Conversation::default()
        };
        let mut turned = HashSet::new();
        for node_id in thread(&nodes, str_field(conv, "current_node")) {
            let node = nodes[node_id];
            let Some(msg) = node.get("message").filter(|m| !m.is_null()) else {
                continue;
            };
            match message(msg, node_id, place(node)) {
                Ok(Some(m)) => {
                    turned.insert(node_id);
                    conversation.messages.push(m);
                }
                Ok(None) => {}
                Err(reason) => records.skip(format!("{at} ({id}), node {node_id}"), reason)?,
            }
        }
        // The root, empty and hidden messages, other branches: kept whole.
        conversation.others = nodes
            .iter()
            .filter(|(k, _)| !turned.contains(*k))
            .map(|(k, node)| (Value::from(*k), (*node).clone()))
            .collect();
        out.push(conversation);
    }
    Ok(out)
}

/// The active thread, root first: from `current` (or else the latest leaf) up the
/// `parent` links. A cycle or a dangling parent ends the walk.
fn thread<'a>(nodes: &BTreeMap<&'a str, &'a Value>, current: Option<&str>) -> Vec<&'a str> {
    let leaf = current
        .and_then(|c| nodes.get_key_value(c).map(|(k, _)| *k))
        .or_else(|| latest_leaf(nodes));
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut at = leaf;
    while let Some(id) = at {
        if !seen.insert(id) {
            break;
        }
        path.push(id);
        at = nodes[id]
            .get("parent")
            .and_then(Value::as_str)
            .and_then(|p| nodes.get_key_value(p).map(|(k, _)| *k));
    }
    path.reverse();
    path
}

fn latest_leaf<'a>(nodes: &BTreeMap<&'a str, &'a Value>) -> Option<&'a str> {
    let parents: HashSet<&str> = nodes
        .values()
        .filter_map(|n| n.get("parent").and_then(Value::as_str))
        .collect();
    let time = |n: &Value| {
        n.get("message")
            .and_then(|m| m.get("create_time"))
            .and_then(Value::as_f64)
            .unwrap_or(f64::MIN)
    };
    nodes
        .iter()
        .filter(|(id, _)| !parents.contains(**id))
        .max_by(|a, b| time(a.1).total_cmp(&time(b.1)).then(a.0.cmp(b.0)))
        .map(|(id, _)| *id)
}

/// A node of the tree without its message: where a message sat.
fn place(node: &Value) -> Value {
    let fields: Map<String, Value> = node
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| *k != "message")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(fields)
}

/// The message of a node of the tree, its node (without the message) as its place.
fn message(
    msg: &Value,
    node_id: &str,
    node: Value,
) -> std::result::Result<Option<Message>, String> {
    let author = msg.get("author").and_then(|a| str_field(a, "role"));
    let role = crate::records::role(author.ok_or("no `author.role`")?)?;
    let content = msg.get("content").ok_or("no `content`")?;
    let text = render(content);
    if text.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(Message {
        message_id: str_field(msg, "id").unwrap_or(node_id).to_string(),
        session_id: None,
        role,
        speaker: msg
            .get("author")
            .and_then(|a| str_field(a, "name"))
            .map(str::to_string),
        record: compact_record(msg, &text, Some(node)),
        content: text,
        timestamp: msg.get("create_time").and_then(unix_time),
        scope: None,
    }))
}

/// A message's content as text, whatever its `content_type`: text and multimodal
/// parts, code (fenced, with its language), tool output, reasoning, quotes, custom
/// instructions; an image is named by its pointer.
fn render(content: &Value) -> String {
    let mut pieces: Vec<String> = Vec::new();
    for part in crate::records::items(content, "parts") {
        match part {
            Value::String(s) => pieces.push(s.clone()),
            Value::Object(_) => match str_field(part, "content_type") {
                Some("audio_transcription") | None => {
                    pieces.extend(str_field(part, "text").map(str::to_string))
                }
                Some(kind) => {
                    let pointer = str_field(part, "asset_pointer").unwrap_or_default();
                    pieces.push(format!("[{kind}: {pointer}]").replace(": ]", "]"));
                }
            },
            _ => {}
        }
    }
    for key in ["text", "result", "user_profile", "user_instructions"] {
        pieces.extend(str_field(content, key).map(str::to_string));
    }
    if let Some(s) = str_field(content, "content") {
        pieces.push(s.to_string());
    }
    for t in crate::records::items(content, "thoughts") {
        let summary = str_field(t, "summary").unwrap_or_default();
        let body = str_field(t, "content").unwrap_or_default();
        pieces.push(format!("{summary}\n{body}").trim().to_string());
    }
    let text = pieces.join("\n");
    if str_field(content, "content_type") == Some("code") && !text.trim().is_empty() {
        let language = str_field(content, "language").filter(|l| *l != "unknown");
        let newline = if text.ends_with('\n') { "" } else { "\n" };
        return format!("```{}\n{text}{newline}```", language.unwrap_or_default());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(
        id: &str,
        parent: Option<&str>,
        role: &str,
        content: Value,
        time: Value,
    ) -> (String, Value) {
        (
            id.to_string(),
            json!({"id": id, "parent": parent, "message": {"id": id, "author": {"role": role}, "create_time": time, "content": content}}),
        )
    }

    #[test]
    fn the_active_thread_is_followed_from_current_node() {
        let text = |s: &str| json!({"content_type": "text", "parts": [s]});
        let mapping: serde_json::Map<String, Value> = [
            (
                "root".to_string(),
                json!({"id": "root", "parent": null, "message": null}),
            ),
            node("s", Some("root"), "system", text(""), Value::Null),
            node(
                "u1",
                Some("s"),
                "user",
                text("question"),
                json!(1700000000.5),
            ),
            node(
                "a1",
                Some("u1"),
                "assistant",
                text("old answer"),
                json!(1700000001),
            ),
            node(
                "a2",
                Some("u1"),
                "assistant",
                text("new answer"),
                json!(1700000002),
            ),
        ]
        .into_iter()
        .collect();
        let conv = json!([{"id": "c", "current_node": "a1", "mapping": mapping}]);
        let mut records = Records::new("c.json", true);
        let got = crate::records::read_value(&conv, &mut records, read).unwrap();
        let texts: Vec<_> = got[0].messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["question", "old answer"]);
        assert_eq!(
            got[0].messages[0].timestamp.as_deref(),
            Some("2023-11-14T22:13:20.500Z")
        );
        // Without current_node: the latest leaf.
        let mut conv = conv;
        conv[0].as_object_mut().unwrap().remove("current_node");
        let got = crate::records::read_value(&conv, &mut records, read).unwrap();
        assert_eq!(got[0].messages[1].content, "new answer");
    }

    #[test]
    fn content_types_render_as_text() {
        assert_eq!(
            render(&json!({"content_type": "code", "language": "python", "text": "print(1)"})),
            "```python\nprint(1)\n```"
        );
        assert_eq!(
            render(
                &json!({"content_type": "multimodal_text", "parts": ["look", {"content_type": "image_asset_pointer", "asset_pointer": "file-1"}]})
            ),
            "look\n[image_asset_pointer: file-1]"
        );
        assert_eq!(
            render(
                &json!({"content_type": "thoughts", "thoughts": [{"summary": "S", "content": "C"}]})
            ),
            "S\nC"
        );
        assert_eq!(
            render(
                &json!({"content_type": "user_editable_context", "user_profile": "P", "user_instructions": "I"})
            ),
            "P\nI"
        );
    }

    #[test]
    fn a_parent_cycle_ends_the_walk() {
        let mapping = json!({
            "a": {"parent": "b", "message": {"author": {"role": "user"}, "content": {"parts": ["A"]}}},
            "b": {"parent": "a", "message": {"author": {"role": "user"}, "content": {"parts": ["B"]}}}
        });
        let conv = json!({"id": "c", "current_node": "a", "mapping": mapping});
        let got =
            crate::records::read_value(&conv, &mut Records::new("c.json", true), read).unwrap();
        assert_eq!(got[0].messages.len(), 2);
    }
}
