//! A span of time as the C ABI takes it, and context kept to one, as `smg context
//! --since --until` (search: [`crate::smg_memory_search_within`]).

use std::ffi::c_char;

use smg_engine::search::Period;

use crate::memory::{engine_error, handle, respond, text};
use crate::SmgStatus;

/// The period from `since` to `until`, each null (open) or a date (`2023-05-08`) or
/// an RFC 3339 date-time; a date `until` runs through that day. Neither a date nor a
/// date-time, or an `until` not after `since`, is `InvalidArgument` (SMG-E020).
///
/// # Safety
/// Each must be null or a NUL-terminated string.
pub(crate) unsafe fn period(
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

/// [`crate::smg_memory_context`] of the turns inside a span of time, given as
/// [`crate::smg_memory_search_within`] takes it; working memory (summary, goals, artifacts
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
