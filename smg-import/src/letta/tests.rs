use super::*;

fn import(
    text: &str,
) -> (
    Vec<Conversation>,
    Imported,
    Vec<smg_engine::ingest::Skipped>,
) {
    let mut records = Records::new("dir/agent.af", false);
    let doc = document(text, &records).unwrap();
    let mut got = read(doc, &mut records).unwrap();
    (std::mem::take(&mut got.conversations), got, records.skipped)
}

fn sample() -> Value {
    json!({
        "agents": [{
            "id": "agent-0", "name": "helper", "block_ids": ["block-0"],
            "llm_config": {"model": "gpt-4o-mini"},
            "messages": [
                {"id": "message-0", "role": "system", "created_at": "2025-11-21T03:09:21.194471+00:00",
                 "content": [{"type": "text", "text": "You are helpful."}]},
                {"id": "message-1", "role": "user", "created_at": "2025-11-21T03:10:00+00:00",
                 "content": [{"type": "text", "text": "{\"type\": \"user_message\", \"message\": \"Where is my order 42?\", \"time\": \"x\"}"}]},
                {"id": "message-2", "role": "assistant", "content": [{"type": "reasoning", "reasoning": "look it up"}],
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "check_order", "arguments": "{\"n\": 42}"}}]},
                {"id": "message-3", "role": "tool", "tool_call_id": "c1", "content": [],
                 "tool_returns": [{"tool_call_id": "c1", "status": "success", "func_response": "shipped"}]},
                {"id": "message-4", "role": "assistant", "content": [],
                 "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "send_message", "arguments": "{\"message\": \"Ünïcode: it shipped.\"}"}}]},
                {"id": "message-5", "role": "assistant", "content": []},
                {"role": "user", "content": "no id"},
                {"id": "message-7", "role": "critic", "content": "who?"}
            ]
        }],
        "blocks": [{"id": "block-0", "label": "human", "value": "Name: Ada\n", "limit": 5000}, {"label": "x"}],
        "tools": [
            {"name": "check_order", "source_type": "python", "source_code": "def check_order(n):\n    return 'shipped'\n"},
            {"name": "memory", "source_code": null}
        ],
        "created_at": "2025-11-21T03:09:19.093612+00:00"
    })
}

#[test]
fn messages_become_turns_and_nothing_is_lost() {
    let (convs, extras, skipped) = import(&sample().to_string());
    let c = &convs[0];
    assert_eq!(c.id, "agent/agent-0");
    let texts: Vec<&str> = c.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "You are helpful.",
            "Where is my order 42?",
            "[reasoning] look it up\n\n[tool_call: check_order] {\"n\": 42}",
            "[tool_return] shipped",
            "Ünïcode: it shipped.",
        ]
    );
    let roles: Vec<&str> = c.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    assert_eq!(
        c.messages[0].timestamp.as_deref(),
        Some("2025-11-21T03:09:21.194471Z")
    );
    // The empty message, the one without an id and the unknown role are kept whole.
    let places: Vec<&Value> = c.others.iter().map(|(p, _)| p).collect();
    assert_eq!(places, [&json!(5), &json!(6), &json!(7)]);
    assert_eq!(skipped.len(), 2 + 1, "{skipped:?}");
    assert!(skipped.iter().any(|s| s.reason.contains("critic")));
    assert!(skipped.iter().any(|s| s.position == "block 2"));
    let header = c.header.as_ref().unwrap();
    assert!(header.get("messages").is_none());
    assert_eq!(header["llm_config"]["model"], "gpt-4o-mini");
    let file = c.file.as_ref().unwrap();
    assert_eq!(file["fields"]["tools"][0]["name"], "check_order");
    assert!(file["fields"].get("agents").is_none());
    assert_eq!(extras.nodes.len(), 1);
    assert_eq!(extras.nodes[0].content.as_deref(), Some("Name: Ada"));
    assert_eq!(extras.versions.len(), 1);
    assert_eq!(extras.versions[0].path, "check_order.py");
    assert_eq!(extras.versions[0].language.as_deref(), Some("python"));
}

#[test]
fn a_double_encoded_file_loads_the_same() {
    let plain = sample().to_string();
    let double = Value::String(plain.clone()).to_string();
    assert_eq!(import(&plain).0, import(&double).0);
}

#[test]
fn a_wrong_shape_names_the_file() {
    let records = Records::new("x.af", false);
    for bad in ["{\"agents\": 3}", "[1]", "\"[1]\"", "{", ""] {
        let err = document(bad, &records).unwrap_err();
        assert_eq!(err.code(), "SMG-E210", "{bad}: {err}");
        assert!(err.to_string().contains("x.af"), "{err}");
    }
}
