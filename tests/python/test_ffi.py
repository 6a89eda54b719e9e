"""The ABI scenario through the Python package (pip install ./smg-ffi/python):
ingest a LoCoMo file, open, search, context, expand, validate a broken file, and a
wrong passphrase."""

import os
import pathlib
import subprocess

import pytest

import smg

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev" / "26.json"


def test_version_is_cargos():
    cargo = (ROOT / "Cargo.toml").read_text()
    assert 'version = "%s"' % smg.version() in cargo


def test_the_scenario(tmp_path):
    out = tmp_path / "memory.smg"
    summary = smg.ingest([LOCOMO], out)
    assert summary["turnsAdded"] == 419
    with smg.open(out) as memory:
        assert memory.info()["turns"] == 419
        hits = memory.search("When did Caroline go to the LGBTQ support group?", k=5)
        assert len(hits) == 5
        assert any("support group" in h["content"] for h in hits)
        assert hits[0]["provenance"]["messageId"].startswith("D")
        found = memory.search_all("Caroline LGBTQ support group", k=3)
        assert found["hits"] and found["warnings"] == []
        assert 0 < len(found["nodes"]) <= 3
        assert all(n["type"] != "turn" and n["provenance"] for n in found["nodes"])
        pack = memory.context("Caroline support group", budget=300)
        assert 0 < pack["tokens"] <= 300
        assert pack["items"]
        turns = memory.expand(hits[0]["segment"])
        assert hits[0]["content"] in turns
        with pytest.raises(smg.SmgError) as unknown:
            memory.expand("seg-999999")
        assert unknown.value.code == "SMG-E201"
        assert "seg-999999" in str(unknown.value)
        assert memory.validate()["valid"]
    with pytest.raises(ValueError):
        memory.search("anything")

    report = smg.validate(b"this is not a memory file")
    assert not report["valid"]
    assert report["findings"][0]["code"] == "SMG-E003"

    locked = tmp_path / "locked.smg"
    env = dict(os.environ, SMG_PASSPHRASE="the right one")
    subprocess.run([os.environ["SMG_BIN"], "encrypt", str(out), "-o", str(locked)], env=env, check=True)
    with pytest.raises(smg.SmgError) as wrong:
        smg.open(locked, passphrase="not it")
    assert wrong.value.code == "SMG-E141"
    with smg.open(locked, passphrase="the right one") as memory:
        assert memory.info()["turns"] == 419


def _as_json_shows_it(hit):
    fields = dict(hit)
    fields["score"] = round(fields["score"], 6)
    return fields


def test_search_reads_what_search_all_says(tmp_path):
    out = tmp_path / "memory.smg"
    smg.ingest([LOCOMO], out)
    questions = ["When did Caroline go to the LGBTQ support group?", "What did Melanie paint?",
                 "adoption agencies", "Caroline", "zzzz nothing matches this"]
    with smg.open(out) as memory:
        for question in questions:
            hits, whole = memory.search(question, k=7), memory.search_all(question, k=7)
            assert [_as_json_shows_it(h) for h in hits] == whole["hits"]
            assert [_as_json_shows_it(n) for n in hits.nodes] == whole["nodes"]
            assert hits.warnings == whole["warnings"]
        # Below 65,536 embeddings nothing is narrowed: exact gives the same.
        assert memory.search(questions[0], k=7, exact=True) == memory.search(questions[0], k=7)
        hits = memory.search(questions[0], k=3)
    # The results outlive the memory they came from, and read as dicts do.
    assert hits[0]["type"] == "turn" and set(hits[0]) == set(dict(hits[0]))
    assert hits.nodes[0].get("turn") is None and "id" in hits.nodes[0]
    with pytest.raises(KeyError):
        hits[0]["id"]


def test_a_span_of_time_is_what_the_cli_keeps_to(tmp_path):
    import datetime
    import json
    out = tmp_path / "memory.smg"
    smg.ingest([LOCOMO], out)
    span = ["--since", "2023-07-01", "--until", "2023-08-31"]
    cli = json.loads(subprocess.run([os.environ["SMG_BIN"], "search", str(out), "adoption agencies", "-k", "5",
                                     "--json", *span], capture_output=True, check=True).stdout)
    context = subprocess.run([os.environ["SMG_BIN"], "context", str(out), "adoption agencies", "--budget", "400",
                              *span], capture_output=True, check=True, text=True).stdout
    with smg.open(out) as memory:
        for since, until in [("2023-07-01", "2023-08-31"),
                             (datetime.date(2023, 7, 1), datetime.datetime(2023, 9, 1))]:
            hits = memory.search("adoption agencies", k=5, since=since, until=until)
            assert [_as_json_shows_it(h) for h in hits] == cli["hits"]
            assert [_as_json_shows_it(n) for n in hits.nodes] == cli["nodes"]
            pack = memory.context("adoption agencies", budget=400, since=since, until=until)
            assert pack["text"] == context
        assert all("2023-07-01" <= h["timestamp"] < "2023-09" for h in hits) and hits
        assert memory.search("adoption agencies", k=5, since="2024-01-01") == []
        with pytest.raises(smg.SmgError) as bad:
            memory.search("adoption", since="yesterday")
        assert bad.value.code == "SMG-E020"
        with pytest.raises(TypeError):
            memory.context("adoption", since=20230701)


def test_an_indexed_file_answers_the_same(tmp_path):
    out = tmp_path / "memory.smg"
    smg.ingest([LOCOMO], out)
    question = "When did Caroline go to the LGBTQ support group?"
    with smg.open(out) as memory:
        before = memory.search_all(question, k=5)
    size = out.stat().st_size
    summary = smg.index(out)
    assert summary["bytesBefore"] == size
    assert summary["bytesAfter"] == out.stat().st_size > size
    with smg.open(out) as memory:
        assert memory.search_all(question, k=5) == before
        assert memory.info()["turns"] == 419
    # Encrypted files are refused and left as they are.
    locked = tmp_path / "locked.smg"
    env = dict(os.environ, SMG_PASSPHRASE="secret")
    subprocess.run([os.environ["SMG_BIN"], "encrypt", str(out), "-o", str(locked)], env=env, check=True)
    sealed = locked.read_bytes()
    with pytest.raises(smg.SmgError) as refused:
        smg.index(locked)
    assert refused.value.code.startswith("SMG-E")
    assert locked.read_bytes() == sealed


def test_bad_arguments_raise_not_crash(tmp_path):
    with pytest.raises(smg.SmgError) as missing:
        smg.open(tmp_path / "nope.smg")
    assert missing.value.code == "SMG-E001"
    summary = smg.ingest([LOCOMO], tmp_path / "m.smg")
    assert summary["turns"] == 419
    with smg.open(tmp_path / "m.smg") as memory:
        with pytest.raises(TypeError):
            memory.search(42)
        assert memory.search("", k=3) == []
        assert memory.context("Caroline", budget=0)["items"] == []


def test_a_delta_rebuilds_a_file_and_refuses_another_base(tmp_path):
    a, b = tmp_path / "a.smg", tmp_path / "b.smg"
    smg.ingest([LOCOMO], a)
    smg.ingest([LOCOMO, LOCOMO.with_name("30.json")], b)
    header = smg.make_delta(a, b, tmp_path / "b.smgd")
    assert header["patch"] == "document"
    assert header["deltaBytes"] < b.stat().st_size
    smg.apply_delta(a, tmp_path / "b.smgd", tmp_path / "b2.smg")
    assert (tmp_path / "b2.smg").read_bytes() == b.read_bytes()
    with pytest.raises(smg.SmgError) as err:
        smg.apply_delta(b, tmp_path / "b.smgd", tmp_path / "x.smg")
    assert err.value.code == "SMG-E160"
    assert not (tmp_path / "x.smg").exists()


def test_curation_through_the_package_is_undone_exactly(tmp_path):
    out = tmp_path / "memory.smg"
    smg.ingest([LOCOMO], out)
    smg.index(out)
    before = out.read_bytes()
    with smg.open(out) as memory:
        node = memory.search_all("Caroline support group", k=1)["nodes"][0]["id"]
    assert smg.record_access(out, [node, "no-such-node"], at="2026-05-31T12:00:00Z", by="app")["found"] == 1
    touched = out.read_bytes()
    dry = smg.curate(out, now="2026-06-01T00:00:00Z", dry_run=True)
    assert out.read_bytes() == touched
    report = smg.curate(out, now="2026-06-01T00:00:00Z")
    assert report["actions"] == dry["actions"] and report["actions"]
    assert all(a["reason"] for a in report["actions"])
    assert any(a["node"] == node and a["action"] == "promote" for a in report["actions"])
    assert smg.validate(out)["valid"]
    assert smg.curate(out, now="2026-06-01T00:00:00Z")["actions"] == []
    with smg.open(out) as memory:
        assert memory.info()["turns"] == 419
    undone = smg.restore(out, report["cycle"])
    assert len(undone["restored"]) == len(report["actions"])
    assert out.read_bytes() == touched  # packed, its index made again: the same bytes
    with pytest.raises(smg.SmgError) as unknown:
        smg.restore(out, report["cycle"])
    assert unknown.value.code == "SMG-E241"
    with pytest.raises(smg.SmgError) as bad:
        smg.curate(out, now="tomorrow")
    assert bad.value.code == "SMG-E020"
    assert out.read_bytes() != before  # the recorded access stays


def test_a_sealed_tier_opens_in_memory_with_its_key():
    sealed = ROOT / "fixtures" / "valid" / "sealed-conversation.smg"
    before = sealed.read_bytes()
    with smg.open(sealed) as memory:
        assert memory.search("Northwind acquisition") == []
        with pytest.raises(smg.SmgError) as wrong:
            memory.unseal("not the key")
        assert wrong.value.code == "SMG-E141"
        with memory.unseal("restricted") as board:
            said = [hit["content"] for hit in board.search("Northwind acquisition", k=2)]
            assert any("Northwind" in s for s in said), said
            assert "Northwind" in board.context("Northwind", budget=500)["text"]
        assert memory.search("Northwind acquisition") == []
    assert sealed.read_bytes() == before
