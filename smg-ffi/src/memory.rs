//! An opened memory file behind an opaque handle, and what can be asked of it:
//! info, search, context, expand; and ingest into a new file.
//!
//! Thread safety: a `smg_memory` is read-only once opened and configured (model,
//! tokenizer) and may be used from several threads at once; free it once, after every
//! call on it has returned. The last error message is kept per thread.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

use serde_json::json;
use smg_engine::ingest::{ingest_into_bytes, IngestOptions, Silent};
use smg_engine::search::{
    ingest_into_indexed_bytes, Network, Period, QueryVector, Retriever, SearchOptions,
    SearchResults,
};
use smg_format::file::WriteLock;
use smg_format::packed::PackedArchive;
use smg_format::{Document, Encoding, Limits};
use smg_import::{Format, Input};

use crate::origin::{network, Origin};
use crate::SmgStatus;

/// An opened memory file. Read-only once opened and configured
/// (`smg_memory_set_model`, `smg_memory_set_tokenizer`): calls on one handle may then
/// run from several threads at once; free it once, after every call on it has
/// returned. The last error message is kept per thread (`smg_last_error`).
pub struct SmgMemory {
    /// The document: parsed at open, or on first use when the memory was opened by
    /// its stored search index (search, context and expand never need it).
    doc: OnceLock<Document>,
    /// The file to parse it from then, as it was when opened (read by its sections:
    /// the stored index, read in place by the retriever, is not read again).
    file: Mutex<Option<PackedArchive>>,
    /// The memory and the files its links reach (only it when opened from bytes or
    /// with links off).
    pub(crate) net: Network,
    /// The file it was opened from and how its links were followed, for an unsealed
    /// copy to follow the same.
    pub(crate) origin: Option<Origin>,
    /// Embeds queries (`smg_memory_set_model`), so that search and context fuse
    /// meaning with words.
    pub(crate) model: Option<smg_embed::Model>,
}

impl SmgMemory {
    /// The hybrid search every search call runs: `query`'s `k` best turns and nodes
    /// inside `period`, its embedding fused in when a model is set.
    pub(crate) fn search(
        &self,
        query: &str,
        k: usize,
        exact: bool,
        period: Period,
    ) -> Result<SearchResults, (SmgStatus, String)> {
        let mut options = SearchOptions::new(k);
        options.vector = self.vector(query)?;
        options.exact = exact;
        options.period = period;
        self.net.search(query, &options).map_err(engine_error)
    }

    /// A context pack for `query` within `budget` tokens, of the turns inside `period`,
    /// as JSON.
    pub(crate) fn context(
        &self,
        query: &str,
        budget: usize,
        period: &Period,
    ) -> Result<String, (SmgStatus, String)> {
        let vector = self.vector(query)?;
        let p = (self.net)
            .prompt(query, vector.as_ref(), budget, period)
            .map_err(engine_error)?;
        Ok(p.to_json(query, budget).to_string())
    }

    /// `query` embedded by the model set, if one is.
    fn vector(&self, query: &str) -> Result<Option<QueryVector>, (SmgStatus, String)> {
        let model = self.model.as_ref();
        model
            .map(|m| smg_engine::embed::query(m, query).map_err(engine_error))
            .transpose()
    }

    /// The turns of segment `id` as `smg expand` prints them: of the file the link
    /// named `link` reaches, or else of the first file of the network that has it.
    pub(crate) fn expand(
        &self,
        id: &str,
        link: Option<&str>,
    ) -> Result<String, (SmgStatus, String)> {
        let (_, turns) = self.net.expand(id, link).map_err(engine_error)?;
        let display = smg_engine::search::display;
        Ok(turns.iter().map(|t| format!("{}\n", display(t))).collect())
    }

    /// The memory's own retriever (not its linked files').
    pub(crate) fn retriever(&self) -> &Retriever {
        self.net.root()
    }

    pub(crate) fn doc(&self) -> Result<&Document, (SmgStatus, String)> {
        if let Some(doc) = self.doc.get() {
            return Ok(doc);
        }
        // One thread parses; the others wait for its document.
        let file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(doc) = self.doc.get() {
            return Ok(doc);
        }
        let f = file
            .as_ref()
            .ok_or((SmgStatus::Io, "the memory's file is gone".to_string()))?;
        let doc = f.document().map_err(format_error)?;
        Ok(self.doc.get_or_init(|| doc))
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn remember(message: String) {
    LAST_ERROR.with(|e| *e.borrow_mut() = message);
}

/// Run `f`, turning its error into a status (and the thread's last message) and a
/// panic into `Panic`.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), (SmgStatus, String)>) -> SmgStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SmgStatus::Ok,
        Ok(Err((status, message))) => {
            remember(message);
            status
        }
        Err(_) => {
            remember("smg panicked: this is a bug".into());
            SmgStatus::Panic
        }
    }
}

/// Run `f` under [`guard`] and write the text it makes to `out`, which is checked
/// first: nothing runs when there is nowhere to put the result.
pub(crate) fn respond(
    out: *mut *mut c_char,
    f: impl FnOnce() -> Result<String, (SmgStatus, String)>,
) -> SmgStatus {
    guard(|| {
        if out.is_null() {
            return Err((SmgStatus::NullArgument, "the output pointer is null".into()));
        }
        let text = f()?;
        // SAFETY: checked non-null above; the caller guarantees it is writable.
        unsafe { give(out, text) }
    })
}

pub(crate) fn engine_error(e: smg_engine::Error) -> (SmgStatus, String) {
    (
        SmgStatus::of_code(e.code()),
        format!("error[{}]: {e}", e.code()),
    )
}

pub(crate) fn format_error(e: smg_format::Error) -> (SmgStatus, String) {
    (
        SmgStatus::of_code(e.code()),
        format!("error[{}]: {e}", e.code()),
    )
}

/// A NUL-terminated UTF-8 argument.
///
/// # Safety
/// `s` must be null or point to a NUL-terminated string.
pub(crate) unsafe fn text<'a>(
    s: *const c_char,
    what: &str,
) -> Result<&'a str, (SmgStatus, String)> {
    if s.is_null() {
        return Err((SmgStatus::NullArgument, format!("{what} is null")));
    }
    // SAFETY: non-null, and the caller guarantees NUL termination.
    unsafe { CStr::from_ptr(s) }
        .to_str()
        .map_err(|_| (SmgStatus::NullArgument, format!("{what} is not UTF-8")))
}

/// A byte span argument (null is allowed with length 0).
///
/// # Safety
/// `p` must point to `len` readable bytes unless `len` is 0.
pub(crate) unsafe fn bytes<'a>(
    p: *const u8,
    len: usize,
    what: &str,
) -> Result<&'a [u8], (SmgStatus, String)> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err((SmgStatus::NullArgument, format!("{what} is null")));
    }
    // SAFETY: the caller guarantees `p` points to `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Write an owned C string to `out`.
///
/// # Safety
/// `out` must be a valid pointer to write one pointer to.
unsafe fn give(out: *mut *mut c_char, s: String) -> Result<(), (SmgStatus, String)> {
    let c = CString::new(s).map_err(|_| {
        (
            SmgStatus::InvalidArgument,
            "output holds a NUL byte".to_string(),
        )
    })?;
    // SAFETY: checked non-null by every caller; the caller guarantees it is writable.
    unsafe { *out = c.into_raw() };
    Ok(())
}

fn open_bytes(
    data: &[u8],
    passphrase: Option<&[u8]>,
    origin: Option<Origin>,
) -> Result<Box<SmgMemory>, (SmgStatus, String)> {
    let limits = Limits::default();
    let (doc, _) =
        smg_format::codec::from_bytes_with(data, &limits, passphrase).map_err(format_error)?;
    let retriever = Retriever::open(data, &doc, &limits).map_err(engine_error)?;
    Ok(Box::new(SmgMemory {
        doc: OnceLock::from(doc),
        file: Mutex::new(None),
        net: network(retriever, origin.as_ref()),
        origin,
        model: None,
    }))
}

/// A memory of `doc`, its search index made in memory, with the files its links
/// reach when `origin` says where it came from and to follow them.
pub(crate) fn of_document(
    doc: Document,
    origin: Option<Origin>,
) -> Result<Box<SmgMemory>, (SmgStatus, String)> {
    let retriever = Retriever::new(&doc, &Limits::default()).map_err(engine_error)?;
    Ok(Box::new(SmgMemory {
        doc: OnceLock::from(doc),
        file: Mutex::new(None),
        net: network(retriever, origin.as_ref()),
        origin,
        model: None,
    }))
}

/// A plain packed file with a current search index, opened by the index alone (as
/// `smg search` opens it): in a fraction of a second, where reading the whole file
/// takes seconds at a million turns. Any other file gives `origin` back.
type ByIndex = Result<Box<SmgMemory>, Origin>;

fn open_by_index(origin: Origin) -> Result<ByIndex, (SmgStatus, String)> {
    let file = File::open(&origin.path).map_err(|e| {
        let why = format!("error[SMG-E001]: {}: {e}", origin.path.display());
        (SmgStatus::Io, why)
    })?;
    let Some(file) = PackedArchive::of_file(file, &Limits::default()).map_err(format_error)? else {
        return Ok(Err(origin));
    };
    let lazy = Retriever::open_packed(&origin.path, &Limits::default()).map_err(engine_error)?;
    Ok(match lazy {
        None => Err(origin),
        Some(retriever) => Ok(Box::new(SmgMemory {
            doc: OnceLock::new(),
            file: Mutex::new(Some(file)),
            net: network(retriever, Some(&origin)),
            origin: Some(origin),
            model: None,
        })),
    })
}

/// Run `open` under [`guard`] and hand the memory it makes to `memory_out`, which is
/// checked first: nothing runs when there is nowhere to put the handle.
pub(crate) fn hand_out(
    memory_out: *mut *mut SmgMemory,
    open: impl FnOnce() -> Result<Box<SmgMemory>, (SmgStatus, String)>,
) -> SmgStatus {
    guard(|| {
        if memory_out.is_null() {
            return Err((SmgStatus::NullArgument, "memory_out is null".into()));
        }
        let memory = open()?;
        // SAFETY: checked non-null; the caller guarantees it is writable.
        unsafe { *memory_out = Box::into_raw(memory) };
        Ok(())
    })
}

/// Open a memory file at `path` (`passphrase` may be null with length 0 for a plain
/// file) with every file its links reach (spec §4.1), as
/// [`smg_memory_open_with`](crate::smg_memory_open_with) with no options. On success `*memory_out` is a handle to
/// free with [`smg_memory_free`].
///
/// A packed file with a current search index (`smg index`) opens by the index alone:
/// search, context and expand read only what they show, and the document is parsed
/// from the file as it was opened when info, save or diff first needs it.
///
/// # Safety
/// `path` must be a NUL-terminated string, `passphrase` `passphrase_len` readable bytes
/// (or null with 0), and `memory_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_open(
    path: *const c_char,
    passphrase: *const u8,
    passphrase_len: usize,
    memory_out: *mut *mut SmgMemory,
) -> SmgStatus {
    // SAFETY: forwarded from the caller's guarantees; null options are the defaults.
    unsafe {
        crate::smg_memory_open_with(
            path,
            passphrase,
            passphrase_len,
            std::ptr::null(),
            memory_out,
        )
    }
}

/// The memory file at `origin`'s path, `pass` opening it when encrypted (empty for a
/// plain file), with the links `origin` says to follow.
pub(crate) fn open_path(
    origin: Origin,
    pass: &[u8],
) -> Result<Box<SmgMemory>, (SmgStatus, String)> {
    // An encrypted file is decrypted whole; a plain one may not need reading whole.
    if !pass.is_empty() {
        return open_read(origin, pass);
    }
    let origin = match open_by_index(origin)? {
        Ok(memory) => return Ok(memory),
        Err(origin) => origin,
    };
    // A large compressed file is parsed as it is read, never held whole.
    let streamed =
        smg_format::file::read_streamed(&origin.path, &Limits::default()).map_err(format_error)?;
    match streamed {
        Some((doc, _, _)) => of_document(doc, Some(origin)),
        None => open_read(origin, pass),
    }
}

/// The memory file at `origin`'s path, read whole.
fn open_read(origin: Origin, pass: &[u8]) -> Result<Box<SmgMemory>, (SmgStatus, String)> {
    let data = std::fs::read(&origin.path).map_err(|e| {
        let why = format!("error[SMG-E001]: {}: {e}", origin.path.display());
        (SmgStatus::Io, why)
    })?;
    open_bytes(&data, (!pass.is_empty()).then_some(pass), Some(origin))
}

/// Open a memory file from its bytes; otherwise as [`smg_memory_open`].
///
/// # Safety
/// `data` must be `len` readable bytes, `passphrase` `passphrase_len` readable bytes
/// (or null with 0), and `memory_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_open_bytes(
    data: *const u8,
    len: usize,
    passphrase: *const u8,
    passphrase_len: usize,
    memory_out: *mut *mut SmgMemory,
) -> SmgStatus {
    hand_out(memory_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let data = unsafe { bytes(data, len, "data") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let pass = unsafe { bytes(passphrase, passphrase_len, "passphrase") }?;
        open_bytes(data, (!pass.is_empty()).then_some(pass), None)
    })
}

/// Close a memory. Null is a no-op.
///
/// # Safety
/// `memory` must be null or a handle from this library, not yet freed, with no call
/// on it still running.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_free(memory: *mut SmgMemory) {
    if !memory.is_null() {
        // SAFETY: the caller guarantees the handle came from Box::into_raw here.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(memory) })));
    }
}

/// The handle behind a pointer.
///
/// # Safety
/// `memory` must be null or a live handle from this library.
pub(crate) unsafe fn handle<'a>(
    mem: *const SmgMemory,
) -> Result<&'a SmgMemory, (SmgStatus, String)> {
    // SAFETY: the caller guarantees a live handle or null.
    unsafe { mem.as_ref() }.ok_or((SmgStatus::NullArgument, "memory is null".into()))
}

/// Counts and dates of the memory as JSON, to free with `smg_string_free`.
///
/// # Safety
/// `memory` must be a live handle and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_info(
    mem: *const SmgMemory,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let m = unsafe { handle(mem) }?;
        let doc = m.doc()?;
        let stats = smg_format::stats::stats(doc);
        let info = json!({
            "version": doc.version, "created": doc.metadata.created, "modified": doc.metadata.modified,
            "turns": m.retriever().turn_count(), "stats": stats,
            "links": crate::origin::followed(&m.net),
            "summary": doc.working_memory.as_ref().and_then(|w| w.summary.clone()),
        });
        Ok(info.to_string())
    })
}

/// The `k` best turns and the `k` best memory nodes for `query` (hybrid search, as
/// `smg search`), as JSON: `{"query", "hits": [turns], "nodes": [nodes], "warnings"}`.
///
/// # Safety
/// `memory` must be a live handle, `query` a NUL-terminated string, `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_search(
    mem: *const SmgMemory,
    query: *const c_char,
    k: usize,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, q) = unsafe { (handle(mem)?, text(query, "query")?) };
        Ok(m.search(q, k, false, Period::ALL)?.to_json(q).to_string())
    })
}

/// Memory for a prompt about `query` within `budget` tokens, as a JSON context pack
/// (`text`, `tokens`, `summary`, `goals`, `items`, `cards`, `artifacts`, `warnings`).
///
/// # Safety
/// `memory` must be a live handle, `query` a NUL-terminated string, `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_context(
    mem: *const SmgMemory,
    query: *const c_char,
    budget: usize,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, q) = unsafe { (handle(mem)?, text(query, "query")?) };
        m.context(q, budget, &Period::ALL)
    })
}

/// The original turns of a segment (`speaker: content` lines), byte for byte: of
/// the memory, or else of the first file its links reach that has such a segment
/// ([`smg_memory_expand_in`](crate::smg_memory_expand_in) names the file). An unknown id is `UnknownNode`.
///
/// # Safety
/// `memory` must be a live handle, `segment` a NUL-terminated string, `text_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_expand(
    mem: *const SmgMemory,
    segment: *const c_char,
    text_out: *mut *mut c_char,
) -> SmgStatus {
    respond(text_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, id) = unsafe { (handle(mem)?, text(segment, "segment")?) };
        m.expand(id, None)
    })
}

/// Ingest the files `inputs[0..n]` (format detected) into a new memory file at
/// `output`; the summary goes to `*json_out` as JSON.
///
/// # Safety
/// `inputs` must point to `n` NUL-terminated strings, `output` be one, and `json_out`
/// writable.
#[no_mangle]
pub unsafe extern "C" fn smg_ingest(
    inputs: *const *const c_char,
    n: usize,
    output: *const c_char,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let output = unsafe { text(output, "output") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let files = unsafe { read_inputs(inputs, n) }?;
        let doc = Document::new(smg_format::model::Timestamp::from_static(
            "1970-01-01T00:00:00Z",
        ));
        let (summary, bytes) = ingest_into(doc, files, smg_format::Encoding::Brotli, None)?;
        smg_format::file::write_atomic(std::path::Path::new(output), &bytes)
            .map_err(format_error)?;
        Ok(summary)
    })
}

/// Write the memory to `path` atomically (Brotli envelope, canonical JSON).
///
/// # Safety
/// `memory` must be a live handle and `path` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_save(mem: *const SmgMemory, path: *const c_char) -> SmgStatus {
    guard(|| {
        // SAFETY: forwarded from the caller's guarantees.
        let (m, path) = unsafe { (handle(mem)?, text(path, "path")?) };
        let options = smg_format::WriteOptions::new(smg_format::Encoding::Brotli);
        let doc = m.doc()?;
        smg_format::validate::ensure_valid(doc, &smg_format::Limits::default())
            .map_err(format_error)?;
        smg_format::write_file(std::path::Path::new(path), doc, &options).map_err(format_error)
    })
}

/// Ingest the files `inputs[0..n]` into the existing memory file `file` (plain, not
/// encrypted): messages it already holds are skipped. The file is replaced atomically;
/// the summary goes to `*json_out` as JSON. A packed file that stores a search index
/// keeps one, the new turns added to it (as `smg ingest --append` does). Writers of
/// `file` (this call, `smg`) take turns: the call waits up to 10 seconds for another
/// to finish (`SMG_LOCKED` after that), and refuses to replace a file changed
/// meanwhile by a writer that took no lock (`SMG_CHANGED`).
///
/// # Safety
/// As [`smg_ingest`], with `file` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn smg_ingest_append(
    file: *const c_char,
    inputs: *const *const c_char,
    n: usize,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let file = unsafe { text(file, "file") }?;
        // SAFETY: forwarded from the caller's guarantees.
        let files = unsafe { read_inputs(inputs, n) }?;
        let path = std::path::Path::new(file);
        let lock = WriteLock::acquire(path, WRITE_WAIT).map_err(format_error)?;
        // A file that keeps a search index keeps one, made for what it holds now.
        let (doc, encoding, indexed) = read_document(file)?;
        // The index the file stores, read in place: the new turns are added to it.
        let previous = indexed
            .then(|| {
                Retriever::open_packed(path, &Limits::default())
                    .ok()
                    .flatten()
            })
            .flatten();
        let (summary, bytes) = ingest_into(doc, files, encoding, indexed.then_some(previous))?;
        lock.write(&bytes).map_err(format_error)?;
        Ok(summary)
    })
}

/// The files named by `inputs[0..n]`, read.
///
/// # Safety
/// `inputs` must point to `n` NUL-terminated strings.
unsafe fn read_inputs(
    inputs: *const *const c_char,
    n: usize,
) -> Result<Vec<Input>, (SmgStatus, String)> {
    if inputs.is_null() && n > 0 {
        return Err((SmgStatus::NullArgument, "inputs is null".into()));
    }
    let mut files = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: the caller guarantees `n` readable pointers.
        let name = unsafe { text(*inputs.add(i), "an input path") }?;
        files.push(Input::bytes(name, read(name)?));
    }
    Ok(files)
}

/// The document of a plain file, its encoding, and whether it stores a search index:
/// a packed file read section by section (its index neither read nor held).
pub(crate) fn read_document(path: &str) -> Result<(Document, Encoding, bool), (SmgStatus, String)> {
    let limits = Limits::default();
    match smg_engine::search::read_packed(std::path::Path::new(path), &limits)
        .map_err(engine_error)?
    {
        Some((doc, indexed)) => Ok((doc, Encoding::Packed, indexed)),
        // Only a packed file stores an index.
        None => {
            let (doc, encoding) =
                smg_format::read_file(std::path::Path::new(path), &limits).map_err(format_error)?;
            Ok((doc, encoding, false))
        }
    }
}

/// A whole file, or SMG-E001 naming it.
pub(crate) fn read(path: &str) -> Result<Vec<u8>, (SmgStatus, String)> {
    smg_format::file::read_bytes(std::path::Path::new(path))
        .map_err(|e| (SmgStatus::Io, format!("error[{}]: {e}", e.code())))
}

/// How long a call that rewrites a file waits for another writer of it.
pub(crate) const WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Ingest `files` into `doc`, encoded in `encoding`, with a search index when
/// `indexed` (added to the retriever in it, the file's before); the summary as JSON,
/// and the bytes.
fn ingest_into(
    doc: Document,
    files: Vec<Input>,
    encoding: smg_format::Encoding,
    indexed: Option<Option<Retriever>>,
) -> Result<(String, Vec<u8>), (SmgStatus, String)> {
    let write = smg_format::WriteOptions::new(encoding.for_writing());
    let options = IngestOptions::default();
    let limits = Limits::default();
    let files = smg_import::read_all(files, Format::Auto, false, &Silent).map_err(engine_error)?;
    let (report, bytes) = match indexed {
        Some(previous) => ingest_into_indexed_bytes(
            doc,
            files,
            &options,
            &Silent,
            &write,
            previous.as_ref(),
            &limits,
        ),
        None => ingest_into_bytes(doc, files, &options, &Silent, &write),
    }
    .map_err(engine_error)?;
    let summary = json!({
        "turnsAdded": report.turns_added, "turnsKnown": report.turns_known, "turns": report.turns_total,
        "nodes": report.nodes, "edges": report.edges, "artifacts": report.artifacts,
        "skipped": report.skipped.len(),
        "edgesDropped": report.edges_dropped.iter()
            .map(|e| json!({"from": e.from, "relation": e.relation, "to": e.to}))
            .collect::<Vec<_>>(),
    })
    .to_string();
    Ok((summary, bytes))
}

/// The semantic difference from memory `a` to memory `b` as JSON (nodes, edges,
/// artifact versions, archive turns, working memory, metadata, other sections).
///
/// # Safety
/// `a` and `b` must be live handles and `json_out` writable.
#[no_mangle]
pub unsafe extern "C" fn smg_memory_diff(
    a: *const SmgMemory,
    b: *const SmgMemory,
    json_out: *mut *mut c_char,
) -> SmgStatus {
    respond(json_out, || {
        // SAFETY: forwarded from the caller's guarantees.
        let (a, b) = unsafe { (handle(a)?, handle(b)?) };
        let d =
            serde_json::to_value(smg_format::diff::diff(a.doc()?, b.doc()?)).unwrap_or_default();
        Ok(d.to_string())
    })
}

/// Copy the calling thread's last error message into `buf` (at most `len` bytes, NUL
/// terminated when there is room) and its full length to `*out_n`.
///
/// # Safety
/// `buf` must be `len` writable bytes (or null with 0); `out_n` null or writable.
#[no_mangle]
pub unsafe extern "C" fn smg_last_error(buf: *mut c_char, len: usize, out_n: *mut usize) {
    let message = LAST_ERROR.with(|e| e.borrow().clone());
    let bytes = message.as_bytes();
    if !buf.is_null() && len > 0 {
        let n = bytes.len().min(len - 1);
        // SAFETY: the caller guarantees `len` writable bytes at `buf`; n + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
    }
    if !out_n.is_null() {
        // SAFETY: the caller guarantees `out_n` is writable when non-null.
        unsafe { *out_n = bytes.len() };
    }
}
