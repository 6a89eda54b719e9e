//! Which format a file is, told from its content.

use serde_json::value::RawValue;
use serde_json::Value;
use smg_engine::{Error, Result};

use crate::records::text;
use crate::{Format, Records};

/// The format of `bytes`, named `file` in messages.
pub(crate) fn detect(file: &str, bytes: &[u8]) -> Result<Format> {
    detect_text(file, text(bytes, &Records::new(file, true))?)
}

/// Tell the format from the content: the first JSON value decides (the first line of
/// JSON Lines, else the first conversation of one JSON document).
pub(crate) fn detect_text(file: &str, text: &str) -> Result<Format> {
    let unknown = |detail: &str| Error::Import {
        file: file.to_string(),
        position: "start".into(),
        detail: format!("{detail}; name the format with --from"),
    };
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let first_line = trimmed.lines().next().unwrap_or("");
    if trimmed.starts_with('{') && serde_json::from_str::<Value>(first_line).is_ok() {
        let more = trimmed.lines().nth(1).is_some_and(|l| !l.trim().is_empty());
        let v: Value = serde_json::from_str(first_line).unwrap_or(Value::Null);
        if crate::mcp_memory::looks_like(&v) {
            return Ok(Format::McpMemory);
        }
        if more || crate::jsonl::looks_like(&v) {
            return Ok(Format::Jsonl);
        }
    }
    // Only the first conversation is parsed to look at: an export can be large.
    let not_json =
        |e: serde_json::Error| unknown(&format!("neither JSON Lines nor one JSON document ({e})"));
    let top: &RawValue = serde_json::from_str(trimmed).map_err(not_json)?;
    let items: Option<Vec<&RawValue>> = serde_json::from_str(top.get()).ok();
    let first = match &items {
        Some(items) => items.first().copied(),
        None => Some(top),
    };
    let sample: Value = first
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null);
    let has = |k: &str| sample.get(k).is_some();
    let encoded =
        |s: &str| serde_json::from_str::<Value>(s).is_ok_and(|v| crate::letta::looks_like(&v));
    if crate::letta::looks_like(&sample) || sample.as_str().is_some_and(encoded) {
        Ok(Format::Letta)
    } else if has("mapping") {
        Ok(Format::Chatgpt)
    } else if has("chat_messages") {
        Ok(Format::Claude)
    } else if has("speaker_a")
        || sample
            .get("conversation")
            .is_some_and(|c| c.get("speaker_a").is_some())
    {
        Ok(Format::Locomo)
    } else if items.is_some_and(|a| a.is_empty()) {
        Err(unknown("an empty array"))
    } else {
        Err(unknown(
            "not a known export (no `mapping`, `chat_messages`, `speaker_a` or `agents`)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_told_from_the_first_conversation() {
        let locomo = r#"[{"conversation": {"speaker_a": "A", "speaker_b": "B"}}, {"mapping": {}}]"#;
        assert_eq!(detect_text("x.json", locomo).unwrap(), Format::Locomo);
        assert_eq!(
            detect_text("x.json", r#"{"mapping": {}}"#).unwrap(),
            Format::Chatgpt
        );
        assert!(detect_text("x.json", "[]")
            .unwrap_err()
            .to_string()
            .contains("empty array"));
        assert!(detect_text("x.json", "[{}, ").is_err());
    }

    #[test]
    fn formats_are_detected_from_content() {
        let chatgpt = r#"[{"id":"c","mapping":{}}]"#;
        let claude = r#"[{"uuid":"c","chat_messages":[]}]"#;
        let locomo = r#"{"speaker_a":"A","speaker_b":"B"}"#;
        let jsonl = "{\"conversation_id\":\"c\",\"message_id\":\"1\",\"role\":\"user\",\"content\":\"hi\"}\n";
        let mcp = r#"{"type":"entity","name":"Ada","entityType":"person"}"#;
        let letta = r#"{"agents": []}"#;
        assert_eq!(detect_text("f", chatgpt).unwrap(), Format::Chatgpt);
        assert_eq!(detect_text("f", claude).unwrap(), Format::Claude);
        assert_eq!(detect_text("f", locomo).unwrap(), Format::Locomo);
        assert_eq!(detect_text("f", jsonl).unwrap(), Format::Jsonl);
        assert_eq!(detect_text("f", mcp).unwrap(), Format::McpMemory);
        assert_eq!(detect_text("f", letta).unwrap(), Format::Letta);
        let err = detect_text("f", r#"{"x": 1}"#).unwrap_err();
        assert_eq!(err.code(), "SMG-E210");
        assert!(err.to_string().contains("--from"), "{err}");
        let err = detect("f", &[b'{', 0xff]).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }
}
