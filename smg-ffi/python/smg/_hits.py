"""Search results read from the buffer smg_memory_search_hits returns (its layout is
in smg.h): a hit decodes a field when it is asked for, so a search returns without
building what the caller never reads."""

import json
import struct
from collections.abc import Mapping

_HEAD = struct.Struct("<4s5I")
_NUMBERS = struct.Struct("<3dq")
_SLOT = struct.Struct("<II")
_NONE = 0xFFFFFFFF
(_TYPE, _ID, _SOURCES, _SPEAKER, _ROLE, _TEXT, _TIMESTAMP, _SEGMENT,
 _CONVERSATION, _SESSION, _MESSAGE, _PROVENANCE, _FILE_NAME, _FILE_PATH) = range(14)

_TURN_KEYS = ("type", "turn", "score", "sources", "speaker", "role", "content",
              "timestamp", "segment", "provenance")
_NODE_KEYS = ("type", "id", "score", "sources", "text", "importance", "confidence",
              "timestamp", "provenance")


class _Buffer:
    __slots__ = ("data", "strings", "files")

    def __init__(self, data, strings, files):
        self.data = data
        self.strings = strings
        # Records carry the file slots (144 bytes and up).
        self.files = files

    def string(self, at, slot):
        """The string of slot ``slot`` of the record at ``at``."""
        return self.slot(at + 32 + 8 * slot)

    def slot(self, p):
        """The string the slot at ``p`` points to."""
        offset, n = _SLOT.unpack_from(self.data, p)
        if offset == _NONE:
            return None
        start = self.strings + offset
        return self.data[start:start + n].decode("utf-8")


def _nan_none(v):
    return None if v != v else v


def _file(b, at):
    path = b.string(at, _FILE_PATH) if b.files else None
    if path is None:
        return None
    return {"name": b.string(at, _FILE_NAME), "path": path}


def _sources(b, at):
    return b.string(at, _SOURCES).split(",")


def _provenance(b, at):
    if _NUMBERS.unpack_from(b.data, at)[3] < 0:
        return json.loads(b.string(at, _PROVENANCE))
    return {"conversationId": b.string(at, _CONVERSATION), "sessionId": b.string(at, _SESSION),
            "messageId": b.string(at, _MESSAGE)}


# Fields that are a string slot, read straight from it.
_STRINGS = {"type": _TYPE, "id": _ID, "speaker": _SPEAKER, "role": _ROLE, "content": _TEXT,
            "text": _TEXT, "timestamp": _TIMESTAMP, "segment": _SEGMENT}

_OTHERS = {
    "score": lambda b, at: _NUMBERS.unpack_from(b.data, at)[0],
    "importance": lambda b, at: _nan_none(_NUMBERS.unpack_from(b.data, at)[1]),
    "confidence": lambda b, at: _nan_none(_NUMBERS.unpack_from(b.data, at)[2]),
    "turn": lambda b, at: _NUMBERS.unpack_from(b.data, at)[3],
    "sources": _sources,
    "provenance": _provenance,
}

_TURN_KEYSET = frozenset(_TURN_KEYS)
_NODE_KEYSET = frozenset(_NODE_KEYS)


class Hit(Mapping):
    """One result, read as a dict is (``hit["content"]``, ``dict(hit)``): a turn has
    type, turn, score, sources, speaker, role, content, timestamp, segment and
    provenance; a memory node type, id, score, sources, text, importance,
    confidence, timestamp and provenance — the keys of ``search_all``'s results —
    and, when more than one file of a network of linked memories answered, ``file``
    (its link ``name``, None for the file opened, and its ``path``).
    A Hit is no dict: ``json.dumps`` takes ``dict(hit)``."""

    __slots__ = ("_b", "_at", "_turn")

    def __init__(self, buffer, at, turn):
        self._b = buffer
        self._at = at
        self._turn = turn

    def _keys(self):
        keys = _TURN_KEYS if self._turn else _NODE_KEYS
        return keys + ("file",) if _file(self._b, self._at) is not None else keys

    def __getitem__(self, key):
        if key == "file":
            found = _file(self._b, self._at)
            if found is None:
                raise KeyError(key)
            return found
        if key not in (_TURN_KEYSET if self._turn else _NODE_KEYSET):
            raise KeyError(key)
        slot = _STRINGS.get(key)
        if slot is None:
            return _OTHERS[key](self._b, self._at)
        return self._b.slot(self._at + 32 + 8 * slot)

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())

    def __repr__(self):
        return "Hit(%r)" % dict(self)


class Hits(list):
    """The turns a search found, best first (a list of :class:`Hit`); ``nodes`` holds
    the memory nodes it found, ``warnings`` what the caller should know."""

    def __init__(self, hits, buffer, nodes, warnings):
        super().__init__(hits)
        self._b = buffer
        self._node_at = nodes
        self._warnings_at = warnings
        self._nodes = None

    @property
    def nodes(self):
        """The memory nodes found (facts, decisions, concepts…), best first."""
        if self._nodes is None:
            self._nodes = [Hit(self._b, at, False) for at in self._node_at]
        return self._nodes

    @property
    def warnings(self):
        """What the caller should know (a query vector the file has no embeddings for)."""
        return [self._b.slot(p) for p in self._warnings_at]


def read(data):
    """The results in ``data``, a buffer of the layout smg.h describes."""
    magic, version, turns, nodes, warnings, size = _HEAD.unpack_from(data)
    if magic != b"SMGH" or version != 1 or size < 128:
        raise ValueError("smg: search results in a layout this package does not read")
    first = _HEAD.size
    after = first + (turns + nodes) * size
    b = _Buffer(data, after + 8 * warnings, size >= 144)
    return Hits(
        [Hit(b, first + i * size, True) for i in range(turns)],
        b,
        range(first + turns * size, after, size),
        range(after, after + 8 * warnings, 8),
    )
