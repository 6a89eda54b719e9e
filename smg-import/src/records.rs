//! What every reader shares: the records it skips or fails on, an export's
//! conversations taken one at a time, and the fields of a record read as roles,
//! times and text.

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use smg_engine::ingest::{Conversation, Skipped};
use smg_engine::{Error, Result};
use smg_format::model::{role, NonEmpty, Timestamp};

/// The records an importer skips, collected, or the first failing the read when
/// strict (`smg ingest --strict`).
#[derive(Debug)]
pub struct Records<'a> {
    file: &'a str,
    strict: bool,
    pub(crate) skipped: Vec<Skipped>,
}

impl<'a> Records<'a> {
    /// Records of the input named `file`.
    pub fn new(file: &'a str, strict: bool) -> Self {
        Records {
            file,
            strict,
            skipped: Vec::new(),
        }
    }

    /// Record a malformed record; an error under `--strict`.
    pub fn skip(&mut self, position: String, reason: impl Into<String>) -> Result<()> {
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
    pub fn stem(&self) -> &str {
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(self.file);
        name.split('.')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(name)
    }

    /// The input cannot be read at `position`: `SMG-E210`, naming the file.
    pub fn fail(&self, position: impl Into<String>, detail: impl Into<String>) -> Error {
        Error::Import {
            file: self.file.to_string(),
            position: position.into(),
            detail: detail.into(),
        }
    }
}

/// A file's bytes as text (a byte-order mark left in place), or `SMG-E210` naming
/// the first byte that is not UTF-8.
pub(crate) fn text<'b>(bytes: &'b [u8], records: &Records<'_>) -> Result<&'b str> {
    std::str::from_utf8(bytes)
        .map_err(|e| records.fail(format!("byte {}", e.valid_up_to()), "not UTF-8"))
}

/// The bytes of a file input, or `SMG-E210`: `format` reads files, not directories.
pub(crate) fn file_bytes<'i>(
    input: &'i crate::Input,
    records: &Records<'_>,
    format: &str,
) -> Result<&'i [u8]> {
    match input {
        crate::Input::Bytes { bytes, .. } => Ok(bytes),
        crate::Input::Path(p) => Err(records.fail(
            "start",
            format!(
                "{} is a directory; {format} is read from a file",
                p.display()
            ),
        )),
    }
}

/// The directory of a directory input, or `SMG-E210`: `format` reads directories.
pub(crate) fn directory<'i>(
    input: &'i crate::Input,
    records: &Records<'_>,
    format: &str,
) -> Result<&'i std::path::Path> {
    match input {
        crate::Input::Path(p) => Ok(p),
        crate::Input::Bytes { name, .. } => Err(records.fail(
            "start",
            format!("`{name}` is a file; {format} is read from a directory"),
        )),
    }
}

/// An export of conversations: the conversations of `input`, each parsed on its own
/// (and a LoCoMo file session by session), so that memory holds the input and one
/// conversation's tree, not the whole file's; `read` reads them.
pub(crate) fn export(
    importer: &dyn crate::Importer,
    input: &crate::Input,
    records: &mut Records<'_>,
    read: fn(&[&RawValue], &mut Records<'_>) -> Result<Vec<Conversation>>,
) -> Result<smg_engine::ingest::Imported> {
    let text = text(file_bytes(input, records, importer.name())?, records)?;
    let list = conversation_list(text.trim_start_matches('\u{feff}'), records)?;
    Ok(smg_engine::ingest::Imported {
        format: importer.name(),
        conversations: read(&list, records)?,
        ..Default::default()
    })
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

/// A string field, if present and a string.
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
        let got = crate::claude::read(&list, &mut records).unwrap();
        let ids: Vec<_> = got.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(records.skipped[0].position, "conversation 2");
        assert_eq!(records.skipped[0].reason, "not an object");
        let mut strict = Records::new("c.json", true);
        assert!(crate::claude::read(&list, &mut strict).is_err());
        for bad in ["[1, 2", "\"text\"", ""] {
            let err = conversation_list(bad, &records).unwrap_err().to_string();
            assert!(err.contains("c.json"), "{err}");
        }
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
