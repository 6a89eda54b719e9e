// smg for Node: open, search, build and validate .smg memory files through smg's C
// ABI (smg-ffi/include/smg.h), loaded with koffi — a plain FFI over the C header, so
// no compiler or node-gyp step is needed to use the library cargo builds.
//
//   const smg = require('smg');
//   smg.ingest(['conversations.json'], 'memory.smg');
//   const memory = smg.open('memory.smg');
//   memory.search('stripe webhook', 5);
//   memory.close();
//
// Every failure throws an SmgError whose `code` is the stable SMG code ('SMG-E141').
const fs = require('fs');
const { candidates } = require('./library');

// A plain `npm install /path/to/smg-ffi/node` only links the folder, and npm installs
// no dependency of a linked folder: say what to run instead of Node's bare
// "Cannot find module".
function loadKoffi() {
  try {
    return require('koffi');
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(
      `smg: its dependency koffi is not installed (a folder install links ${__dirname} ` +
        'without its dependencies). Install the package itself instead: ' +
        `npm install --install-links ${__dirname}  — or pack it: npm pack ${__dirname} ` +
        'and npm install the .tgz it writes'
    );
  }
}

const koffi = loadKoffi();
const hits = require('./hits');

const libraryPath = candidates().find((c) => fs.existsSync(c));
if (!libraryPath) {
  throw new Error(
    `smg: no native library (looked for ${candidates().join(', ')}). Install the ` +
      'tarball `npm pack /path/to/smg-ffi/node` writes (it carries the library), build ' +
      'it in the repository with `cargo build --release -p smg-ffi`, or set SMG_LIB to a built one'
  );
}
const lib = koffi.load(libraryPath);
koffi.opaque('smg_memory');

const c = {
  version: lib.func('const char *smg_version(void)'),
  stringFree: lib.func('void smg_string_free(void *s)'),
  lastError: lib.func('void smg_last_error(_Out_ uint8_t *buf, size_t len, _Out_ size_t *out_n)'),
  validate: lib.func('uint32_t smg_validate(const uint8_t *bytes, size_t len, _Out_ void **report)'),
  open: lib.func('uint32_t smg_memory_open_with(const char *path, const uint8_t *pass, size_t len, const char *options, _Out_ smg_memory **out)'),
  free: lib.func('void smg_memory_free(smg_memory *m)'),
  unseal: lib.func('uint32_t smg_memory_unseal(const smg_memory *m, const uint8_t *pass, size_t len, _Out_ smg_memory **out)'),
  info: lib.func('uint32_t smg_memory_info(const smg_memory *m, _Out_ void **json)'),
  setModel: lib.func('uint32_t smg_memory_set_model(smg_memory *m, const char *dir)'),
  setTokenizer: lib.func('uint32_t smg_memory_set_tokenizer(smg_memory *m, const char *name)'),
  search: lib.func('uint32_t smg_memory_search(const smg_memory *m, const char *q, size_t k, _Out_ void **json)'),
  searchWithin: lib.func('uint32_t smg_memory_search_within(const smg_memory *m, const char *q, size_t k, uint32_t flags, const char *since, const char *until, _Out_ void **bytes, _Out_ size_t *len)'),
  bytesFree: lib.func('void smg_bytes_free(void *bytes, size_t len)'),
  contextWithin: lib.func('uint32_t smg_memory_context_within(const smg_memory *m, const char *q, size_t budget, const char *since, const char *until, _Out_ void **json)'),
  expand: lib.func('uint32_t smg_memory_expand_in(const smg_memory *m, const char *segment, const char *link, _Out_ void **text)'),
  ingest: lib.func('uint32_t smg_ingest(const char **inputs, size_t n, const char *output, _Out_ void **json)'),
  index: lib.func('uint32_t smg_index(const char *path, _Out_ void **json)'),
  deltaMake: lib.func('uint32_t smg_delta_make(const char *base, const char *target, const uint8_t *pass, size_t len, const char *delta, _Out_ void **json)'),
  curate: lib.func('uint32_t smg_curate(const char *path, const char *now, uint32_t dry_run, _Out_ void **json)'),
  share: lib.func('uint32_t smg_share(const char *input, const char *output, const char *options, const uint8_t *pass, size_t len, _Out_ void **json)'),
  restore: lib.func('uint32_t smg_restore(const char *path, const char *id, _Out_ void **json)'),
  neo4jPush: lib.func('uint32_t smg_neo4j_push(const char *path, const char *options, _Out_ void **json)'),
  neo4jPull: lib.func('uint32_t smg_neo4j_pull(const char *options, const char *path, _Out_ void **json)'),
  recordAccess: lib.func('uint32_t smg_record_access(const char *path, const char **ids, size_t n, const char *at, const char *by, _Out_ void **json)'),
  deltaApply: lib.func('uint32_t smg_delta_apply(const char *base, const char *delta, const uint8_t *pass, size_t len, const char *output)'),
};

const OK = 0;
const SEARCH_EXACT = 1;
const INVALID = 100;

class SmgError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'SmgError';
    this.status = status;
    this.code = status < 900 ? `SMG-E${String(status).padStart(3, '0')}` : `SMG-FFI-${status}`;
  }
}

function lastError() {
  const n = [0];
  c.lastError(null, 0, n);
  const buf = Buffer.alloc(n[0] + 1);
  c.lastError(buf, buf.length, n);
  return buf.subarray(0, n[0]).toString('utf8');
}

// The string behind a pointer the library returned, freed.
function take(ptr) {
  try {
    return koffi.decode(ptr, 'char', -1);
  } finally {
    c.stringFree(ptr);
  }
}

function call(fn, ...args) {
  const out = [null];
  const status = fn(...args, out);
  if (status !== OK) throw new SmgError(status, lastError());
  return take(out[0]);
}

function text(value, what) {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  return value;
}

// A period's end as the library reads it: null (open), a string (a date or an RFC 3339
// date-time) or a Date.
function time(value, what) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return text(value, what);
}

function validate(data) {
  const bytes = typeof data === 'string' ? fs.readFileSync(data) : Buffer.from(data);
  const out = [null];
  const status = c.validate(bytes, bytes.length, out);
  if (status !== OK && status !== INVALID) throw new SmgError(status, lastError());
  return JSON.parse(take(out[0]));
}

function secretOf(passphrase) {
  return passphrase == null ? Buffer.alloc(0) : Buffer.from(passphrase);
}

// Write to `delta` the delta that rebuilds the file `target` from `base`; its header.
function makeDelta(base, target, delta, passphrase) {
  const secret = secretOf(passphrase);
  const json = call(c.deltaMake, text(base, 'base'), text(target, 'target'),
    secret.length ? secret : null, secret.length, text(delta, 'delta'));
  return JSON.parse(json);
}

// Write to `output` a copy of the memory file `input` that is safe to hand out
// (spec §10.4); `output` null: a dry run. Options: keep (kind names), branch, at,
// passphrase (an encrypted input). The report: findings (kind, section, place),
// counts, distinct, leftOut, written.
function share(input, output = null, { keep = [], branch = null, at = null, passphrase = null } = {}) {
  const secret = secretOf(passphrase);
  const options = { keep, ...(branch == null ? {} : { branch }), ...(at == null ? {} : { at }) };
  return JSON.parse(call(c.share, text(input, 'input'), output == null ? null : text(output, 'output'),
    text(JSON.stringify(options), 'options'), secret.length ? secret : null, secret.length));
}

// Rebuild into `output`, byte for byte, the file `delta` was made for, from `base`.
function applyDelta(base, delta, output, passphrase) {
  const secret = secretOf(passphrase);
  const status = c.deltaApply(text(base, 'base'), text(delta, 'delta'),
    secret.length ? secret : null, secret.length, text(output, 'output'));
  if (status !== OK) throw new SmgError(status, lastError());
}

// The options of smg_memory_open_with, as JSON.
function openOptions({ links = true, linkPassphrases = {} } = {}) {
  const passes = {};
  for (const [name, secret] of Object.entries(linkPassphrases || {})) {
    passes[name] = typeof secret === 'string' ? secret : Buffer.from(secret).toString('utf8');
  }
  return JSON.stringify({ links: Boolean(links), linkPassphrases: passes });
}

class Memory {
  // `options`: { links, linkPassphrases } (see `open`). `handle` is for `unseal`: a
  // handle opened already.
  constructor(path, passphrase, options, handle) {
    this.path = text(path, 'path');
    if (handle) {
      this.handle = handle;
      return;
    }
    const secret = secretOf(passphrase);
    const out = [null];
    const status = c.open(this.path, secret.length ? secret : null, secret.length,
      openOptions(options), out);
    if (status !== OK) throw new SmgError(status, lastError());
    this.handle = out[0];
  }

  // A new Memory with every sealed section `passphrase` opens put back, in memory
  // only: the file stays sealed. A passphrase that opens none throws SMG-E141.
  unseal(passphrase) {
    const secret = secretOf(passphrase);
    const out = [null];
    const status = c.unseal(this.live(), secret.length ? secret : null, secret.length, out);
    if (status !== OK) throw new SmgError(status, lastError());
    return new Memory(this.path, null, null, out[0]);
  }

  live() {
    if (!this.handle) throw new Error('the memory is closed');
    return this.handle;
  }

  // Embed the queries of search and context with the sentence-embedding model in the
  // folder `dir` (all-MiniLM-L6-v2 as sentence-transformers saves it), as
  // `smg search|context --model` does. Returns this.
  setModel(dir) {
    const status = c.setModel(this.live(), text(dir, 'model folder'));
    if (status !== OK) throw new SmgError(status, lastError());
    return this;
  }

  // Count context budgets with `name`: 'chars' (characters / 4, the default), 'cl100k'
  // or 'o200k', as `smg context --tokenizer` does. Returns this.
  setTokenizer(name) {
    const status = c.setTokenizer(this.live(), text(name, 'tokenizer'));
    if (status !== OK) throw new SmgError(status, lastError());
    return this;
  }

  info() {
    return JSON.parse(call(c.info, this.live()));
  }

  // The k best turns for `query`, best first: an array of Hit (fields read as
  // properties: turn, score, content, provenance…), with the k best memory nodes in
  // `.nodes`. One call into the library and no JSON: each field is decoded when it
  // is read. `exact` scores every embedding against the query's (`smg search
  // --exact`) where a large file would first narrow them. `since` and `until` keep to
  // a span of time, as `smg search --since --until`: a date ('2023-05-08'; an `until`
  // date runs through that day), an RFC 3339 date-time, or a Date.
  search(query, k = 10, { exact = false, since = null, until = null } = {}) {
    const out = [null];
    const len = [0];
    const flags = exact ? SEARCH_EXACT : 0;
    const status = c.searchWithin(this.live(), text(query, 'query'), k, flags, time(since, 'since'),
      time(until, 'until'), out, len);
    if (status !== OK) throw new SmgError(status, lastError());
    try {
      const bytes = koffi.decode(out[0], 'uint8_t', len[0]);
      return hits.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    } finally {
      c.bytesFree(out[0], len[0]);
    }
  }

  // Hybrid search, as `smg search --json`: the k best turns (`hits`), the k best
  // memory nodes (`nodes`: facts, decisions, concepts with `type`, `text`, `sources`,
  // `provenance`) and `warnings`.
  searchAll(query, k = 10) {
    return JSON.parse(call(c.search, this.live(), text(query, 'query'), k));
  }

  // A context pack for `query` within `budget` tokens, of the turns inside `since` …
  // `until` when given (as search takes them).
  context(query, budget = 8000, { since = null, until = null } = {}) {
    return JSON.parse(call(c.contextWithin, this.live(), text(query, 'query'), budget,
      time(since, 'since'), time(until, 'until')));
  }

  // The original turns of a segment, byte for byte: in the linked file named `link`
  // when given (segment ids of two files may be the same), else in this memory or
  // the first linked file that has it.
  expand(segmentId, link = null) {
    return call(c.expand, this.live(), text(segmentId, 'segment id'),
      link == null ? null : text(link, 'link'));
  }

  validate() {
    return validate(this.path);
  }

  close() {
    if (this.handle) {
      c.free(this.handle);
      this.handle = null;
    }
  }
}

module.exports = {
  SmgError,
  Hit: hits.Hit,
  Memory,
  version: () => c.version(),
  // Open a memory file (`passphrase` for an encrypted one) with the files its links
  // reach (`smg link`): search, context and expand answer from all of them as one
  // memory, each hit's `file` ({ name, path }) saying where it came from when more
  // than one file answered. Options: `links: false` keeps to this file;
  // `linkPassphrases` maps a link's name to that encrypted linked file's passphrase.
  // A linked file that cannot be followed is a warning (info().links.warnings, and
  // each answer's warnings).
  open: (path, passphrase, options) => new Memory(path, passphrase, options),
  ingest: (inputs, output) => JSON.parse(call(c.ingest, inputs.map((i) => text(i, 'input')), inputs.length, text(output, 'output'))),
  // Store the search index in the memory file at `file` (rewritten in the packed
  // layout first when it is in another), so that opening it reads the index alone.
  index: (file) => JSON.parse(call(c.index, text(file, 'path'))),
  // One curation cycle (spec §18) on the memory file at `file` at `now` (RFC 3339,
  // default: the current time), written back unless `dryRun`; the report.
  curate: (file, { now = null, dryRun = false } = {}) => JSON.parse(call(c.curate, text(file, 'path'),
    now == null ? null : text(now, 'now'), dryRun ? 1 : 0)),
  // Push the memory file at `file` to the Bolt server at `uri` (spec §19); options:
  // database, dialect ('neo4j' | 'falkordb'), memory, tiers, user, password, caFile,
  // connectTimeout, timeout, batch. The summary.
  push: (file, uri, options = {}) => JSON.parse(call(c.neo4jPush, text(file, 'path'),
    text(JSON.stringify({ ...options, uri }), 'options'))),
  // Pull a memory's tiers from `uri` into the memory file at `file` (an existing file
  // keeps what the database does not hold); options as for push, plus now.
  pull: (uri, file, options = {}) => JSON.parse(call(c.neo4jPull,
    text(JSON.stringify({ ...options, uri }), 'options'), text(file, 'path'))),
  // Undo an audit entry or a whole cycle of the memory file at `file`.
  restore: (file, id) => JSON.parse(call(c.restore, text(file, 'path'), text(id, 'audit id'))),
  // Record that `ids` were retrieved (at `at`, by `by`): what reactivates them.
  recordAccess: (file, ids, { at = null, by = null } = {}) => JSON.parse(call(c.recordAccess,
    text(file, 'path'), ids.map((i) => text(i, 'node id')), ids.length,
    at == null ? null : text(at, 'at'), by == null ? null : text(by, 'by'))),
  validate,
  makeDelta,
  share,
  applyDelta,
};
