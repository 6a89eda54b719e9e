//! ChatGPT's `conversations.json` from a memory: each conversation a `mapping` tree.
//!
//! A conversation a ChatGPT export gave comes back as it was: its own fields, its
//! thread's messages from the turns' source records in their nodes, and every other
//! node (root, hidden and empty messages, other branches) from the records the
//! archive keeps beside it. Conversations from elsewhere are written from their turns
//! as one thread, and said.

use serde_json::{json, Map, Value};
use smg_format::limits::Limits;
use smg_format::model::Turn;
use smg_format::Document;

use super::sources::{conversations, unix_seconds, Conversation};
use super::Export;
use crate::error::Result;

const FORMAT: &str = "chatgpt";

/// The memory's conversations as a ChatGPT export (`conversations.json`).
pub fn chatgpt(doc: &Document, limits: &Limits) -> Result<Export> {
    let mut out = Export::default();
    let mut list = super::JsonList::default();
    for c in conversations(doc, limits)? {
        let (conv, messages) = if c.format() == Some(FORMAT) && c.header().is_some() {
            restored(&c, &mut out)
        } else {
            out.left_out.push(super::rewritten(&c, "ChatGPT"));
            written(&c)
        };
        out.messages += messages;
        list.push(&conv);
    }
    out.conversations = list.len();
    out.text = list.finish();
    Ok(out)
}

/// A ChatGPT conversation back from its header, its turns and its other nodes.
fn restored(c: &Conversation, out: &mut Export) -> (Value, usize) {
    let mut conv = c.header().cloned().unwrap_or_else(|| json!({}));
    let mut mapping = Map::new();
    let mut messages = 0;
    for (place, record) in c.records(FORMAT) {
        match place {
            // A turn: its node, with its message put back.
            Some(Value::Object(mut node)) => {
                let key = node
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| record.get("id")?.as_str().map(str::to_string))
                    .unwrap_or_default();
                node.insert("message".into(), record);
                mapping.insert(key, Value::Object(node));
                messages += 1;
            }
            // A node kept whole, by its key.
            Some(Value::String(key)) => {
                messages += usize::from(record.get("message").is_some_and(|m| !m.is_null()));
                mapping.insert(key, record);
            }
            _ => out.left_out.push((
                format!("a record of conversation {}", c.id),
                "archived before records kept their place in the tree (re-ingest the export to restore it)".into(),
            )),
        }
    }
    let extra: Vec<&Turn> = c.foreign_turns(FORMAT).collect();
    if !extra.is_empty() {
        out.left_out.push((
            format!("{} turns of conversation {}", extra.len(), c.id),
            "not from a ChatGPT export: added to its tree as one thread after its current node"
                .into(),
        ));
        let current = conv
            .get("current_node")
            .and_then(Value::as_str)
            .map(str::to_string);
        let last = thread(&mut mapping, current, &extra);
        conv["current_node"] = Value::String(last);
        messages += extra.len();
    }
    conv["mapping"] = Value::Object(mapping);
    (conv, messages)
}

/// A conversation from elsewhere, written from its turns as one thread.
fn written(c: &Conversation) -> (Value, usize) {
    let root = format!("{}-root", c.id);
    let mut mapping = Map::new();
    mapping.insert(
        root.clone(),
        json!({"id": root, "message": null, "parent": null, "children": []}),
    );
    let turns: Vec<&Turn> = c.turns.iter().collect();
    let last = thread(&mut mapping, Some(root), &turns);
    let time = |t: Option<&Turn>| {
        t.and_then(|t| t.timestamp.as_deref())
            .and_then(unix_seconds)
            .map_or(Value::Null, Value::from)
    };
    let conv = json!({
        "id": c.id,
        "conversation_id": c.id,
        "title": c.title(),
        "create_time": time(c.turns.first()),
        "update_time": time(c.turns.last()),
        "mapping": mapping,
        "current_node": last,
    });
    (conv, c.turns.len())
}

/// Hang `turns` below node `from` as one thread; the last node's key.
fn thread(mapping: &mut Map<String, Value>, from: Option<String>, turns: &[&Turn]) -> String {
    let mut parent = from;
    for t in turns {
        let key = t
            .message_id
            .clone()
            .map_or_else(|| format!("turn-{}", t.turn), String::from);
        if let Some(children) = parent
            .as_ref()
            .and_then(|p| mapping.get_mut(p))
            .and_then(|n| n.get_mut("children"))
            .and_then(Value::as_array_mut)
        {
            children.push(Value::String(key.clone()));
        }
        let node =
            json!({"id": key, "message": message(t, &key), "parent": parent, "children": []});
        mapping.insert(key.clone(), node);
        parent = Some(key);
    }
    parent.unwrap_or_default()
}

/// A turn as a ChatGPT message.
fn message(t: &Turn, id: &str) -> Value {
    json!({
        "id": id,
        "author": {"role": t.role, "name": t.speaker, "metadata": {}},
        "create_time": t.timestamp.as_deref().and_then(unix_seconds),
        "update_time": null,
        "content": {"content_type": "text", "parts": [t.content]},
        "status": "finished_successfully",
        "end_turn": null,
        "weight": 1.0,
        "metadata": {},
        "recipient": "all",
    })
}
