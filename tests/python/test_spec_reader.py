"""A reader written from spec/smg-v1.md alone (§2.1 encodings, §2.2 the envelope, §5
turns, §8 the vault, §9.1 blocks): every turn and node of a JSON-layout file, in
format 1 (`compressedData`) or format 2 (`turns` in the clear), checked against what
smg itself gives and against the export the memory was made from."""

import base64
import gzip
import json
import os
import pathlib
import struct
import subprocess
import zlib

import brotli
import pytest
import zstandard

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMG = os.environ.get("SMG_BIN", str(ROOT / "target" / "debug" / "smg"))


# --- the reader: nothing below imports smg or looks at its code ----------------------


def document(blob: bytes) -> dict:
    """§2.1 and §2.2: the JSON document of a file in any JSON-layout encoding."""
    if blob[:4] == b"\x89SMG":
        assert blob[4] == 1 and blob[6:8] == b"\0\0", "envelope version 1, no flags"
        length, crc = struct.unpack_from("<QI", blob, 8)
        payload = blob[20:]
        if blob[5] == 1:
            text = brotli.decompress(payload)
        elif blob[5] == 2:
            text = zstandard.ZstdDecompressor().decompressobj().decompress(payload)
        else:
            raise ValueError(f"encoding byte {blob[5]} is not a JSON layout")
        assert len(text) == length and zlib.crc32(text) == crc
    elif blob[:4] == b"\x28\xb5\x2f\xfd":
        text = zstandard.ZstdDecompressor().decompressobj().decompress(blob)
    else:
        text = blob.removeprefix(b"\xef\xbb\xbf")
    return json.loads(text)


def apply_unified_diff(old: str, diff: str) -> str:
    """§8: a version's `delta`, a unified diff against the previous version."""
    old_lines = old.splitlines(keepends=True)
    out, at = [], 0
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("@@"):
            i += 1
            continue
        start = int(line.split()[1][1:].split(",")[0])
        count = line.split()[1][1:].split(",")
        # `-0,0` hunks insert after line 0; any other start is 1-based.
        first = start - 1 if not (len(count) > 1 and count[1] == "0") else start
        out.extend(old_lines[at:first])
        at = first
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            body = lines[i]
            if body.startswith("\\"):
                # "\ No newline at end of file": the line before has no newline.
                out[-1] = out[-1].removesuffix("\n") if out else ""
            elif body.startswith("-"):
                at += 1
            elif body.startswith("+"):
                out.append(body[1:])
            elif body.startswith(" "):
                out.append(old_lines[at])
                at += 1
            i += 1
    out.extend(old_lines[at:])
    return "".join(out)


def artifact_version(vault: dict, artifact: str, n: int) -> str:
    """§8: version n's full content: the nearest full content, then each delta."""
    versions = vault["artifacts"][artifact]["versions"]
    text = None
    for v in versions:
        if v["v"] > n:
            break
        text = v["content"] if "content" in v else apply_unified_diff(text, v["delta"])
    return text


def put_at(record, pointer: str, text: str):
    """RFC 6901: set the string at `pointer` inside `record`."""
    keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]
    at = record
    for k in keys[:-1]:
        at = at[int(k)] if isinstance(at, list) else at[k]
    last = keys[-1]
    at[int(last) if isinstance(at, list) else last] = text


def turns(doc: dict) -> list:
    """§9.1 and §5: every archived turn, `parts` joined, the source record whole."""
    archive = doc.get("deepArchive", {})
    method = archive.get("compressionMethod", "brotli")
    vault = doc.get("artifactVault", {})
    out = []
    for block in archive.get("blocks", []):
        if "turns" in block:
            stored = block["turns"]
        else:
            data = base64.b64decode(block["compressedData"])
            data = {"brotli": brotli.decompress, "gzip": gzip.decompress}.get(method, bytes)(data)
            stored = json.loads(data)
        for t in stored:
            t = dict(t)
            if "parts" in t:
                t["content"] = "".join(
                    p["text"] if "text" in p else artifact_version(vault, p["artifact"], p["version"])
                    for p in t.pop("parts")
                )
            source = t.get("source")
            if source and "contentAt" in source:
                put_at(source["record"], source["contentAt"], t["content"])
            out.append(t)
    return out


def nodes(doc: dict) -> list:
    """§6: the nodes of both graphs."""
    return [n for g in ("semanticGraph", "sharedGraph") for n in doc.get(g, {}).get("nodes", [])]


# --- checked against smg and the export ----------------------------------------------


def smg(*args: str) -> str:
    # Bytes, decoded as they are: text mode would turn a turn's "\r\n" into "\n".
    return subprocess.run([SMG, *args], check=True, capture_output=True).stdout.decode()


@pytest.mark.parametrize("encoding", ["json", "brotli", "zstd"])
def test_every_turn_of_a_new_file_is_the_export_message_it_came_from(tmp_path, encoding):
    export = ROOT / "fixtures" / "locomo-mini" / "a.json"
    out = tmp_path / "m.smg"
    smg("ingest", str(export), "-o", str(out), "--encoding", encoding, "-q")
    doc = document(out.read_bytes())
    assert doc["version"].startswith("2")
    assert all("turns" in b for b in doc["deepArchive"]["blocks"])
    said = json.loads(export.read_text())
    messages = [m for k in sorted(said, key=lambda k: int(k.split("_")[1]) if k.split("_")[-1].isdigit() else 0)
                if k.startswith("session_") and k.split("_")[-1].isdigit() for m in said[k]]
    got = turns(doc)
    assert len(got) == len(messages)
    for t, m in zip(got, messages):
        assert t["content"] == m["text"]
        assert t["source"]["record"] == m
    info = json.loads(smg("info", str(out), "--json"))
    assert len(nodes(doc)) == info["stats"]["nodes"] > 0


@pytest.mark.parametrize("fixture", ["full.smg", "code-chat.smg", "archive-gzip.smg"])
def test_every_turn_reads_as_smg_shows_it_in_both_formats(fixture):
    path = ROOT / "fixtures" / "valid" / fixture
    doc = document(path.read_bytes())
    got = turns(doc)
    assert got, fixture
    for t in got:
        shown = smg("archive", "show", str(path), str(t["turn"]))
        assert shown == t["content"], (fixture, t["turn"])


def test_a_migrated_file_holds_the_same_turns_in_the_clear(tmp_path):
    v1 = ROOT / "fixtures" / "valid" / "full.smg"
    before = turns(document(v1.read_bytes()))
    assert document(v1.read_bytes())["version"] == "1.0"
    out = tmp_path / "m.smg"
    smg("migrate", str(v1), "-o", str(out))
    doc = document(out.read_bytes())
    assert doc["version"] == "2.0"
    assert all("turns" in b and "compressedData" not in b for b in doc["deepArchive"]["blocks"])
    assert turns(doc) == before
