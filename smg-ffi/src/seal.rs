//! Reading a memory's sealed sections as one allowed to, in memory only (spec §10.3).

use crate::memory::{bytes, format_error, hand_out, handle, of_document, SmgMemory};
use crate::SmgStatus;

/// A new handle on the memory `mem` with every sealed section that `passphrase`
/// opens put back, in memory only: the file stays sealed, and `mem` is unchanged.
/// `SMG-E141` when the passphrase opens none. Free the new handle with
/// `smg_memory_free`, as any other.
///
/// # Safety
/// `mem` must be a live handle, `passphrase` `passphrase_len` readable bytes, and
/// `memory_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_unseal(
    mem: *const SmgMemory,
    passphrase: *const u8,
    passphrase_len: usize,
    memory_out: *mut *mut SmgMemory,
) -> SmgStatus {
    hand_out(memory_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let m = unsafe { handle(mem) }?;
        // SAFETY: forwarded from the caller's guarantees.
        let pass = unsafe { bytes(passphrase, passphrase_len, "passphrase") }?;
        let mut doc = m.doc()?.clone();
        smg_format::seal::unseal_all(&mut doc, pass).map_err(format_error)?;
        of_document(doc, m.origin.clone())
    })
}
