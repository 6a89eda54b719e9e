//! Search results as one flat buffer, for callers that read a few fields of a few
//! hits: one crossing, nothing to make or parse as JSON (`smg_memory_search_hits`,
//! whose documentation gives the layout).

use std::ffi::c_char;

use smg_engine::search::{Found, Item, SearchResults};

use crate::memory::{guard, handle, text};
use crate::within::period;
use crate::SmgStatus;

const MAGIC: &[u8; 4] = b"SMGH";
const VERSION: u32 = 1;
const HEADER: usize = 24;
const RECORD: usize = 144;
const NONE: u32 = u32::MAX;

/// Where each string of a record goes.
#[derive(Clone, Copy)]
enum Slot {
    Type,
    Id,
    Sources,
    Speaker,
    Role,
    Text,
    Timestamp,
    Segment,
    Conversation,
    Session,
    Message,
    Provenance,
    FileName,
    FilePath,
}

const SLOTS: usize = Slot::FilePath as usize + 1;
const _: () = assert!(32 + SLOTS * 8 == RECORD);

/// A record's strings, by slot.
struct Slots<'a>([Option<&'a str>; SLOTS]);

impl<'a> Slots<'a> {
    fn set(&mut self, slot: Slot, value: Option<&'a str>) {
        self.0[slot as usize] = value;
    }
}

/// The buffer being written: fixed parts first, strings after them.
struct Writer {
    fixed: Vec<u8>,
    strings: Vec<u8>,
}

impl Writer {
    fn string(&mut self, s: Option<&str>) -> Result<(), (SmgStatus, String)> {
        let (offset, len) = match s {
            None => (NONE, 0),
            Some(s) => {
                let offset = u32::try_from(self.strings.len())
                    .ok()
                    .filter(|o| *o != NONE);
                let len = u32::try_from(s.len()).ok();
                self.strings.extend_from_slice(s.as_bytes());
                offset.zip(len).ok_or((
                    SmgStatus::TooLarge,
                    "error[SMG-E007]: search results over 4 GiB".to_string(),
                ))?
            }
        };
        self.fixed.extend_from_slice(&offset.to_le_bytes());
        self.fixed.extend_from_slice(&len.to_le_bytes());
        Ok(())
    }

    fn record(&mut self, found: &Found) -> Result<(), (SmgStatus, String)> {
        let sources = found.sources.join(",");
        let provenance = match &found.item {
            Item::Node { provenance, .. } => Some(
                serde_json::to_string(provenance)
                    .map_err(|e| (SmgStatus::Panic, format!("provenance as JSON: {e}")))?,
            ),
            _ => None,
        };
        let mut slots = Slots([None; SLOTS]);
        slots.set(Slot::Sources, Some(&sources));
        slots.set(Slot::Provenance, provenance.as_deref());
        if let Some(file) = &found.file {
            slots.set(Slot::FileName, file.name.as_deref());
            slots.set(Slot::FilePath, Some(&file.path));
        }
        let (importance, confidence, turn) = match &found.item {
            Item::Turn { turn: t, segment } => {
                slots.set(Slot::Type, Some("turn"));
                slots.set(Slot::Speaker, t.speaker.as_deref());
                slots.set(Slot::Role, Some(t.role.as_str()));
                slots.set(Slot::Text, Some(&t.content));
                slots.set(Slot::Timestamp, t.timestamp.as_ref().map(|s| s.as_str()));
                slots.set(Slot::Segment, segment.as_deref());
                slots.set(Slot::Conversation, t.conversation_id.as_deref());
                slots.set(Slot::Session, t.session_id.as_deref());
                slots.set(Slot::Message, t.message_id.as_deref());
                let n = i64::try_from(t.turn.get()).unwrap_or(i64::MAX);
                (None, None, n)
            }
            Item::Node {
                id,
                kind,
                text,
                importance,
                confidence,
                timestamp,
                ..
            } => {
                slots.set(Slot::Type, Some(kind));
                slots.set(Slot::Id, Some(id));
                slots.set(Slot::Text, Some(text));
                slots.set(Slot::Timestamp, timestamp.as_deref());
                (*importance, *confidence, -1)
            }
            _ => return Err((SmgStatus::Panic, "a result of an unknown kind".into())),
        };
        self.fixed.extend_from_slice(&found.score.to_le_bytes());
        for v in [importance, confidence] {
            self.fixed
                .extend_from_slice(&v.unwrap_or(f64::NAN).to_le_bytes());
        }
        self.fixed.extend_from_slice(&turn.to_le_bytes());
        slots.0.iter().try_for_each(|s| self.string(*s))
    }
}

/// `found` in the layout `smg_memory_search_hits` documents.
pub(crate) fn encode(found: &SearchResults) -> Result<Vec<u8>, (SmgStatus, String)> {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let records = found.turns.len() + found.nodes.len();
    let mut w = Writer {
        fixed: Vec::with_capacity(HEADER + records * RECORD + found.warnings.len() * 8),
        strings: Vec::with_capacity(records * 256),
    };
    w.fixed.extend_from_slice(MAGIC);
    for n in [
        VERSION,
        count(found.turns.len()),
        count(found.nodes.len()),
        count(found.warnings.len()),
        count(RECORD),
    ] {
        w.fixed.extend_from_slice(&n.to_le_bytes());
    }
    for f in found.turns.iter().chain(&found.nodes) {
        w.record(f)?;
    }
    for warning in &found.warnings {
        w.string(Some(warning))?;
    }
    let Writer { mut fixed, strings } = w;
    fixed.extend_from_slice(&strings);
    Ok(fixed)
}

/// A flag of `smg_memory_search_hits`: score every embedding against the query's
/// (as `smg search --exact`). Without it, a file of 65,536 embeddings or more first
/// narrows them by sign bits to those worth scoring.
pub const SMG_SEARCH_EXACT: u32 = 1;

/// The `k` best turns and the `k` best memory nodes for `query`, as
/// `smg_memory_search` finds them, in one buffer to free with `smg_bytes_free`: for
/// callers that read a few fields of a few hits, nothing to make or parse as JSON.
///
/// The layout (version 1; numbers little-endian):
///
/// | bytes | what |
/// |---|---|
/// | 0..4 | `SMGH` |
/// | 4..8 | version (1) |
/// | 8..12 | turns *t* |
/// | 12..16 | memory nodes *n* |
/// | 16..20 | warnings *w* |
/// | 20..24 | record size *r* (144 now; fields added later go at a record's end, so read records *r* bytes apart) |
/// | then | *t* turn records, then *n* node records, *r* bytes each |
/// | then | *w* warnings, one string slot each |
/// | then | the strings (UTF-8), where the slots point |
///
/// A record: score (f64, at 0), importance (f64, at 8; NaN when none), confidence
/// (f64, at 16; NaN when none), turn number (i64, at 24; -1 for a node), then fourteen
/// string slots from 32: type, id, sources (comma-separated), speaker, role, text (a
/// turn's content, a node's text), timestamp, segment, conversation id, session id,
/// message id, provenance (a node's, as a JSON array), and the file it came from
/// when more than one file answered (a memory with links, `smg_memory_open_with`):
/// its link name (none for the memory itself) and its path (none when one file
/// answered). A slot is an offset into the strings (u32) and a length (u32); offset
/// 0xFFFFFFFF is none. Records of 128 bytes (before the file slots) are read alike.
///
/// `flags`: 0, or [`SMG_SEARCH_EXACT`]; another bit is `InvalidArgument`.
///
/// # Safety
/// `memory` must be a live handle, `query` a NUL-terminated string, `bytes_out` and
/// `len_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_search_hits(
    mem: *const crate::SmgMemory,
    query: *const c_char,
    k: usize,
    flags: u32,
    bytes_out: *mut *mut u8,
    len_out: *mut usize,
) -> SmgStatus {
    let all = std::ptr::null();
    // SAFETY: forwarded from the caller's guarantees; null ends are an open period.
    unsafe { smg_memory_search_within(mem, query, k, flags, all, all, bytes_out, len_out) }
}

/// [`smg_memory_search_hits`] of what falls in a span of time: turns by their
/// time, memory nodes by their timestamp (what has no time is left out), from `since`
/// to before `until`, each null (open), a date (`2023-05-08`: its midnight UTC; an
/// `until` date runs through that day) or an RFC 3339 date-time. The best inside are
/// found (the period runs in the indexes), not the best overall thinned out. A time
/// that is none, or an empty period, is `InvalidArgument` (SMG-E020).
///
/// # Safety
/// As [`smg_memory_search_hits`]; `since` and `until` null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // The C signature: one call, no options struct.
pub unsafe extern "C" fn smg_memory_search_within(
    mem: *const crate::SmgMemory,
    query: *const c_char,
    k: usize,
    flags: u32,
    since: *const c_char,
    until: *const c_char,
    bytes_out: *mut *mut u8,
    len_out: *mut usize,
) -> SmgStatus {
    guard(|| {
        if bytes_out.is_null() || len_out.is_null() {
            return Err((SmgStatus::NullArgument, "an output pointer is null".into()));
        }
        if flags & !SMG_SEARCH_EXACT != 0 {
            return Err((
                SmgStatus::InvalidArgument,
                format!("unknown search flags {flags:#x}"),
            ));
        }
        // SAFETY: forwarded from the caller's guarantees.
        let (m, q, period) =
            unsafe { (handle(mem)?, text(query, "query")?, period(since, until)?) };
        let found = m.search(q, k, flags & SMG_SEARCH_EXACT != 0, period)?;
        let bytes = encode(&found)?.into_boxed_slice();
        let len = bytes.len();
        // SAFETY: both checked non-null above; the caller guarantees they are writable.
        unsafe {
            *len_out = len;
            *bytes_out = Box::into_raw(bytes).cast::<u8>();
        }
        Ok(())
    })
}

/// Free a buffer of `len` bytes returned by this library. Null is a no-op.
///
/// # Safety
/// `bytes` must be null or a buffer returned by this library, not yet freed, with the
/// length it was returned with.
#[no_mangle]
pub unsafe extern "C" fn smg_bytes_free(bytes: *mut u8, len: usize) {
    if !bytes.is_null() {
        let slice = std::ptr::slice_from_raw_parts_mut(bytes, len);
        // SAFETY: the caller guarantees `bytes` and `len` came from a boxed slice here.
        drop(unsafe { Box::from_raw(slice) });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use smg_engine::ingest::{ingest, IngestOptions, Silent};
    use smg_engine::search::{Retriever, SearchOptions};
    use smg_import::{read_all, Format, Input};

    use super::*;

    fn u32_at(b: &[u8], at: usize) -> usize {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
    }

    fn f64_at(b: &[u8], at: usize) -> Option<f64> {
        Some(f64::from_le_bytes(b[at..at + 8].try_into().unwrap())).filter(|v| !v.is_nan())
    }

    /// Record `i`'s results read back as `Found::to_json` shows them.
    fn read(b: &[u8], i: usize, strings: usize) -> Value {
        let at = HEADER + i * RECORD;
        let s = |slot: Slot| {
            let p = at + 32 + slot as usize * 8;
            let (offset, len) = (u32_at(b, p), u32_at(b, p + 4));
            let start = strings + Some(offset).filter(|o| *o != NONE as usize)?;
            Some(
                std::str::from_utf8(&b[start..start + len])
                    .unwrap()
                    .to_string(),
            )
        };
        let score = (f64_at(b, at).unwrap() * 1e6).round() / 1e6;
        let sources: Vec<String> = s(Slot::Sources)
            .unwrap()
            .split(',')
            .map(String::from)
            .collect();
        let turn = i64::from_le_bytes(b[at + 24..at + 32].try_into().unwrap());
        let mut v = if turn >= 0 {
            json!({
                "type": s(Slot::Type), "turn": turn, "score": score, "sources": sources,
                "speaker": s(Slot::Speaker), "role": s(Slot::Role), "content": s(Slot::Text),
                "timestamp": s(Slot::Timestamp), "segment": s(Slot::Segment),
                "provenance": {"conversationId": s(Slot::Conversation), "sessionId": s(Slot::Session), "messageId": s(Slot::Message)},
            })
        } else {
            let provenance: Value = serde_json::from_str(&s(Slot::Provenance).unwrap()).unwrap();
            json!({
                "type": s(Slot::Type), "id": s(Slot::Id), "score": score, "sources": sources,
                "text": s(Slot::Text), "importance": f64_at(b, at + 8), "confidence": f64_at(b, at + 16),
                "timestamp": s(Slot::Timestamp), "provenance": provenance,
            })
        };
        if let Some(path) = s(Slot::FilePath) {
            v["file"] = json!({"name": s(Slot::FileName), "path": path});
        }
        v
    }

    fn file_ref(name: Option<&str>, path: &str) -> smg_engine::search::FileRef {
        smg_engine::search::FileRef::new(name.map(String::from), path)
    }

    #[test]
    fn every_result_reads_back_as_its_json_shows_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/ingest/sample-chat.jsonl"
        );
        let input = Input::bytes(path, std::fs::read(path).unwrap());
        let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        ingest(
            &mut doc,
            read_all(vec![input], Format::Auto, false, &Silent).expect("read"),
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let retriever = Retriever::new(&doc, &smg_format::Limits::default()).unwrap();
        let mut found = retriever
            .search("Postgres ledger", &SearchOptions::new(5))
            .unwrap();
        found.warnings.push("a warning".into());
        assert!(!found.turns.is_empty() && !found.nodes.is_empty());
        // As a network names them: the file asked unnamed, a linked one by its link.
        found.turns[0].file = Some(file_ref(None, "a.smg"));
        found.nodes[0].file = Some(file_ref(Some("team"), "../team/b.smg"));
        let b = encode(&found).unwrap();
        assert_eq!(&b[..4], MAGIC);
        let (t, n, w) = (found.turns.len(), found.nodes.len(), found.warnings.len());
        assert_eq!(
            [1, t, n, w, RECORD],
            [4, 8, 12, 16, 20].map(|at| u32_at(&b, at))
        );
        let strings = HEADER + (t + n) * RECORD + w * 8;
        let json = found.to_json("Postgres ledger");
        let all: Vec<Value> = (0..t + n).map(|i| read(&b, i, strings)).collect();
        assert_eq!(all[..t], json["hits"].as_array().unwrap()[..]);
        assert_eq!(all[t..], json["nodes"].as_array().unwrap()[..]);
        let at = HEADER + (t + n) * RECORD;
        let start = strings + u32_at(&b, at);
        assert_eq!(&b[start..start + u32_at(&b, at + 4)], b"a warning");
    }

    #[test]
    fn unknown_flags_are_refused_before_anything_runs() {
        let (mut bytes, mut len) = (std::ptr::null_mut(), 0usize);
        let q = c"q";
        // SAFETY: a null handle is refused; the out-pointers are locals.
        let status = unsafe {
            smg_memory_search_hits(std::ptr::null(), q.as_ptr(), 5, 2, &mut bytes, &mut len)
        };
        assert_eq!(status, SmgStatus::InvalidArgument);
        assert!(bytes.is_null() && len == 0);
    }
}
