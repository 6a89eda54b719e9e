// Search results read from the buffer smg_memory_search_hits returns (its layout is
// in smg.h): a hit decodes a field when it is read, so a search returns without
// building what the caller never reads.
const NONE = 0xffffffff;
const HEAD = 24;
const SLOT = {
  type: 0, id: 1, sources: 2, speaker: 3, role: 4, text: 5, timestamp: 6, segment: 7,
  conversation: 8, session: 9, message: 10, provenance: 11, fileName: 12, filePath: 13,
};
const TURN_KEYS = ['type', 'turn', 'score', 'sources', 'speaker', 'role', 'content',
  'timestamp', 'segment', 'provenance'];
const NODE_KEYS = ['type', 'id', 'score', 'sources', 'text', 'importance', 'confidence',
  'timestamp', 'provenance'];

// The string the slot at byte `p` of `buf` points to (null for none).
function slot(buf, strings, p) {
  const offset = buf.readUInt32LE(p);
  if (offset === NONE) return null;
  const start = strings + offset;
  return buf.toString('utf8', start, start + buf.readUInt32LE(p + 4));
}

function orNull(v) {
  return Number.isNaN(v) ? null : v;
}

// One result. A turn has type, turn, score, sources, speaker, role, content,
// timestamp, segment and provenance; a memory node type, id, score, sources, text,
// importance, confidence, timestamp and provenance — the keys of searchAll's results
// (`toJSON()` gives them as a plain object). Fields that are not its kind's are
// undefined.
class Hit {
  #buf;

  #strings;

  #at;

  #turn;

  #files;

  // `files`: whether records carry the file slots (144 bytes and up).
  constructor(buf, strings, at, turn, files) {
    this.#buf = buf;
    this.#strings = strings;
    this.#at = at;
    this.#turn = turn;
    this.#files = files;
  }

  #string(name) {
    return slot(this.#buf, this.#strings, this.#at + 32 + 8 * SLOT[name]);
  }

  get type() { return this.#string('type'); }
  get score() { return this.#buf.readDoubleLE(this.#at); }
  get sources() { return this.#string('sources').split(','); }
  get timestamp() { return this.#string('timestamp'); }
  get turn() { return this.#turn ? Number(this.#buf.readBigInt64LE(this.#at + 24)) : undefined; }
  get speaker() { return this.#turn ? this.#string('speaker') : undefined; }
  get role() { return this.#turn ? this.#string('role') : undefined; }
  get content() { return this.#turn ? this.#string('text') : undefined; }
  get segment() { return this.#turn ? this.#string('segment') : undefined; }
  get id() { return this.#turn ? undefined : this.#string('id'); }
  get text() { return this.#turn ? undefined : this.#string('text'); }
  get importance() { return this.#turn ? undefined : orNull(this.#buf.readDoubleLE(this.#at + 8)); }
  get confidence() { return this.#turn ? undefined : orNull(this.#buf.readDoubleLE(this.#at + 16)); }

  get provenance() {
    if (!this.#turn) return JSON.parse(this.#string('provenance'));
    return {
      conversationId: this.#string('conversation'),
      sessionId: this.#string('session'),
      messageId: this.#string('message'),
    };
  }

  // The file of a network of linked memories it came from ({ name, path }; name null
  // for the file opened), when more than one file answered; else undefined.
  get file() {
    const path = this.#files ? this.#string('filePath') : null;
    return path == null ? undefined : { name: this.#string('fileName'), path };
  }

  toJSON() {
    const keys = this.#turn ? TURN_KEYS : NODE_KEYS;
    const out = Object.fromEntries(keys.map((k) => [k, this[k]]));
    const { file } = this;
    if (file) out.file = file;
    return out;
  }
}

// The turns a search found, best first: an array of Hit, with `nodes` (the memory
// nodes found) and `warnings` as properties that are read when asked for.
function read(buf) {
  const [turns, nodes, warnings, size] = [8, 12, 16, 20].map((p) => buf.readUInt32LE(p));
  if (buf.toString('latin1', 0, 4) !== 'SMGH' || buf.readUInt32LE(4) !== 1 || size < 128) {
    throw new Error('smg: search results in a layout this package does not read');
  }
  const after = HEAD + (turns + nodes) * size;
  const strings = after + 8 * warnings;
  const files = size >= 144;
  const hits = Array.from({ length: turns }, (_, i) => new Hit(buf, strings, HEAD + i * size, true, files));
  let found;
  Object.defineProperties(hits, {
    nodes: {
      get: () => {
        found = found || Array.from({ length: nodes }, (_, i) => new Hit(buf, strings, HEAD + (turns + i) * size, false, files));
        return found;
      },
    },
    warnings: {
      get: () => Array.from({ length: warnings }, (_, i) => slot(buf, strings, after + 8 * i)),
    },
  });
  return hits;
}

module.exports = { Hit, read };
