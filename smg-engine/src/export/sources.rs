//! The memory's conversations as their sources gave them: each with its entry in
//! `deepArchive.conversations` (header, order, records that became no turn) and its
//! turns with their source records and places (spec §9.3).

use serde_json::value::RawValue;
use serde_json::Value;
use smg_format::archive::read_archive_with;
use smg_format::limits::Limits;
use smg_format::model::Turn;
use smg_format::Document;

use crate::error::Result;

/// One conversation of the archive.
#[derive(Debug, Clone, Default)]
pub(crate) struct Conversation {
    pub(crate) id: String,
    /// Its entry in `deepArchive.conversations`, if it has one.
    pub(crate) entry: Option<Value>,
    /// Its turns, in archive order.
    pub(crate) turns: Vec<Turn>,
}

impl Conversation {
    /// The importer that read it: the entry's, else its first turn's source's.
    pub(crate) fn format(&self) -> Option<&str> {
        self.entry
            .as_ref()
            .and_then(|e| e.get("format"))
            .and_then(Value::as_str)
            .or_else(|| source_format(self.turns.first()?))
    }

    /// The source conversation's own fields.
    pub(crate) fn header(&self) -> Option<&Value> {
        self.entry.as_ref()?.get("header").filter(|h| h.is_object())
    }

    /// `(place, record)` of every source record of the conversation read by `format`:
    /// its turns' (`None` place when a turn has none) and the others of its entry.
    pub(crate) fn records(&self, format: &str) -> Vec<(Option<Value>, Value)> {
        let mut out: Vec<(Option<Value>, Value)> = self
            .turns
            .iter()
            .filter(|t| source_format(t) == Some(format))
            .filter_map(record)
            .collect();
        let others = self
            .entry
            .as_ref()
            .and_then(|e| e.get("otherRecords"))
            .and_then(Value::as_array);
        for o in others.into_iter().flatten() {
            if let Some(record) = o.get("record") {
                out.push((o.get("place").cloned(), record.clone()));
            }
        }
        out
    }

    /// Turns that no record of `format` gives back: written from the turn itself.
    pub(crate) fn foreign_turns<'a>(&'a self, format: &'a str) -> impl Iterator<Item = &'a Turn> {
        self.turns
            .iter()
            .filter(move |t| source_format(t) != Some(format))
    }

    /// The title the source gave, else the start of the first turn.
    pub(crate) fn title(&self) -> String {
        let header = self.header();
        let named = ["title", "name"]
            .iter()
            .find_map(|k| header?.get(*k)?.as_str().filter(|s| !s.is_empty()));
        match named {
            Some(t) => t.to_string(),
            None => {
                let first = self.turns.first().map_or("", |t| t.content.as_str());
                crate::text::clip(first.lines().next().unwrap_or(""), 60)
            }
        }
    }
}

/// The archive is read with each turn's `source` kept as `[format, JSON text]`: a
/// parsed record takes several times the memory of its text, and an export holds every
/// turn while it gathers conversations. Each is parsed when its conversation is written.
fn compact(_: &Turn, record: &RawValue) -> serde_json::Result<Option<Value>> {
    /// A record's format; its other members are not read.
    #[derive(serde::Deserialize)]
    struct Format {
        format: Option<Value>,
    }
    // A record that is no object has no format, as before.
    let format = serde_json::from_str::<Format>(record.get()).map_or(None, |f| f.format);
    let text = Value::String(record.get().to_string());
    Ok(Some(Value::Array(vec![
        format.unwrap_or(Value::Null),
        text,
    ])))
}

fn source_format(t: &Turn) -> Option<&str> {
    t.extra.get("source")?.get(0)?.as_str()
}

/// A turn's source record whole (its content put back where `contentAt` says), with
/// its place.
fn record(t: &Turn) -> Option<(Option<Value>, Value)> {
    let text = t.extra.get("source")?.get(1)?.as_str()?;
    let Value::Object(mut source) = serde_json::from_str(text).ok()? else {
        return None;
    };
    let mut record = source.remove("record")?;
    if let Some(at) = source.get("contentAt").and_then(Value::as_str) {
        *record.pointer_mut(at)? = Value::String(t.content.clone());
    }
    Some((source.remove("place"), record))
}

/// Every conversation of the memory, in the order its sources had them (the entries'
/// `order`, then the first turn), turns in archive order. Turns without a
/// conversation id form one conversation with an empty id.
pub(crate) fn conversations(doc: &Document, limits: &Limits) -> Result<Vec<Conversation>> {
    let entries = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.extra.get("conversations"))
        .and_then(Value::as_object);
    let mut out: Vec<Conversation> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for a in read_archive_with(doc, limits, &compact)? {
        let id = a
            .turn
            .conversation_id
            .clone()
            .map(String::from)
            .unwrap_or_default();
        let i = *at.entry(id.clone()).or_insert_with(|| {
            out.push(Conversation {
                entry: entries.and_then(|e| e.get(&id)).cloned(),
                id,
                turns: Vec::new(),
            });
            out.len() - 1
        });
        out[i].turns.push(a.turn);
    }
    for (id, entry) in entries.into_iter().flatten() {
        if !at.contains_key(id) {
            out.push(Conversation {
                id: id.clone(),
                entry: Some(entry.clone()),
                turns: Vec::new(),
            });
        }
    }
    let key = |c: &Conversation| {
        let order = c
            .entry
            .as_ref()
            .and_then(|e| e.get("order"))
            .and_then(Value::as_u64);
        (
            order.unwrap_or(u64::MAX),
            c.turns.first().map_or(u64::MAX, |t| t.turn.get()),
        )
    };
    out.sort_by_key(key);
    Ok(out)
}

/// An RFC 3339 date-time as Unix seconds (fractional), as ChatGPT writes times.
pub(crate) fn unix_seconds(t: &str) -> Option<f64> {
    let t = chrono::DateTime::parse_from_rfc3339(t).ok()?;
    Some(t.timestamp_micros() as f64 / 1e6)
}

/// A list of `(place, record)` in the order of their places (numbers); records
/// without a place follow, in the order given.
pub(crate) fn in_place_order(mut records: Vec<(Option<Value>, Value)>) -> Vec<Value> {
    records.sort_by_key(|(p, _)| p.as_ref().and_then(Value::as_u64).unwrap_or(u64::MAX));
    records.into_iter().map(|(_, r)| r).collect()
}
