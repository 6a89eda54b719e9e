//! Storing the search index through the C ABI, so that apps make their memory files
//! open by the index alone, as `smg index` does.

use std::ffi::c_char;
use std::path::Path;

use smg_format::file::WriteLock;
use smg_format::Limits;

use crate::memory::{engine_error, format_error, read, respond, text, WRITE_WAIT};
use crate::SmgStatus;

/// Rewrite the memory file `path` (atomically) in the packed layout with its search
/// index stored, so that `smg_memory_open` opens it by the index alone: a packed file
/// gains the index or a fresh one; a file in another layout is rewritten packed first
/// (as `smg convert --layout packed --index` does). An encrypted file is refused and
/// left as it is. `{"file", "bytesBefore", "bytesAfter"}` goes to `*json_out` as JSON.
///
/// # Safety
/// `path` must be a NUL-terminated string and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_index(path: *const c_char, json_out: *mut *mut c_char) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        let lock = WriteLock::acquire(Path::new(path), WRITE_WAIT).map_err(format_error)?;
        let before = read(path)?;
        let after = smg_engine::search::packed_with_search_index(&before, &Limits::default())
            .map_err(engine_error)?;
        lock.write(&after).map_err(format_error)?;
        Ok(serde_json::json!({
            "file": path,
            "bytesBefore": before.len(),
            "bytesAfter": after.len(),
        })
        .to_string())
    })
}
