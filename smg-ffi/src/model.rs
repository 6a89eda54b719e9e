//! What a memory's queries are embedded and its contexts counted with: the same model
//! and tokenizer as `smg search|context --model DIR --tokenizer NAME`, so that a
//! package hands a model the context the command line prints.

use std::ffi::c_char;
use std::path::Path;

use crate::memory::{guard, text, SmgMemory};
use crate::SmgStatus;

/// The handle behind `mem`, to configure.
///
/// # Safety
/// `mem` must be null or a live handle that no other call uses meanwhile.
unsafe fn configured<'a>(mem: *mut SmgMemory) -> Result<&'a mut SmgMemory, (SmgStatus, String)> {
    // SAFETY: the caller guarantees a live handle, used by no other call, or null.
    unsafe { mem.as_mut() }.ok_or((SmgStatus::NullArgument, "memory is null".into()))
}

/// Embed the queries of `smg_memory_search` and `smg_memory_context` with the
/// sentence-embedding model in the folder `dir` (config.json, model.safetensors,
/// tokenizer.json; all-MiniLM-L6-v2 as sentence-transformers saves it), as `--model
/// DIR` does: search then fuses meaning with words. `Model` (`SMG-E232`) when the
/// folder holds no model it can read; a later search of a file whose vectors come
/// from another model is `OtherModel` (`SMG-E231`). Nothing is downloaded.
///
/// Configure a handle before sharing it: not while another call on it runs.
///
/// # Safety
/// `mem` must be a live handle that no other call uses meanwhile; `dir` a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_set_model(
    mem: *mut SmgMemory,
    dir: *const c_char,
) -> SmgStatus {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, dir) = unsafe { (configured(mem)?, text(dir, "dir")?) };
        let model = smg_embed::Model::load(Path::new(dir)).map_err(|e| {
            (
                SmgStatus::Model,
                format!("error[{}]: model {dir}: {e}", e.code()),
            )
        })?;
        m.model = Some(model);
        Ok(())
    })
}

/// Count the tokens of `smg_memory_context`'s budget with `name`, as `--tokenizer`
/// does: `chars` (characters / 4, the default), `cl100k` (GPT-4, GPT-3.5) or `o200k`
/// (GPT-4o and later), exactly as the model will. Another name is `InvalidArgument`.
///
/// Configure a handle before sharing it: not while another call on it runs.
///
/// # Safety
/// `mem` must be a live handle that no other call uses meanwhile; `name` a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_set_tokenizer(
    mem: *mut SmgMemory,
    name: *const c_char,
) -> SmgStatus {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, name) = unsafe { (configured(mem)?, text(name, "tokenizer")?) };
        let tokens = match name {
            "chars" => smg_engine::search::Tokens::default(),
            other => smg_embed::bpe::tokens(other).ok_or_else(|| {
                let why =
                    format!("error[SMG-E020]: unknown tokenizer `{other}` (chars, cl100k, o200k)");
                (SmgStatus::InvalidArgument, why)
            })?,
        };
        m.net.set_tokens(tokens);
        Ok(())
    })
}
