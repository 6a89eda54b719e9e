//! Importers: chat transcripts and other systems' exports read into conversations of
//! messages, each message keeping its original record.

mod chatgpt;
mod claude;
mod jsonl;
pub(crate) mod letta;
mod locomo;
pub(crate) mod mcp_memory;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use smg_format::model::{role, NonEmpty, Timestamp};

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
    /// The MCP memory server's JSON Lines: entities and relations, into the graph.
    McpMemory,
    /// A Letta Agent File (`.af`): agents, their messages, core memory, tools.
    Letta,
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
            Format::McpMemory => "mcp-memory",
            Format::Letta => "letta",
        }
    }
}

/// One message of a conversation, as an importer read it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) message_id: String,
    pub(crate) session_id: Option<String>,
    pub(crate) role: NonEmpty,
    pub(crate) speaker: Option<String>,
    /// The message as text: what search, chunking and the archive's `content` see.
    pub(crate) content: String,
    pub(crate) timestamp: Option<Timestamp>,
    /// The source record, verbatim, as [`source`] gives it.
    pub(crate) record: Box<str>,
    /// The scope the record gives (JSON Lines' `scope`): `Restricted`, or none.
    pub(crate) scope: Option<smg_format::model::Scope>,
}

/// A message's source record as compact JSON, `{"contentAt": …, "place": …,
/// "record": …}`: a large ingest holds hundreds of thousands, and a parsed record
/// takes several times the memory of its text.
///
/// The message's `content` is its turn's content already: when the record holds it
/// as one string, the record keeps a null in its place and `contentAt` says where
/// (a JSON Pointer), instead of a second copy. `place` says where the record sat in
/// its conversation, for the formats that export back (spec §9.3).
pub(crate) fn source(record: &Value, content: &str, place: Option<Value>) -> Box<str> {
    let mut out = Map::new();
    if let Some(place) = place {
        out.insert("place".into(), place);
    }
    let at = (content.len() >= MIN_SHARED_CONTENT)
        .then(|| find_string(record, content))
        .flatten();
    match at {
        Some(at) => {
            let mut record = record.clone();
            if let Some(slot) = record.pointer_mut(&at) {
                *slot = Value::Null;
            }
            out.insert("contentAt".into(), Value::String(at));
            out.insert("record".into(), record);
        }
        None => {
            out.insert("record".into(), record.clone());
        }
    }
    Value::Object(out).to_string().into_boxed_str()
}

/// Shortest message text worth replacing by a pointer in `source.record`.
const MIN_SHARED_CONTENT: usize = 32;

/// The JSON Pointer (RFC 6901) of the first string in `v` equal to `s`.
fn find_string(v: &Value, s: &str) -> Option<String> {
    let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match v {
        Value::String(x) if x == s => Some(String::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| find_string(item, s).map(|p| format!("/{i}{p}"))),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, item)| find_string(item, s).map(|p| format!("/{}{p}", escape(k)))),
        _ => None,
    }
}

/// One conversation: its id, its own fields (without the messages) and its messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Conversation {
    pub(crate) id: String,
    /// The conversation's own fields, kept in `deepArchive.conversations`.
    pub(crate) header: Option<Value>,
    pub(crate) messages: Vec<Message>,
    /// The source's records that became no turn (empty messages, a message tree's
    /// root and other branches, records skipped as malformed), each with its place:
    /// kept beside the header, so that nothing the source held is lost.
    pub(crate) others: Vec<(Value, Value)>,
    /// For a conversation that came with others in one file (a Letta file's agents):
    /// the file's name, the conversation's place in it and, with the first, the
    /// file's own fields.
    pub(crate) file: Option<Value>,
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
    /// What an MCP memory file holds (no conversations).
    pub(crate) graph: Option<mcp_memory::McpGraph>,
    /// An agent file's blocks and tools.
    pub(crate) letta: Option<letta::Extras>,
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
    if format == Format::McpMemory {
        let graph = mcp_memory::read(text, &mut records)?;
        return Ok(Imported {
            format,
            conversations: Vec::new(),
            graph: Some(graph),
            letta: None,
            skipped: records.skipped,
        });
    }
    if format == Format::Letta {
        let doc = letta::document(text.trim_start_matches('\u{feff}'), &records)?;
        let (conversations, extras) = letta::read(doc, &mut records)?;
        return Ok(Imported {
            format,
            conversations,
            graph: None,
            letta: Some(extras),
            skipped: records.skipped,
        });
    }
    let conversations = if format == Format::Jsonl {
        jsonl::read(text, &mut records)?
    } else {
        // Each conversation is parsed on its own (and a LoCoMo file session by session),
        // so that memory holds the input and one conversation's tree, not the whole
        // file's.
        let list = conversation_list(text.trim_start_matches('\u{feff}'), &records)?;
        match format {
            Format::Chatgpt => chatgpt::read(&list, &mut records)?,
            Format::Claude => claude::read(&list, &mut records)?,
            _ => locomo::read(&list, &mut records)?,
        }
    };
    Ok(Imported {
        format,
        conversations,
        graph: None,
        letta: None,
        skipped: records.skipped,
    })
}

/// Tell the format from the content: the first JSON value decides.
/// Whether an input of `format` brings its own nodes to the graph, which they join
/// among the graph's nodes (by name): an MCP memory file or a Letta Agent File. An
/// input that does not read as text, or whose format is not known, brings none (its
/// import fails as it would).
pub(crate) fn brings_nodes(file: &str, bytes: &[u8], format: Format) -> bool {
    let format = match format {
        Format::Auto => std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| detect(file, text).ok()),
        f => Some(f),
    };
    matches!(format, Some(Format::McpMemory | Format::Letta))
}

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
        if mcp_memory::looks_like(&v) {
            return Ok(Format::McpMemory);
        }
        if more || jsonl::looks_like(&v) {
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
    let encoded = |s: &str| serde_json::from_str::<Value>(s).is_ok_and(|v| letta::looks_like(&v));
    if letta::looks_like(&sample) || sample.as_str().is_some_and(encoded) {
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

/// The conversations of an export, unparsed: its top-level array, or one conversation
/// object. The whole text is checked to be JSON first.
pub(crate) fn conversation_list<'t>(
    text: &'t str,
    records: &Records<'_>,
) -> Result<Vec<&'t RawValue>> {
    let not_json = |e: serde_json::Error| {
        records.fail(
            format!("line {}, column {}", e.line(), e.column()),
            format!("not JSON: {e}"),
        )
    };
    let top: &RawValue = serde_json::from_str(text).map_err(not_json)?;
    match top.get().as_bytes().first() {
        Some(b'[') => serde_json::from_str(top.get()).map_err(not_json),
        Some(b'{') => Ok(vec![top]),
        _ => Err(records.fail("start", "expected an array of conversations")),
    }
}

/// A conversation of [`conversation_list`], parsed; `None` (and the record skipped)
/// if it is not an object.
pub(crate) fn conversation(
    raw: &RawValue,
    at: &str,
    records: &mut Records<'_>,
) -> Result<Option<Value>> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(v @ Value::Object(_)) => Ok(Some(v)),
        Ok(_) => records.skip(at.to_string(), "not an object").map(|()| None),
        Err(e) => records.skip(at.to_string(), e.to_string()).map(|()| None),
    }
}

/// The conversations an importer reads from `value` (a test's export, built as JSON).
#[cfg(test)]
pub(crate) fn read_value(
    value: &Value,
    records: &mut Records<'_>,
    read: fn(&[&RawValue], &mut Records<'_>) -> Result<Vec<Conversation>>,
) -> Result<Vec<Conversation>> {
    let text = value.to_string();
    let list = conversation_list(&text, records)?;
    read(&list, records)
}

/// A string field, if present and a string.
/// A source's role or sender as a v1 role (spec §4.3): `user`, `assistant`, `system`
/// or `tool`, with the obvious names of other exports mapped (`human` → `user`;
/// `ai`, `bot`, `model` → `assistant`; `developer` → `system`; `function` → `tool`).
/// An empty or unknown role is an error, so that its record is skipped and named
/// (or fails the run under `--strict`), never written as a turn no reader can place.
pub(crate) fn role(raw: &str) -> std::result::Result<NonEmpty, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "user" | "human" => Ok(role::USER),
        "assistant" | "ai" | "bot" | "model" => Ok(role::ASSISTANT),
        "system" | "developer" => Ok(role::SYSTEM),
        "tool" | "function" => Ok(role::TOOL),
        "" => Err("the role is empty".into()),
        _ => Err(format!(
            "role {raw:?} is none of user, assistant, system, tool (or human, ai, bot, model, developer, function)"
        )),
    }
}

/// The items of an array field; none when it is absent or not an array.
pub(crate) fn items<'v>(v: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
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
/// are kept when the source has a fraction. `None` for a time RFC 3339 cannot
/// write (before year 0 or after 9999).
pub(crate) fn unix_time(v: &Value) -> Option<Timestamp> {
    let secs = v.as_f64()?;
    if !secs.is_finite() {
        return None;
    }
    let millis = (secs * 1000.0).round() as i64;
    let t = chrono::DateTime::from_timestamp_millis(millis)?;
    let precision = if millis % 1000 == 0 {
        chrono::SecondsFormat::Secs
    } else {
        chrono::SecondsFormat::Millis
    };
    Timestamp::from_utc(&t, precision).ok()
}

/// An RFC 3339 date-time from a string, normalised to UTC; `None` when it is not one
/// (or is one that UTC takes past year 9999).
pub(crate) fn rfc3339(s: &str) -> Option<Timestamp> {
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    let t = t.with_timezone(&chrono::Utc);
    Timestamp::from_utc(&t, chrono::SecondsFormat::AutoSi).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_are_parsed_one_at_a_time_and_a_bad_one_is_skipped() {
        let text =
            r#"[{"uuid": "c1", "chat_messages": []}, 7, {"uuid": "c2", "chat_messages": []}]"#;
        let mut records = Records::new("c.json", false);
        let list = conversation_list(text, &records).unwrap();
        assert_eq!(list.len(), 3);
        let got = claude::read(&list, &mut records).unwrap();
        let ids: Vec<_> = got.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(records.skipped[0].position, "conversation 2");
        assert_eq!(records.skipped[0].reason, "not an object");
        let mut strict = Records::new("c.json", true);
        assert!(claude::read(&list, &mut strict).is_err());
        for bad in ["[1, 2", "\"text\"", ""] {
            let err = conversation_list(bad, &records).unwrap_err().to_string();
            assert!(err.contains("c.json"), "{err}");
        }
    }

    #[test]
    fn a_record_keeps_a_pointer_in_place_of_the_content_it_holds() {
        let content = "we decided to use postgres for the whole project";
        let record = serde_json::json!({"id": "m1", "parts": ["x", content]});
        let got: Value = serde_json::from_str(&source(&record, content, None)).unwrap();
        assert_eq!(
            got,
            serde_json::json!({"contentAt": "/parts/1", "record": {"id": "m1", "parts": ["x", null]}})
        );
        // Short content is kept where it is: a pointer would save nothing.
        let short = serde_json::json!({"text": "ok"});
        let got: Value = serde_json::from_str(&source(&short, "ok", None)).unwrap();
        assert_eq!(got, serde_json::json!({"record": {"text": "ok"}}));
    }

    #[test]
    fn the_format_is_told_from_the_first_conversation() {
        let locomo = r#"[{"conversation": {"speaker_a": "A", "speaker_b": "B"}}, {"mapping": {}}]"#;
        assert_eq!(detect("x.json", locomo).unwrap(), Format::Locomo);
        assert_eq!(
            detect("x.json", r#"{"mapping": {}}"#).unwrap(),
            Format::Chatgpt
        );
        assert!(detect("x.json", "[]")
            .unwrap_err()
            .to_string()
            .contains("empty array"));
        assert!(detect("x.json", "[{}, ").is_err());
    }

    #[test]
    fn roles_are_mapped_or_refused() {
        assert_eq!(role("Human"), Ok(role::USER));
        assert_eq!(role(" assistant "), Ok(role::ASSISTANT));
        assert_eq!(role("developer"), Ok(role::SYSTEM));
        assert_eq!(role("function"), Ok(role::TOOL));
        assert_eq!(role(""), Err("the role is empty".to_string()));
        assert!(role("critic").unwrap_err().contains("\"critic\""));
    }

    proptest::proptest! {
        /// Whatever an export says, the role written is one of the four v1 roles.
        #[test]
        fn any_role_is_a_v1_role_or_an_error(raw in ".{0,12}") {
            if let Ok(r) = role(&raw) {
                proptest::prop_assert!(["user", "assistant", "system", "tool"].contains(&r.as_str()));
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
