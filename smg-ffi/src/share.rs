//! `smg share` through the C ABI: a copy safe to hand out, and its report.

use std::ffi::c_char;
use std::path::Path;

use serde_json::Value;
use smg_engine::share::{share, Kind, ShareOptions};
use smg_format::model::Timestamp;
use smg_format::{Encoding, Limits};

use crate::memory::{bytes, engine_error, format_error, read, respond, text};
use crate::SmgStatus;

type Failure = (SmgStatus, String);

fn bad(why: String) -> Failure {
    (
        SmgStatus::InvalidArgument,
        format!("error[SMG-E020]: {why}"),
    )
}

/// The options object: `keep` (kind names), `branch`, `at` (RFC 3339).
fn options(json: Option<&str>) -> Result<ShareOptions, Failure> {
    let v: Value = match json {
        Some(s) => serde_json::from_str(s).map_err(|e| bad(format!("options: {e}")))?,
        None => Value::Object(Default::default()),
    };
    let Value::Object(map) = v else {
        return Err(bad("options must be a JSON object".into()));
    };
    let string = |key: &str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(format!("options.{key} must be a string, not {other}"))),
    };
    let at = match string("at")? {
        Some(t) => Timestamp::new(t).map_err(|e| bad(format!("options.at: {e}")))?,
        None => Timestamp::now(),
    };
    let mut o = ShareOptions::new(at);
    if let Some(branch) = string("branch")? {
        o.branch = branch;
    }
    for k in map
        .get("keep")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = k.as_str().unwrap_or_default();
        o.keep
            .push(Kind::parse(name).map_err(|why| bad(format!("options.keep: {why}")))?);
    }
    Ok(o)
}

/// Write to `output` a copy of the memory file `input` that is safe to hand out
/// (spec §10.4): credentials and personal data replaced by typed placeholders, the
/// restricted tier, private contexts, sealed sections, access records, the audit log
/// and the signature left out. A null `output` writes nothing (a dry run).
/// `options_json` (may be null): `{"keep": [kind names], "branch", "at"}`.
/// `passphrase` (`passphrase_len` bytes; null with 0 for a plain file) opens an
/// encrypted input; the copy is written unencrypted, in the input's encoding.
/// `*json_out`: `{"findings": [{"kind", "section", "place"}], "counts", "distinct",
/// "leftOut", "written"}`.
///
/// # Safety
/// `input` must be a NUL-terminated string, `output` and `options_json` null or
/// NUL-terminated strings, `passphrase` `passphrase_len` readable bytes unless
/// `passphrase_len` is 0, and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_share(
    input: *const c_char,
    output: *const c_char,
    options_json: *const c_char,
    passphrase: *const u8,
    passphrase_len: usize,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let input = unsafe { text(input, "input") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let output = (!output.is_null())
            .then(|| unsafe { text(output, "output") })
            .transpose()?;
        // SAFETY: forwarded from the caller's guarantees.
        let options_json = (!options_json.is_null())
            .then(|| unsafe { text(options_json, "options_json") })
            .transpose()?;
        // SAFETY: forwarded from the caller's guarantees.
        let pass = unsafe { bytes(passphrase, passphrase_len, "passphrase") }?;
        let mut options = options(options_json)?;
        let limits = Limits::default();
        options.limits = limits;
        let data = read(input)?;
        let pass = (!pass.is_empty()).then_some(pass);
        let (doc, encoding) =
            smg_format::codec::from_bytes_with(&data, &limits, pass).map_err(format_error)?;
        let indexed = encoding == Encoding::Packed
            && smg_format::packed::list_extensions(&data)
                .map_err(format_error)?
                .iter()
                .any(|(name, _, current)| *current && name == smg_engine::search::EXTENSION);
        let (copy, report) = share(doc, &data, &options).map_err(engine_error)?;
        drop(data);
        if let Some(out) = output {
            let write = smg_format::WriteOptions::new(encoding.for_writing());
            let bytes = if indexed {
                smg_engine::search::encode_with_search_index(copy, &write, &limits)
                    .map_err(engine_error)?
            } else {
                smg_format::codec::into_bytes(copy, &write).map_err(format_error)?
            };
            smg_format::file::write_atomic(Path::new(out), &bytes).map_err(format_error)?;
        }
        let mut answer = report.to_json();
        answer["written"] = output.map_or(Value::Null, |o| Value::String(o.to_string()));
        Ok(answer.to_string())
    })
}
