//! A memory opened with the files its links reach (spec §4.1), searched as one:
//! opened with options, and a segment expanded from a named linked file.

use std::ffi::c_char;

use crate::memory::{bytes, hand_out, handle, open_path, respond, text, SmgMemory};
use crate::origin::Origin;
use crate::SmgStatus;

/// Open a memory file at `path` (`passphrase` may be null with length 0 for a plain
/// file), following its links as `options` says: null, or a JSON object with
/// `"links"` (boolean, default true: search, context and expand answer from the
/// memory and every file its links reach, each hit naming its file) and
/// `"linkPassphrases"` (an object from link name to the passphrase of that encrypted
/// linked file). A linked file that is missing, changed or cannot be opened is a
/// warning in `smg_memory_info` (`links.warnings`) and in every answer, never a
/// failure. On success `*memory_out` is a handle to free with `smg_memory_free`.
///
/// # Safety
/// `path` must be a NUL-terminated string, `passphrase` `passphrase_len` readable bytes
/// (or null with 0), `options` null or a NUL-terminated string, and `memory_out`
/// writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_open_with(
    path: *const c_char,
    passphrase: *const u8,
    passphrase_len: usize,
    options: *const c_char,
    memory_out: *mut *mut SmgMemory,
) -> SmgStatus {
    hand_out(memory_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let path = unsafe { text(path, "path") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let pass = unsafe { bytes(passphrase, passphrase_len, "passphrase") }?;
        let options = if options.is_null() {
            None
        } else {
            // SAFETY: non-null, and the caller guarantees NUL termination.
            Some(unsafe { text(options, "options") }?)
        };
        open_path(Origin::new(path, options)?, pass)
    })
}

/// [`crate::smg_memory_expand`] in the file the link named `link` reaches (null: the
/// memory, then the files its links reach, the first that has the segment). Segment
/// ids of two files can be the same; a link not followed is `InvalidArgument`.
///
/// # Safety
/// `mem` must be a live handle, `segment` a NUL-terminated string, `link` null or
/// one, `text_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_expand_in(
    mem: *const SmgMemory,
    segment: *const c_char,
    link: *const c_char,
    text_out: *mut *mut c_char,
) -> SmgStatus {
    respond(text_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, id) = unsafe { (handle(mem)?, text(segment, "segment")?) };
        let link = if link.is_null() {
            None
        } else {
            // SAFETY: non-null, and the caller guarantees NUL termination.
            Some(unsafe { text(link, "link") }?)
        };
        m.expand(id, link)
    })
}
