//! Delta files through the C ABI: make a delta between two memory files and rebuild a
//! file from its base and a delta, byte for byte (spec §17).

use std::ffi::c_char;
use std::path::Path;

use smg_format::{delta::DeltaOptions, Limits};

use crate::memory::{bytes, format_error, guard, read, respond, text};
use crate::SmgStatus;

fn options(passphrase: &[u8]) -> DeltaOptions {
    let options = DeltaOptions::default().with_limits(Limits::default());
    if passphrase.is_empty() {
        options
    } else {
        options.with_passphrase(passphrase)
    }
}

/// Write to `delta` (atomically) the delta that rebuilds the file `target` from the file
/// `base`; its header (base and target SHA-256, patch kind, sizes) goes to `*json_out`
/// as JSON. `passphrase` (null with length 0 when no file is encrypted) opens
/// encrypted files; the delta of an encrypted file is encrypted.
///
/// # Safety
/// `base`, `target` and `delta` must be NUL-terminated strings, `passphrase`
/// `passphrase_len` readable bytes, and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_delta_make(
    base: *const c_char,
    target: *const c_char,
    passphrase: *const u8,
    passphrase_len: usize,
    delta: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (base, target, delta, pass) = unsafe {
            (
                text(base, "base")?,
                text(target, "target")?,
                text(delta, "delta")?,
                bytes(passphrase, passphrase_len, "passphrase")?,
            )
        };
        let options = options(pass);
        let made = smg_format::delta::make_delta(&read(base)?, &read(target)?, &options)
            .map_err(format_error)?;
        smg_format::file::write_atomic(Path::new(delta), &made.bytes).map_err(format_error)?;
        Ok(made.to_json().to_string())
    })
}

/// Rebuild into `output` (atomically) the file `delta` was made for, from `base`.
/// Another base is refused with `SMG_STATUS_DELTA_BASE` and nothing is written.
///
/// # Safety
/// `base`, `delta` and `output` must be NUL-terminated strings and `passphrase`
/// `passphrase_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn smg_delta_apply(
    base: *const c_char,
    delta: *const c_char,
    passphrase: *const u8,
    passphrase_len: usize,
    output: *const c_char,
) -> SmgStatus {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let (base, delta, output, pass) = unsafe {
            (
                text(base, "base")?,
                text(delta, "delta")?,
                text(output, "output")?,
                bytes(passphrase, passphrase_len, "passphrase")?,
            )
        };
        let rebuilt = smg_format::delta::apply_delta(&read(base)?, &read(delta)?, &options(pass))
            .map_err(format_error)?;
        smg_format::file::write_atomic(Path::new(output), &rebuilt).map_err(format_error)
    })
}
