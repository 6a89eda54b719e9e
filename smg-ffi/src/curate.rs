//! Curation through the C ABI (spec §18): a cycle, an undo, a retrieval recorded.
//! Each call rewrites the file atomically under its writers' lock, as the CLI does,
//! and keeps a stored search index.

use std::ffi::c_char;
use std::path::Path;

use serde_json::json;
use smg_engine::curate::{self, CurateOptions};
use smg_format::file::WriteLock;
use smg_format::model::Timestamp;
use smg_format::{Document, Limits};

use crate::memory::{engine_error, format_error, read_document, respond, text, WRITE_WAIT};
use crate::SmgStatus;

type Failure = (SmgStatus, String);

/// `s` when given, else the current time.
///
/// # Safety
/// `s` must be null or a NUL-terminated string.
unsafe fn time_or_now(s: *const c_char, name: &str) -> Result<Timestamp, Failure> {
    if s.is_null() {
        return Ok(Timestamp::now());
    }
    // SAFETY: forwarded from the caller's guarantees.
    let text = unsafe { text(s, name) }?;
    Timestamp::new(text).map_err(|e| {
        let why = format!("error[SMG-E020]: `{name}`: {e}");
        (SmgStatus::InvalidArgument, why)
    })
}

/// Read `path` under its lock, change its document with `f`, and write it back in
/// the same encoding (its search index made again when it had one) when `f` says it
/// changed something. `f`'s JSON is the answer.
fn rewrite(
    path: &str,
    f: impl FnOnce(&mut Document) -> Result<(serde_json::Value, bool), Failure>,
) -> Result<String, Failure> {
    let p = Path::new(path);
    let lock = WriteLock::acquire(p, WRITE_WAIT).map_err(format_error)?;
    let limits = Limits::default();
    let (mut doc, encoding, indexed) = read_document(path)?;
    let (answer, changed) = f(&mut doc)?;
    if changed {
        smg_format::validate::ensure_valid(&doc, &limits).map_err(format_error)?;
        let options = smg_format::WriteOptions::new(encoding.for_writing());
        let mut bytes = smg_format::to_bytes(&doc, &options).map_err(format_error)?;
        if indexed {
            bytes = smg_engine::search::packed_with_search_index(&bytes, &limits)
                .map_err(engine_error)?;
        }
        lock.write(&bytes).map_err(format_error)?;
    }
    Ok(answer.to_string())
}

/// Run one curation cycle on the memory file `path` at `now` (RFC 3339; null: the
/// current time) and write it back unless `dry_run` is non-zero or nothing changed.
/// `*json_out`: `{"cycle", "scanned", "expired", "actions": [{"id", "action", "node",
/// "into", "reason", "score"}]}`. An encrypted file is refused (`SMG_NEED_PASSPHRASE`).
///
/// # Safety
/// `path` must be a NUL-terminated string, `now` null or one, `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_curate(
    path: *const c_char,
    now: *const c_char,
    dry_run: u32,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let now = unsafe { time_or_now(now, "now") }?;
        rewrite(path, |doc| {
            let r = curate::curate(doc, &CurateOptions::at(now.clone())).map_err(engine_error)?;
            let actions: Vec<_> = r
                .actions
                .iter()
                .map(|a| {
                    json!({"id": a.id, "action": a.action.name(), "node": a.node,
                           "into": a.into, "reason": a.reason, "score": a.score})
                })
                .collect();
            let changed = dry_run == 0 && (r.cycle.is_some() || r.expired > 0);
            let answer = json!({"cycle": r.cycle, "now": now, "scanned": r.scanned,
                                "expired": r.expired, "dryRun": dry_run != 0, "actions": actions});
            Ok((answer, changed))
        })
    })
}

/// Undo the audit entry or the whole cycle `id` of the memory file `path` (spec
/// §18.8) and write it back. `*json_out`: `{"restored": [entry ids]}`. Unknown ids
/// give `SMG_UNKNOWN_AUDIT`; an entry a later one depends on, `SMG_CANNOT_RESTORE`.
///
/// # Safety
/// `path` and `id` must be NUL-terminated strings and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_restore(
    path: *const c_char,
    id: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let id = unsafe { text(id, "id") }?;
        rewrite(path, |doc| {
            let undone = curate::restore(doc, id).map_err(engine_error)?;
            Ok((json!({"restored": undone}), true))
        })
    })
}

/// Record that the nodes `ids[0..n]` of the memory file `path` were retrieved at
/// `at` (RFC 3339; null: now) by `by` (null: unknown), and write it back: what
/// reactivates a node (SMG §9.2) and feeds curation's scores. Reads never record
/// anything by themselves. `*json_out`: `{"found": N}`.
///
/// # Safety
/// `path` must be a NUL-terminated string; `ids` must point to `n` of them; `at` and
/// `by` null or NUL-terminated; `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_record_access(
    path: *const c_char,
    ids: *const *const c_char,
    n: usize,
    at: *const c_char,
    by: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        if ids.is_null() && n > 0 {
            return Err((SmgStatus::NullArgument, "ids is null".into()));
        }
        let mut list = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: the caller guarantees `n` readable NUL-terminated strings.
            list.push(unsafe { text(*ids.add(i), "a node id") }?);
        }
        // SAFETY: forwarded from the caller's guarantees.
        let at = unsafe { time_or_now(at, "at") }?;
        let by = if by.is_null() {
            None
        } else {
            // SAFETY: forwarded from the caller's guarantees.
            Some(unsafe { text(by, "by") }?)
        };
        rewrite(path, |doc| {
            let found = curate::record_access(doc, &list, &at, by).map_err(engine_error)?;
            Ok((json!({"found": found}), found > 0))
        })
    })
}
