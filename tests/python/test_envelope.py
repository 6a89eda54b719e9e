"""The Brotli envelope (spec §2.2) read by an independent decoder: Google's Brotli
(the `brotli` package). JSON over 4 MiB is written in pieces compressed side by side
and joined into one stream; any decoder must read that stream whole."""

import json
import os
import pathlib
import struct
import subprocess
import zlib

import brotli

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMG = os.environ.get("SMG_BIN", str(ROOT / "target" / "debug" / "smg"))
HEADER = 20


def document(nodes: int) -> dict:
    words = ["memory", "graph", "turn", "postgres", "decision", "vault", "archive", "budget"]
    return {
        "@context": "https://w3id.org/smg/v1",
        "@type": "SemanticMemoryGraph",
        "version": "1.0",
        "metadata": {"created": "2025-12-04T10:30:00Z"},
        "semanticGraph": {
            "nodes": [
                {
                    "id": f"n{i}",
                    "type": "concept",
                    "label": f"{words[i % 8]} {words[(i * 7) % 8]} {i}",
                    "description": " ".join(words[(i + k) % 8] for k in range(i % 23)),
                    "importance": (i % 100) / 100,
                }
                for i in range(nodes)
            ]
        },
    }


def smg(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run([SMG, *args], cwd=cwd, check=True, capture_output=True)


def envelope_json(blob: bytes) -> bytes:
    """The JSON of a Brotli envelope, decoded by Google's Brotli and checked."""
    assert blob[:4] == b"\x89SMG" and blob[4] == 1 and blob[5] == 1 and blob[6:8] == b"\0\0"
    length, crc = struct.unpack_from("<QI", blob, 8)
    text = brotli.decompress(blob[HEADER:])
    assert len(text) == length
    assert zlib.crc32(text) == crc
    return text


def test_a_large_document_in_pieces_is_one_standard_brotli_stream(tmp_path):
    (tmp_path / "big.json").write_text(json.dumps(document(60_000)))
    smg("convert", "big.json", "-o", "big.smg", "--encoding", "brotli", cwd=tmp_path)
    smg("convert", "big.smg", "-o", "canonical.json", "--encoding", "json", cwd=tmp_path)
    canonical = (tmp_path / "canonical.json").read_bytes()
    assert len(canonical) > 2 * (4 << 20), "the document must span several pieces"
    assert envelope_json((tmp_path / "big.smg").read_bytes()) == canonical


def test_a_small_document_is_read_the_same_way(tmp_path):
    (tmp_path / "small.json").write_text(json.dumps(document(50)))
    smg("convert", "small.json", "-o", "small.smg", "--encoding", "brotli", cwd=tmp_path)
    smg("convert", "small.smg", "-o", "canonical.json", "--encoding", "json", cwd=tmp_path)
    canonical = (tmp_path / "canonical.json").read_bytes()
    assert envelope_json((tmp_path / "small.smg").read_bytes()) == canonical
