//! Importers: chat transcripts and other systems' exports read into conversations of
//! messages, each message keeping its original record.

mod chatgpt;
mod claude;
mod jsonl;
mod locomo;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The input formats `smg ingest` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Decide from the content.
    Auto,
    /// One message per line (spec §16).
    Jsonl,
    /// ChatGPT data export (`conversations.json`).
    Chatgpt,
    /// Claude.ai data export (`conversations.json`).
    Claude,
    /// A LoCoMo conversation file.
    Locomo,
}

impl Format {
    /// The name used on the command line and in each turn's `source.format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::Chatgpt => "chatgpt",
            Format::Claude => "claude",
            Format::Locomo => "locomo",
        }
    }
}

/// One message of a conversation, as an importer read it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) message_id: String,
    pub(crate) session_id: Option<String>,
    pub(crate) role: String,
    pub(crate) speaker: Option<String>,
    /// The message as text: what search, chunking and the archive's `content` see.
    pub(crate) content: String,
    pub(crate) timestamp: Option<String>,
    /// The source record, verbatim (as JSON).
    pub(crate) record: Value,
}

/// One conversation: its id, its own fields (without the messages) and its messages.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conversation {
    pub(crate) id: String,
    /// The conversation's own fields, kept on its first turn.
    pub(crate) header: Option<Value>,
    pub(crate) messages: Vec<Message>,
}

/// A record an importer could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The input file.
    pub file: String,
    /// Where in it: `line 12`, `conversation 3, message 7`…
    pub position: String,
    /// What is wrong.
    pub reason: String,
}

/// What one input gave.
#[derive(Debug)]
pub(crate) struct Imported {
    /// The format read (detected under `Auto`).
    pub(crate) format: Format,
    pub(crate) conversations: Vec<Conversation>,
    pub(crate) skipped: Vec<Skipped>,
}

/// Collects the records an importer skips, or fails on the first under `--strict`.
pub(crate) struct Records<'a> {
    file: &'a str,
    strict: bool,
    pub(crate) skipped: Vec<Skipped>,
}

impl<'a> Records<'a> {
    pub(crate) fn new(file: &'a str, strict: bool) -> Self {
        Records {
            file,
            strict,
            skipped: Vec::new(),
        }
    }

    /// Record a malformed record; an error under `--strict`.
    pub(crate) fn skip(&mut self, position: String, reason: impl Into<String>) -> Result<()> {
        let reason = reason.into();
        if self.strict {
            return Err(Error::Import {
                file: self.file.to_string(),
                position,
                detail: reason,
            });
        }
        self.skipped.push(Skipped {
            file: self.file.to_string(),
            position,
            reason,
        });
        Ok(())
    }

    /// The input's file name without directory and extension: the conversation id of
    /// formats that carry none.
    pub(crate) fn stem(&self) -> &str {
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(self.file);
        name.split('.')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(name)
    }

    pub(crate) fn fail(&self, position: impl Into<String>, detail: impl Into<String>) -> Error {
        Error::Import {
            file: self.file.to_string(),
            position: position.into(),
            detail: detail.into(),
        }
    }
}

/// Read `bytes` (named `file` in messages) as `format`, detecting it under `Auto`.
pub(crate) fn import(file: &str, bytes: &[u8], format: Format, strict: bool) -> Result<Imported> {
    let mut records = Records::new(file, strict);
    let text = std::str::from_utf8(bytes)
        .map_err(|e| records.fail(format!("byte {}", e.valid_up_to()), "not UTF-8"))?;
    let format = match format {
        Format::Auto => detect(file, text)?,
        f => f,
    };
    let conversations = if format == Format::Jsonl {
        jsonl::read(text, &mut records)?
    } else {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            records.fail(
                format!("line {}, column {}", e.line(), e.column()),
                format!("not JSON: {e}"),
            )
        })?;
        match format {
            Format::Chatgpt => chatgpt::read(&value, &mut records)?,
            Format::Claude => claude::read(&value, &mut records)?,
            _ => locomo::read(&value, &mut records)?,
        }
    };
    Ok(Imported {
        format,
        conversations,
        skipped: records.skipped,
    })
}

/// Tell the format from the content: the first JSON value decides.
fn detect(file: &str, text: &str) -> Result<Format> {
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
        if more || jsonl::looks_like(&v) {
            return Ok(Format::Jsonl);
        }
    }
    let value: Value = serde_json::from_str(trimmed)
        .map_err(|e| unknown(&format!("neither JSON Lines nor one JSON document ({e})")))?;
    let sample = match &value {
        Value::Array(items) => items.first().cloned().unwrap_or(Value::Null),
        v => v.clone(),
    };
    let has = |k: &str| sample.get(k).is_some();
    if has("mapping") {
        Ok(Format::Chatgpt)
    } else if has("chat_messages") {
        Ok(Format::Claude)
    } else if has("speaker_a")
        || sample
            .get("conversation")
            .is_some_and(|c| c.get("speaker_a").is_some())
    {
        Ok(Format::Locomo)
    } else if matches!(value, Value::Array(ref a) if a.is_empty()) {
        Err(unknown("an empty array"))
    } else {
        Err(unknown(
            "not a known export (no `mapping`, `chat_messages` or `speaker_a`)",
        ))
    }
}

/// The conversations of an export: its top-level array, or one conversation object.
pub(crate) fn conversation_list<'v>(
    value: &'v Value,
    records: &Records<'_>,
) -> Result<&'v [Value]> {
    match value {
        Value::Array(list) => Ok(list.as_slice()),
        v @ Value::Object(_) => Ok(std::slice::from_ref(v)),
        _ => Err(records.fail("start", "expected an array of conversations")),
    }
}

/// A string field, if present and a string.
/// A source's role or sender as a v1 role (spec §4.3): `user`, `assistant`, `system`
/// or `tool`, with the obvious names of other exports mapped (`human` → `user`;
/// `ai`, `bot`, `model` → `assistant`; `developer` → `system`; `function` → `tool`).
/// An empty or unknown role is an error, so that its record is skipped and named
/// (or fails the run under `--strict`), never written as a turn no reader can place.
pub(crate) fn role(raw: &str) -> std::result::Result<&'static str, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "user" | "human" => Ok("user"),
        "assistant" | "ai" | "bot" | "model" => Ok("assistant"),
        "system" | "developer" => Ok("system"),
        "tool" | "function" => Ok("tool"),
        "" => Err("the role is empty".into()),
        _ => Err(format!(
            "role {raw:?} is none of user, assistant, system, tool (or human, ai, bot, model, developer, function)"
        )),
    }
}

pub(crate) fn str_field<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// An object without the named fields: a conversation's header without its messages.
pub(crate) fn without(v: &Value, keys: &[&str]) -> Option<Value> {
    let obj: Map<String, Value> = v
        .as_object()?
        .iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!obj.is_empty()).then_some(Value::Object(obj))
}

/// Unix seconds (integer or fractional) as an RFC 3339 UTC date-time; milliseconds
/// are kept when the source has a fraction.
pub(crate) fn unix_time(v: &Value) -> Option<String> {
    let secs = v.as_f64()?;
    if !secs.is_finite() {
        return None;
    }
    let millis = (secs * 1000.0).round() as i64;
    let t = chrono::DateTime::from_timestamp_millis(millis)?;
    Some(if millis % 1000 == 0 {
        t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    })
}

/// An RFC 3339 date-time from a string, normalised to UTC; `None` when it is not one.
pub(crate) fn rfc3339(s: &str) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    let t = t.with_timezone(&chrono::Utc);
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_mapped_or_refused() {
        assert_eq!(role("Human"), Ok("user"));
        assert_eq!(role(" assistant "), Ok("assistant"));
        assert_eq!(role("developer"), Ok("system"));
        assert_eq!(role("function"), Ok("tool"));
        assert_eq!(role(""), Err("the role is empty".to_string()));
        assert!(role("critic").unwrap_err().contains("\"critic\""));
    }

    proptest::proptest! {
        /// Whatever an export says, the role written is one of the four v1 roles.
        #[test]
        fn any_role_is_a_v1_role_or_an_error(raw in ".{0,12}") {
            if let Ok(r) = role(&raw) {
                proptest::prop_assert!(["user", "assistant", "system", "tool"].contains(&r));
            }
        }
    }

    #[test]
    fn formats_are_detected_from_content() {
        let chatgpt = r#"[{"id":"c","mapping":{}}]"#;
        let claude = r#"[{"uuid":"c","chat_messages":[]}]"#;
        let locomo = r#"{"speaker_a":"A","speaker_b":"B"}"#;
        let jsonl = "{\"conversation_id\":\"c\",\"message_id\":\"1\",\"role\":\"user\",\"content\":\"hi\"}\n";
        assert_eq!(detect("f", chatgpt).unwrap(), Format::Chatgpt);
        assert_eq!(detect("f", claude).unwrap(), Format::Claude);
        assert_eq!(detect("f", locomo).unwrap(), Format::Locomo);
        assert_eq!(detect("f", jsonl).unwrap(), Format::Jsonl);
        let err = detect("f", r#"{"x": 1}"#).unwrap_err();
        assert_eq!(err.code(), "SMG-E210");
        assert!(err.to_string().contains("--from"), "{err}");
    }

    #[test]
    fn times_become_rfc3339_utc() {
        assert_eq!(
            unix_time(&serde_json::json!(1700000001.0)).unwrap(),
            "2023-11-14T22:13:21Z"
        );
        assert_eq!(
            unix_time(&serde_json::json!(1760503066.9995918)).unwrap(),
            "2025-10-15T04:37:47Z"
        );
        assert_eq!(
            unix_time(&serde_json::json!(1.5)).unwrap(),
            "1970-01-01T00:00:01.500Z"
        );
        assert_eq!(unix_time(&Value::Null), None);
        assert_eq!(
            rfc3339("2025-10-01T18:42:28.370875Z").unwrap(),
            "2025-10-01T18:42:28.370875Z"
        );
        assert_eq!(
            rfc3339("2025-10-01T20:00:00+02:00").unwrap(),
            "2025-10-01T18:00:00Z"
        );
        assert_eq!(rfc3339("yesterday"), None);
    }
}
