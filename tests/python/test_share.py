"""smg.share through the Python package: planted values gone from what the copy
shows, the report a dict without values, a dry run writing nothing, an encrypted
input opened with its passphrase, bad kinds refused with their code."""

import json
import os
import pathlib
import subprocess

import pytest

import smg

KEY = "AKIAZ7QWERTYUIOP2345"
MAIL = "ada.planted@example.org"


def _memory(tmp_path):
    talk = tmp_path / "talk.jsonl"
    lines = [
        {"conversation_id": "c1", "message_id": "m1", "role": "user",
         "content": "The deploy key is %s, mail %s." % (KEY, MAIL)},
        {"conversation_id": "c1", "message_id": "m2", "role": "assistant",
         "content": "Noted: we keep the invoices in Postgres."},
    ]
    talk.write_text("".join(json.dumps(l) + "\n" for l in lines))
    out = tmp_path / "memory.smg"
    smg.ingest([talk], out)
    return out


def _shown(path):
    with smg.open(path) as memory:
        hits = memory.search_all("deploy key mail invoices", k=10)
    return json.dumps(hits)


def test_share_replaces_values_and_reports_kinds_not_values(tmp_path):
    memory = _memory(tmp_path)
    assert KEY in _shown(memory)
    copy = tmp_path / "copy.smg"
    report = smg.share(memory, copy, at="2026-01-01T00:00:00Z")
    assert report["written"] == str(copy)
    assert report["distinct"] == {"aws-key": 1, "email": 1}
    assert all(set(f) == {"kind", "section", "place"} for f in report["findings"])
    assert KEY not in json.dumps(report) and MAIL not in json.dumps(report)
    shown = _shown(copy)
    assert KEY not in shown and MAIL not in shown and "[AWS-KEY-1]" in shown
    assert smg.validate(copy)["valid"]
    assert smg.share(copy)["findings"] == []


def test_a_dry_run_writes_nothing_and_kept_kinds_stay(tmp_path):
    memory = _memory(tmp_path)
    before = memory.read_bytes()
    report = smg.share(memory, keep=["email"])
    assert report["written"] is None and report["counts"].keys() == {"aws-key"}
    assert memory.read_bytes() == before
    with pytest.raises(smg.SmgError) as bad:
        smg.share(memory, tmp_path / "x.smg", keep=["emails"])
    assert bad.value.code == "SMG-E020"
    assert not (tmp_path / "x.smg").exists()


def test_an_encrypted_memory_needs_its_passphrase(tmp_path):
    memory = _memory(tmp_path)
    locked = tmp_path / "locked.smg"
    env = dict(os.environ, SMG_PASSPHRASE="py secret")
    subprocess.run([os.environ["SMG_BIN"], "encrypt", str(memory), "-o", str(locked)], env=env, check=True)
    with pytest.raises(smg.SmgError) as need:
        smg.share(locked, tmp_path / "copy.smg")
    assert need.value.code == "SMG-E140"
    copy = tmp_path / "copy.smg"
    smg.share(locked, copy, passphrase="py secret")
    assert KEY not in _shown(copy)
