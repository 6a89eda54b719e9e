//! Search and context kept to a span of time, as `smg search|context --since --until`.

use std::ffi::c_char;

use smg_engine::search::Period;

use crate::hits::search_hits;
use crate::memory::{engine_error, handle, respond, text};
use crate::SmgStatus;

/// The period from `since` to `until`, each null (open) or a date (`2023-05-08`) or
/// an RFC 3339 date-time; a date `until` runs through that day. Neither a date nor a
/// date-time, or an `until` not after `since`, is `InvalidArgument` (SMG-E020).
///
/// # Safety
/// Each must be null or a NUL-terminated string.
unsafe fn period(
    since: *const c_char,
    until: *const c_char,
) -> Result<Period, (SmgStatus, String)> {
    let read = |s: *const c_char, what: &str| {
        if s.is_null() {
            return Ok(None);
        }
        // SAFETY: forwarded from the caller's guarantees.
        unsafe { text(s, what) }.map(Some)
    };
    Period::parse(read(since, "since")?, read(until, "until")?).map_err(engine_error)
}

/// [`crate::smg_memory_search_hits`] of what falls in a span of time: turns by their
/// time, memory nodes by their timestamp (what has no time is left out), from `since`
/// to before `until`, each null (open), a date (`2023-05-08`: its midnight UTC; an
/// `until` date runs through that day) or an RFC 3339 date-time. The best inside are
/// found (the period runs in the indexes), not the best overall thinned out. A time
/// that is none, or an empty period, is `InvalidArgument` (SMG-E020).
///
/// # Safety
/// As [`crate::smg_memory_search_hits`]; `since` and `until` null or NUL-terminated.
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
    // SAFETY: forwarded from the caller's guarantees.
    let period = || unsafe { period(since, until) };
    // SAFETY: forwarded from the caller's guarantees.
    unsafe { search_hits(mem, query, k, flags, period, bytes_out, len_out) }
}

/// [`crate::smg_memory_context`] of the turns inside a span of time, given as
/// [`smg_memory_search_within`] takes it; working memory (summary, goals, artifacts
/// in use) is the memory's present and is kept.
///
/// # Safety
/// As [`crate::smg_memory_context`]; `since` and `until` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_context_within(
    mem: *const crate::SmgMemory,
    query: *const c_char,
    budget: usize,
    since: *const c_char,
    until: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, q) = unsafe { (handle(mem)?, text(query, "query")?) };
        // SAFETY: forwarded from the caller's guarantees.
        let period = unsafe { period(since, until) }?;
        m.context(q, budget, &period)
    })
}
