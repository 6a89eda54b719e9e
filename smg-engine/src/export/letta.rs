//! A Letta Agent File (`.af`) from a memory.
//!
//! A memory that a Letta file gave exports that file back: its fields, its agents
//! with their own fields, and each agent's messages in their places (from the turns'
//! source records and the records kept beside them). Any other memory becomes one
//! agent: its working memory as core memory blocks (`summary`, `goals`), its archive
//! as the agent's messages. What the file cannot hold is said.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Map, Value};
use smg_format::limits::Limits;
use smg_format::model::Turn;
use smg_format::Document;

use super::sources::{conversations, in_place_order, Conversation};
use super::Export;
use crate::error::Result;

const FORMAT: &str = "letta";

/// The memory as a Letta Agent File.
pub fn letta(doc: &Document, limits: &Limits) -> Result<Export> {
    let all = conversations(doc, limits)?;
    // Agents by file, files in the order of their first agent.
    let mut files: BTreeMap<(u64, String), Vec<&Conversation>> = BTreeMap::new();
    let mut keys: HashMap<&str, (u64, String)> = HashMap::new();
    for c in all.iter().filter(|c| c.format() == Some(FORMAT)) {
        if let Some(name) = file_of(c)
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
        {
            let order = c
                .entry
                .as_ref()
                .and_then(|e| e.get("order"))
                .and_then(Value::as_u64);
            let key = keys
                .entry(name)
                .or_insert_with(|| (order.unwrap_or(u64::MAX), name.to_string()));
            files.entry(key.clone()).or_default().push(c);
        }
    }
    let mut out = Gathered::default();
    let file = match files.into_iter().next() {
        Some((_, agents)) => {
            let file = restored(&agents, &mut out);
            let taken: HashSet<&str> = out.agents.iter().map(String::as_str).collect();
            let others: Vec<String> = all
                .iter()
                .filter(|c| !taken.contains(c.id.as_str()))
                .map(|c| c.id.clone())
                .collect();
            for id in others {
                out.left_out.push((
                    format!("conversation {id}"),
                    "an agent file per export: this one holds the first Letta file's agents".into(),
                ));
            }
            file
        }
        None => written(doc, &all, &mut out),
    };
    Ok(Export {
        text: super::json_text(&file),
        entities: out.blocks,
        conversations: out.agents.len(),
        messages: out.messages,
        left_out: out.left_out,
        ..Export::default()
    })
}

/// What an export gathered.
#[derive(Default)]
struct Gathered {
    agents: Vec<String>,
    messages: usize,
    blocks: usize,
    left_out: Vec<(String, String)>,
}

fn file_of(c: &Conversation) -> Option<&Value> {
    c.entry.as_ref()?.get("file")
}

/// A Letta file back from its agents' conversations.
fn restored(agents: &[&Conversation], out: &mut Gathered) -> Value {
    let mut agents = agents.to_vec();
    let place = |c: &Conversation| {
        file_of(c)
            .and_then(|f| f.get("agent"))
            .and_then(Value::as_u64)
    };
    agents.sort_by_key(|c| place(c));
    let mut top = agents
        .iter()
        .find_map(|c| file_of(c)?.get("fields")?.as_object().cloned())
        .unwrap_or_default();
    let mut list = Vec::new();
    for c in agents {
        let mut agent = c.header().cloned().unwrap_or_else(|| json!({}));
        let mut messages = in_place_order(c.records(FORMAT));
        let foreign: Vec<&Turn> = c.foreign_turns(FORMAT).collect();
        if !foreign.is_empty() {
            out.left_out.push((
                format!("{} turns of agent {}", foreign.len(), c.id),
                "not from the agent file: written as messages after its own".into(),
            ));
            let agent_id = agent.get("id").cloned().unwrap_or(Value::Null);
            let created = agent
                .get("created_at")
                .and_then(Value::as_str)
                .unwrap_or("");
            messages.extend(foreign.iter().map(|t| message(t, &agent_id, created)));
        }
        out.messages += messages.len();
        agent["messages"] = Value::Array(messages);
        out.agents.push(c.id.clone());
        list.push(agent);
    }
    out.blocks = top
        .get("blocks")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    top.insert("agents".into(), Value::Array(list));
    Value::Object(top)
}

/// One agent holding the whole memory.
fn written(doc: &Document, all: &[Conversation], out: &mut Gathered) -> Value {
    let agent_id = Value::from("agent-0");
    let mut turns: Vec<&Turn> = all.iter().flat_map(|c| &c.turns).collect();
    turns.sort_by_key(|t| t.turn);
    let messages: Vec<Value> = turns
        .iter()
        .map(|t| message(t, &agent_id, &doc.metadata.created))
        .collect();
    let blocks = blocks(doc);
    out.agents = all.iter().map(|c| c.id.clone()).collect();
    out.messages = messages.len();
    out.blocks = blocks.len();
    out.left_out.push((
        "llm_config, embedding_config".into(),
        "the memory names no model: Letta asks for one when the file is imported".into(),
    ));
    if !all.is_empty() {
        out.left_out.push((
            format!("{} conversations", all.len()),
            "written as one agent's messages, in turn order; their ids and sessions are not kept"
                .into(),
        ));
    }
    let block_ids: Vec<Value> = blocks.iter().map(|b| b["id"].clone()).collect();
    let ids: Vec<Value> = messages.iter().map(|m| m["id"].clone()).collect();
    json!({
        "agents": [{
            "id": agent_id,
            "name": agent_name(doc),
            "agent_type": "memgpt_v2_agent",
            "system": "",
            "description": "Exported by smg from a .smg memory.",
            "memory_blocks": [], "tools": [], "tool_ids": [], "source_ids": [],
            "block_ids": block_ids, "tool_rules": [], "tags": [],
            "llm_config": null, "embedding_config": null, "model": null, "embedding": null,
            "initial_message_sequence": null, "include_base_tools": false,
            "include_multi_agent_tools": false, "include_base_tool_rules": false,
            "include_default_source": false, "metadata": null,
            "message_buffer_autoclear": false, "enable_sleeptime": false,
            "timezone": "UTC", "in_context_message_ids": ids,
            "messages": messages, "files_agents": [], "group_ids": [],
        }],
        "groups": [], "blocks": blocks, "files": [], "sources": [], "tools": [],
        "mcp_servers": [], "metadata": {}, "created_at": doc.metadata.created,
    })
}

fn agent_name(doc: &Document) -> String {
    doc.metadata
        .extra
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("smg-memory")
        .to_string()
}

/// Working memory as core memory blocks.
fn blocks(doc: &Document) -> Vec<Value> {
    let wm = doc.working_memory.as_ref();
    let summary = wm.and_then(|w| w.summary.clone()).unwrap_or_default();
    let goals = wm
        .and_then(|w| w.current_goals.as_ref())
        .map(|g| {
            g.iter()
                .map(|g| format!("- {g}"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    [
        (
            "summary",
            summary,
            "Where things stand: the memory's working summary.",
        ),
        ("goals", goals, "What the user is working towards now."),
    ]
    .into_iter()
    .filter(|(_, value, _)| !value.is_empty())
    .enumerate()
    .map(|(i, (label, value, description))| {
        json!({
            "id": format!("block-{i}"), "label": label, "value": value,
            "limit": value.len().max(5000), "description": description,
            "is_template": false, "template_name": null, "preserve_on_migration": false,
            "read_only": false, "metadata": {}, "project_id": null, "template_id": null,
            "base_template_id": null, "deployment_id": null, "entity_id": null, "hidden": null,
        })
    })
    .collect()
}

/// A turn as a Letta message; a turn without a time takes `created`, since Letta
/// requires one.
fn message(t: &Turn, agent_id: &Value, created: &str) -> Value {
    let role = match t.role.as_str() {
        r @ ("user" | "assistant" | "system" | "tool") => r,
        _ => "user",
    };
    let mut m = Map::new();
    for (k, v) in [
        ("type", json!("message")),
        ("id", json!(format!("message-{}", t.turn))),
        ("role", json!(role)),
        (
            "content",
            json!([{"type": "text", "text": t.content, "signature": null}]),
        ),
        ("name", json!(t.speaker)),
        ("agent_id", agent_id.clone()),
        (
            "created_at",
            json!(t.timestamp.as_deref().unwrap_or(created)),
        ),
        ("model", Value::Null),
        ("otid", Value::Null),
        ("sender_id", Value::Null),
        ("batch_item_id", Value::Null),
        ("group_id", Value::Null),
        ("tool_calls", Value::Null),
        ("tool_call_id", Value::Null),
        ("tool_returns", json!([])),
    ] {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}
