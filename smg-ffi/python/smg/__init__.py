"""smg: open, search, build and validate .smg memory files from Python.

A thin layer over smg's C ABI (smg-ffi, see smg-ffi/include/smg.h), loaded with ctypes::

    import smg
    summary = smg.ingest(["conversations.json"], "memory.smg")
    with smg.open("memory.smg") as memory:
        for hit in memory.search("stripe webhook", k=5):
            print(hit["turn"], hit["content"])
        pack = memory.context("what did we decide about the database", budget=2000)

Every failure raises SmgError, whose ``code`` is the stable SMG code (``SMG-E141``).
"""

import ctypes
import datetime
import glob
import json
import os

from ._hits import Hit, Hits, read as _read_hits

__all__ = [
    "SmgError", "Memory", "open", "ingest", "index", "validate", "version",
    "curate", "restore", "record_access", "Hit", "Hits",
]


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("SMG_LIB", "")]
    candidates += sorted(glob.glob(os.path.join(here, "_native*")))
    for c in candidates:
        if c and os.path.exists(c):
            return c
    raise ImportError("smg: the native library (_native) is missing; reinstall with pip install ./smg-ffi/python")


_lib = ctypes.CDLL(_find_library())
_char_p = ctypes.c_char_p
_out_str = ctypes.POINTER(ctypes.c_void_p)

_lib.smg_version.restype = _char_p
_lib.smg_version.argtypes = []
_lib.smg_string_free.restype = None
_lib.smg_string_free.argtypes = [ctypes.c_void_p]
_lib.smg_last_error.restype = None
_lib.smg_last_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
_lib.smg_validate.restype = ctypes.c_uint32
_lib.smg_validate.argtypes = [ctypes.c_char_p, ctypes.c_size_t, _out_str]
_lib.smg_memory_open_with.restype = ctypes.c_uint32
_lib.smg_memory_open_with.argtypes = [
    _char_p, ctypes.c_char_p, ctypes.c_size_t, _char_p, ctypes.POINTER(ctypes.c_void_p)
]
_lib.smg_memory_unseal.restype = ctypes.c_uint32
_lib.smg_memory_unseal.argtypes = [
    ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)
]
for _name in ("smg_memory_set_model", "smg_memory_set_tokenizer"):
    getattr(_lib, _name).restype = ctypes.c_uint32
    getattr(_lib, _name).argtypes = [ctypes.c_void_p, _char_p]
_lib.smg_memory_free.restype = None
_lib.smg_memory_free.argtypes = [ctypes.c_void_p]
_lib.smg_memory_search.restype = ctypes.c_uint32
_lib.smg_memory_search.argtypes = [ctypes.c_void_p, _char_p, ctypes.c_size_t, _out_str]
_lib.smg_memory_search_within.restype = ctypes.c_uint32
_lib.smg_memory_search_within.argtypes = [
    ctypes.c_void_p, _char_p, ctypes.c_size_t, ctypes.c_uint32, _char_p, _char_p,
    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
]
_lib.smg_memory_context_within.restype = ctypes.c_uint32
_lib.smg_memory_context_within.argtypes = [ctypes.c_void_p, _char_p, ctypes.c_size_t, _char_p, _char_p, _out_str]
_SEARCH_EXACT = 1
_lib.smg_bytes_free.restype = None
_lib.smg_bytes_free.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_lib.smg_memory_info.restype = ctypes.c_uint32
_lib.smg_memory_info.argtypes = [ctypes.c_void_p, _out_str]
_lib.smg_memory_expand_in.restype = ctypes.c_uint32
_lib.smg_memory_expand_in.argtypes = [ctypes.c_void_p, _char_p, _char_p, _out_str]
_lib.smg_ingest.restype = ctypes.c_uint32
_lib.smg_ingest.argtypes = [ctypes.POINTER(_char_p), ctypes.c_size_t, _char_p, _out_str]
_lib.smg_delta_make.restype = ctypes.c_uint32
_lib.smg_delta_make.argtypes = [_char_p, _char_p, ctypes.c_char_p, ctypes.c_size_t, _char_p, _out_str]
_lib.smg_index.restype = ctypes.c_uint32
_lib.smg_index.argtypes = [_char_p, _out_str]
_lib.smg_curate.restype = ctypes.c_uint32
_lib.smg_curate.argtypes = [_char_p, _char_p, ctypes.c_uint32, _out_str]
_lib.smg_share.restype = ctypes.c_uint32
_lib.smg_share.argtypes = [_char_p, _char_p, _char_p, ctypes.c_char_p, ctypes.c_size_t, _out_str]
_lib.smg_restore.restype = ctypes.c_uint32
_lib.smg_restore.argtypes = [_char_p, _char_p, _out_str]
_lib.smg_neo4j_push.restype = ctypes.c_uint32
_lib.smg_neo4j_push.argtypes = [_char_p, _char_p, _out_str]
_lib.smg_neo4j_pull.restype = ctypes.c_uint32
_lib.smg_neo4j_pull.argtypes = [_char_p, _char_p, _out_str]
_lib.smg_record_access.restype = ctypes.c_uint32
_lib.smg_record_access.argtypes = [
    _char_p, ctypes.POINTER(_char_p), ctypes.c_size_t, _char_p, _char_p, _out_str
]
_lib.smg_delta_apply.restype = ctypes.c_uint32
_lib.smg_delta_apply.argtypes = [_char_p, _char_p, ctypes.c_char_p, ctypes.c_size_t, _char_p]

_OK = 0
_INVALID = 100


class SmgError(Exception):
    """A failed call: ``status`` is the ABI's number, ``code`` the SMG code."""

    def __init__(self, status, message):
        self.status = status
        self.code = "SMG-E%03d" % status if status < 900 else ("SMG-FFI-%d" % status)
        super().__init__(message)


def _last_error():
    n = ctypes.c_size_t(0)
    _lib.smg_last_error(None, 0, ctypes.byref(n))
    buf = ctypes.create_string_buffer(n.value + 1)
    _lib.smg_last_error(buf, len(buf), ctypes.byref(n))
    return buf.value.decode("utf-8", "replace")


def _take(ptr):
    """The text of a string the library returned, freed."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        _lib.smg_string_free(ptr)


def _call(fn, *args):
    out = ctypes.c_void_p()
    status = fn(*args, ctypes.byref(out))
    if status != _OK:
        raise SmgError(status, _last_error())
    return _take(out)


def _text(s):
    if not isinstance(s, str):
        raise TypeError("expected str, got %s" % type(s).__name__)
    return s.encode("utf-8")


def _time(t):
    """A period's end as the library reads it: None (open), a str (a date or an RFC 3339
    date-time), a ``datetime.date`` (its midnight, UTC) or a ``datetime.datetime``
    (UTC when it has no time zone)."""
    if t is None:
        return None
    if isinstance(t, datetime.datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=datetime.timezone.utc)
        return t.isoformat().encode()
    if isinstance(t, datetime.date):
        return t.isoformat().encode()
    if isinstance(t, str):
        return t.encode("utf-8")
    raise TypeError("expected None, str, date or datetime, got %s" % type(t).__name__)


def version():
    """The library's version."""
    return _lib.smg_version().decode()


def validate(data):
    """Validate a file (path) or bytes; the report as a dict (``valid``, ``findings``)."""
    if isinstance(data, (str, os.PathLike)):
        with builtins_open(data, "rb") as f:
            data = f.read()
    out = ctypes.c_void_p()
    status = _lib.smg_validate(data, len(data), ctypes.byref(out))
    if status not in (_OK, _INVALID):
        raise SmgError(status, _last_error())
    return json.loads(_take(out))


def ingest(inputs, output):
    """Ingest transcripts or exports (paths) into a new memory file; a summary dict."""
    paths = [_text(os.fspath(p)) for p in inputs]
    array = (_char_p * len(paths))(*paths)
    return json.loads(_call(_lib.smg_ingest, array, len(paths), _text(os.fspath(output))))


def index(path):
    """Store the search index in the memory file at ``path`` (rewritten in the packed
    layout first when it is in another), so that opening it reads the index alone;
    a summary dict (``file``, ``bytesBefore``, ``bytesAfter``)."""
    return json.loads(_call(_lib.smg_index, _text(os.fspath(path))))


def curate(path, now=None, dry_run=False):
    """Run one curation cycle (spec §18) on the memory file at ``path`` at ``now``
    (RFC 3339; default: the current time) and write it back unless ``dry_run``;
    the report as a dict (``cycle``, ``scanned``, ``actions`` with their reasons)."""
    when = None if now is None else _text(now)
    return json.loads(_call(_lib.smg_curate, _text(os.fspath(path)), when, 1 if dry_run else 0))


def _bolt_options(uri, options):
    opts = {"uri": uri}
    opts.update({k: v for k, v in options.items() if v is not None})
    return _text(json.dumps(opts))


def push(path, uri, **options):
    """Push the memory file at ``path`` to the Bolt server at ``uri`` (Neo4j 5, or
    FalkorDB with ``dialect="falkordb"``), spec §19: changed nodes and relationships
    written, removed ones deleted. Options: ``database``, ``dialect``, ``memory``,
    ``tiers`` (a list), ``user``, ``password``, ``caFile``, ``connectTimeout``,
    ``timeout``, ``batch``. The summary as a dict."""
    return json.loads(_call(_lib.smg_neo4j_push, _text(os.fspath(path)), _bolt_options(uri, options)))


def pull(uri, path, **options):
    """Pull a memory's tiers from the Bolt server at ``uri`` into the memory file at
    ``path`` (an existing file keeps what the database does not hold); options as
    for :func:`push`, plus ``now``. The summary as a dict."""
    return json.loads(_call(_lib.smg_neo4j_pull, _bolt_options(uri, options), _text(os.fspath(path))))


def restore(path, audit_id):
    """Undo an audit entry or a whole cycle of the memory file at ``path``; a dict
    (``restored``: the entry ids undone)."""
    return json.loads(_call(_lib.smg_restore, _text(os.fspath(path)), _text(audit_id)))


def record_access(path, node_ids, at=None, by=None):
    """Record that ``node_ids`` were retrieved (at ``at``, by ``by``) in the memory
    file at ``path``: what reactivates them and feeds curation; a dict (``found``)."""
    ids = [_text(i) for i in node_ids]
    array = (_char_p * len(ids))(*ids)
    when = None if at is None else _text(at)
    who = None if by is None else _text(by)
    return json.loads(
        _call(_lib.smg_record_access, _text(os.fspath(path)), array, len(ids), when, who)
    )


def _secret(passphrase):
    if passphrase is None:
        return b""
    return passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)


def make_delta(base, target, delta, passphrase=None):
    """Write to ``delta`` the delta that rebuilds the file ``target`` from ``base``;
    its header as a dict (``base``/``target`` SHA-256, ``patch``, ``deltaBytes``)."""
    secret = _secret(passphrase)
    paths = [_text(os.fspath(p)) for p in (base, target)]
    return json.loads(_call(_lib.smg_delta_make, *paths, secret, len(secret), _text(os.fspath(delta))))


def share(inp, out=None, keep=(), branch=None, at=None, passphrase=None):
    """Write to ``out`` a copy of the memory file ``inp`` that is safe to hand out
    (spec §10.4): credentials and personal data replaced by typed placeholders, the
    restricted tier, private contexts, access records and the audit left out. Without
    ``out`` nothing is written (a dry run). ``keep`` names kinds to leave as they are
    (``"email"``, ``"ip"``…). The report as a dict: ``findings`` (kind, section,
    place; never the value), ``counts``, ``distinct``, ``leftOut``, ``written``."""
    options = {"keep": list(keep)}
    if branch is not None:
        options["branch"] = branch
    if at is not None:
        options["at"] = at
    secret = _secret(passphrase)
    target = None if out is None else _text(os.fspath(out))
    return json.loads(_call(_lib.smg_share, _text(os.fspath(inp)), target,
                            _text(json.dumps(options)), secret, len(secret)))


def apply_delta(base, delta, output, passphrase=None):
    """Rebuild into ``output``, byte for byte, the file ``delta`` was made for from
    ``base``; another base raises SmgError with code SMG-E160 and writes nothing."""
    secret = _secret(passphrase)
    paths = [_text(os.fspath(p)) for p in (base, delta)]
    status = _lib.smg_delta_apply(*paths, secret, len(secret), _text(os.fspath(output)))
    if status != _OK:
        raise SmgError(status, _last_error())


def _open_options(links, link_passphrases):
    """The options of smg_memory_open_with, as JSON."""
    passes = {}
    for name, secret in (link_passphrases or {}).items():
        if isinstance(secret, (bytes, bytearray)):
            secret = bytes(secret).decode("utf-8")
        if not isinstance(secret, str):
            raise TypeError("link_passphrases[%r] must be str or bytes" % (name,))
        passes[str(name)] = secret
    return json.dumps({"links": bool(links), "linkPassphrases": passes})


class Memory:
    """An opened memory file; use it as a context manager or call close()."""

    _handle = None

    def __init__(self, path, passphrase=None, links=True, link_passphrases=None):
        self._path = os.fspath(path)
        handle = ctypes.c_void_p()
        secret = _secret(passphrase)
        options = _text(_open_options(links, link_passphrases))
        status = _lib.smg_memory_open_with(
            _text(self._path), secret, len(secret), options, ctypes.byref(handle)
        )
        if status != _OK:
            raise SmgError(status, _last_error())
        self._handle = handle

    def _live(self):
        if not self._handle:
            raise ValueError("the memory is closed")
        return self._handle

    def unseal(self, passphrase):
        """A new Memory with every sealed section ``passphrase`` opens put back, in
        memory only: the file stays sealed. A passphrase that opens none raises
        SmgError with code SMG-E141."""
        secret = _secret(passphrase)
        handle = ctypes.c_void_p()
        status = _lib.smg_memory_unseal(self._live(), secret, len(secret), ctypes.byref(handle))
        if status != _OK:
            raise SmgError(status, _last_error())
        opened = Memory.__new__(Memory)
        opened._path = self._path
        opened._handle = handle
        return opened

    def _configure(self, fn, value):
        status = fn(self._live(), _text(os.fspath(value)))
        if status != _OK:
            raise SmgError(status, _last_error())
        return self

    def set_model(self, path):
        """Embed queries of search() and context() with the sentence-embedding model in
        the folder ``path`` (all-MiniLM-L6-v2 as sentence-transformers saves it), as
        ``smg search|context --model`` does; returns self. Configure a Memory before
        sharing it between threads."""
        return self._configure(_lib.smg_memory_set_model, path)

    def set_tokenizer(self, name):
        """Count context budgets with ``name``: "chars" (characters / 4, the default),
        "cl100k" or "o200k", as ``smg context --tokenizer`` does; returns self."""
        return self._configure(_lib.smg_memory_set_tokenizer, name)

    def info(self):
        """Counts, dates and the summary, as a dict; ``links`` lists the linked files
        followed (``files``: name, path, turns) and those that were not
        (``warnings``: code, name, path, message)."""
        return json.loads(_call(_lib.smg_memory_info, self._live()))

    def search(self, query, k=10, exact=False, since=None, until=None):
        """The ``k`` best turns for ``query``, best first: a :class:`Hits` list of
        :class:`Hit` (read as dicts: turn, score, content, provenance…), with the
        ``k`` best memory nodes in ``.nodes``. One call into the library and no JSON:
        each field is decoded when it is read. ``exact`` scores every embedding
        against the query's (``smg search --exact``) where a large file would first
        narrow them. ``since`` and ``until`` keep to a span of time, as ``smg search
        --since --until``: a date (``"2023-05-08"`` or ``datetime.date``; an ``until``
        date runs through that day) or a date-time (RFC 3339, or ``datetime``)."""
        ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
        flags = _SEARCH_EXACT if exact else 0
        status = _lib.smg_memory_search_within(
            self._live(), _text(query), k, flags, _time(since), _time(until),
            ctypes.byref(ptr), ctypes.byref(n)
        )
        if status != _OK:
            raise SmgError(status, _last_error())
        try:
            data = ctypes.string_at(ptr, n.value)
        finally:
            _lib.smg_bytes_free(ptr, n)
        return _read_hits(data)

    def search_all(self, query, k=10):
        """Hybrid search, as ``smg search --json``: a dict with the ``k`` best turns
        (``hits``), the ``k`` best memory nodes (``nodes``: facts, decisions, concepts,
        each with ``type``, ``text``, ``sources`` and ``provenance``) and ``warnings``."""
        return json.loads(_call(_lib.smg_memory_search, self._live(), _text(query), k))

    def context(self, query, budget=8000, since=None, until=None):
        """A context pack for ``query`` within ``budget`` tokens (dict with ``text``),
        of the turns inside ``since`` … ``until`` when given (as :meth:`search`)."""
        return json.loads(_call(_lib.smg_memory_context_within, self._live(), _text(query), budget,
                                _time(since), _time(until)))

    def expand(self, segment_id, link=None):
        """The original turns of a segment, byte for byte: in the linked file named
        ``link`` when given (segment ids of two files may be the same), else in this
        memory or the first linked file that has it."""
        name = None if link is None else _text(link)
        return _call(_lib.smg_memory_expand_in, self._live(), _text(segment_id), name)

    def validate(self):
        """Validate the file this memory was opened from."""
        return validate(self._path)

    def close(self):
        if self._handle:
            _lib.smg_memory_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def open(path, passphrase=None, links=True, link_passphrases=None):  # noqa: A001 - as io.open
    """Open a memory file (``passphrase`` for an encrypted one) with the files its
    links reach (``smg link``): search, context and expand answer from all of them as
    one memory, each hit's ``file`` saying where it came from when more than one file
    answered. ``links=False`` keeps to this file; ``link_passphrases`` maps a link's
    name to the passphrase of that encrypted linked file. A linked file that cannot be
    followed is a warning (``info()["links"]``, and each answer's warnings)."""
    return Memory(path, passphrase, links, link_passphrases)


import builtins as _builtins  # noqa: E402

builtins_open = _builtins.open
