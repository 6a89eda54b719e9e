//! LoCoMo conversation files: two speakers, numbered sessions with a date-time each,
//! turns with `speaker`, `dia_id`, `text` and sometimes a shared photo's caption.
//!
//! Only the dialogue is read: questions, answers, evidence, event annotations,
//! observations and summaries are left out, so nothing derived from the answers
//! reaches the memory.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use smg_format::model::{role, Timestamp};

use crate::records::{str_field, Records};
use smg_engine::ingest::{compact_record, Conversation, Message};
use smg_engine::Result;

/// An object's members, unparsed: a LoCoMo sample is read a session at a time.
type Members<'t> = BTreeMap<String, &'t RawValue>;

export_importer!(
    /// A LoCoMo conversation file.
    Locomo,
    "locomo",
    read
);

fn read(samples: &[&RawValue], records: &mut Records<'_>) -> Result<Vec<Conversation>> {
    let mut out = Vec::new();
    for (i, raw) in samples.iter().enumerate() {
        let sample: Members<'_> = serde_json::from_str(raw.get()).unwrap_or_default();
        let conv: Members<'_> = match sample.get("conversation") {
            Some(c) => serde_json::from_str(c.get()).unwrap_or_default(),
            None => sample.clone(),
        };
        let (Some(a), Some(_)) = (string(&conv, "speaker_a"), string(&conv, "speaker_b")) else {
            records.skip(
                format!("sample {}", i + 1),
                "no `speaker_a` and `speaker_b`",
            )?;
            continue;
        };
        let id = match sample.get("sample_id").map(|v| parse(v)) {
            Some(Value::String(s)) => s,
            Some(v @ Value::Number(_)) => v.to_string(),
            _ => records.stem().to_string(),
        };
        let mut header = Map::new();
        let mut messages = Vec::new();
        for key in ["sample_id", "speaker_a", "speaker_b"] {
            if let Some(v) = sample.get(key).or_else(|| conv.get(key)) {
                header.insert(key.into(), parse(v));
            }
        }
        for n in 1..=session_count(&conv) {
            let date_key = format!("session_{n}_date_time");
            let date = string(&conv, &date_key);
            if let Some(d) = &date {
                header.insert(date_key, Value::String(d.clone()));
            }
            let Some(turns) = conv
                .get(&format!("session_{n}"))
                .and_then(|v| serde_json::from_str::<Vec<&RawValue>>(v.get()).ok())
            else {
                continue;
            };
            let timestamp = date.as_deref().and_then(session_time);
            for (t, turn) in turns.iter().enumerate() {
                let at = format!("sample {}, session {n}, turn {}", i + 1, t + 1);
                match message(&parse(turn), &a, n, t, timestamp.as_ref()) {
                    Ok(m) => messages.push(m),
                    Err(reason) => records.skip(at, reason)?,
                }
            }
        }
        out.push(Conversation {
            id,
            header: Some(Value::Object(header)),
            messages,
            ..Conversation::default()
        });
    }
    Ok(out)
}

/// A member parsed (the text was checked to be JSON as a whole).
fn parse(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// A member's value, if it is a string.
fn string(members: &Members<'_>, key: &str) -> Option<String> {
    match parse(members.get(key)?) {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The highest session number present.
fn session_count(conv: &Members<'_>) -> usize {
    conv.keys()
        .filter_map(|k| k.strip_prefix("session_"))
        .filter_map(|k| k.split('_').next()?.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

fn message(
    turn: &Value,
    speaker_a: &str,
    session: usize,
    index: usize,
    timestamp: Option<&Timestamp>,
) -> std::result::Result<Message, String> {
    let speaker = str_field(turn, "speaker").ok_or("no `speaker`")?;
    let text = str_field(turn, "text").ok_or("no `text`")?;
    let mut content = text.to_string();
    if let Some(caption) = str_field(turn, "blip_caption") {
        content.push_str(&format!(" [shares a photo: {caption}]"));
    }
    Ok(Message {
        message_id: str_field(turn, "dia_id")
            .map_or_else(|| format!("D{session}:{}", index + 1), str::to_string),
        session_id: Some(format!("session_{session}")),
        role: if speaker == speaker_a {
            role::USER
        } else {
            role::ASSISTANT
        },
        speaker: Some(speaker.to_string()),
        record: compact_record(turn, &content, None),
        content,
        timestamp: timestamp.cloned(),
        scope: None,
    })
}

/// "1:56 pm on 8 May, 2023" as RFC 3339 (the dataset gives no zone: UTC).
fn session_time(s: &str) -> Option<Timestamp> {
    let t = chrono::NaiveDateTime::parse_from_str(s.trim(), "%I:%M %p on %d %B, %Y").ok()?;
    Timestamp::from_utc(&t.and_utc(), chrono::SecondsFormat::Secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn session_times_parse() {
        assert_eq!(
            session_time("1:56 pm on 8 May, 2023").unwrap(),
            "2023-05-08T13:56:00Z"
        );
        assert_eq!(
            session_time("10:37 am on 27 June, 2023").unwrap(),
            "2023-06-27T10:37:00Z"
        );
        assert_eq!(
            session_time("12:09 am on 13 September, 2023").unwrap(),
            "2023-09-13T00:09:00Z"
        );
        assert_eq!(session_time("sometime"), None);
    }

    #[test]
    fn dialogue_is_read_and_answers_are_not() {
        let v = json!({
            "sample_id": "conv-1",
            "conversation": {
                "speaker_a": "Ann", "speaker_b": "Bob",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [
                    {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob"},
                    {"speaker": "Bob", "dia_id": "D1:2", "text": "Look", "blip_caption": "a dog", "img_url": ["u"]},
                    {"speaker": "Bob"}
                ],
                "session_2_date_time": "2:00 pm on 9 May, 2023"
            },
            "qa": [{"question": "q", "answer": "secret answer", "evidence": ["D1:1"]}]
        });
        let mut records = Records::new("locomo.json", false);
        let convs = crate::records::read_value(&v, &mut records, read).unwrap();
        let c = &convs[0];
        assert_eq!(c.id, "conv-1");
        assert_eq!(c.messages.len(), 2);
        assert_eq!(c.messages[1].content, "Look [shares a photo: a dog]");
        assert_eq!(c.messages[1].role, "assistant");
        assert_eq!(
            c.messages[0].timestamp.as_deref(),
            Some("2023-05-08T13:56:00Z")
        );
        assert_eq!(records.skipped[0].position, "sample 1, session 1, turn 3");
        let all = serde_json::to_string(&(
            c.header.clone(),
            c.messages.iter().map(|m| &*m.record).collect::<Vec<_>>(),
        ))
        .unwrap();
        assert!(!all.contains("secret answer"));
    }
}
