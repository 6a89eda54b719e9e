"""Linked memories through the Python package: smg.open follows a file's links as
`smg search|context|expand` do (the same answers, `file` on each hit when more than
one file answered), links=False keeps to one file, an encrypted linked file takes
its passphrase by link name, and a missing one is a warning, not a failure."""

import json
import os
import pathlib
import subprocess

import pytest

import smg

ROOT = pathlib.Path(__file__).resolve().parents[2]
MINE = ROOT / "fixtures" / "ingest" / "sample-chat.jsonl"
TEAM = [
    {"conversation_id": "t1", "message_id": "1", "role": "user",
     "content": "The staging cluster runs Kubernetes 1.29 in the Frankfurt region.",
     "timestamp": "2025-03-01T09:00:00Z"},
    {"conversation_id": "t1", "message_id": "2", "role": "assistant",
     "content": "Noted: staging is in Frankfurt, production stays in Dublin.",
     "timestamp": "2025-03-01T09:01:00Z"},
]


def _smg(*args, cwd, env=None):
    done = subprocess.run([os.environ["SMG_BIN"], *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _network(d):
    """mine.smg linking team.smg under the name `team`."""
    (d / "team.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TEAM))
    _smg("ingest", str(MINE), "-o", "mine.smg", "-q", cwd=d)
    _smg("ingest", "team.jsonl", "-o", "team.smg", "-q", cwd=d)
    _smg("link", "add", "mine.smg", "team.smg", "--name", "team", cwd=d)
    return d / "mine.smg"


def test_open_follows_links_as_the_cli_does(tmp_path):
    mine = _network(tmp_path)
    query = "Frankfurt staging Postgres"
    cli = json.loads(_smg("search", str(mine), query, "--json", cwd=tmp_path))
    with smg.open(mine) as memory:
        info = memory.info()
        assert [f["name"] for f in info["links"]["files"]] == ["team"]
        assert info["links"]["warnings"] == []
        assert memory.search_all(query, k=10) == cli
        hits = memory.search(query, k=10)
        assert [dict(h)["file"] for h in hits] == [h["file"] for h in cli["hits"]]
        assert {h["file"]["name"] for h in hits} == {None, "team"}
        assert {h["file"]["path"] for h in hits} == {str(mine), str(tmp_path / "team.smg")}
        first = next(h for h in hits if h["file"]["name"] == "team")
        assert "Frankfurt" in first["content"]
        assert "Frankfurt" in memory.expand(first["segment"], link="team")
        with pytest.raises(smg.SmgError) as unknown:
            memory.expand(first["segment"], link="nobody")
        assert unknown.value.code == "SMG-E020"
        pack = memory.context(query, budget=300)
        cli_pack = json.loads(_smg("context", str(mine), query, "--budget", "300", "--json",
                                   cwd=tmp_path))
        assert pack["text"] == cli_pack["text"]
        assert "· team\n" in pack["text"]
        assert pack["tokens"] <= 300

    with smg.open(mine, links=False) as alone:
        found = alone.search("Frankfurt staging", k=10)
        assert all("Frankfurt" not in h["content"] for h in found)
        assert all("file" not in h for h in found)
        assert alone.info()["links"] == {"files": [], "warnings": []}


def test_an_encrypted_link_takes_its_passphrase_and_a_missing_one_warns(tmp_path):
    mine = _network(tmp_path)
    env = dict(os.environ, SMG_PASSPHRASE="team secret")
    _smg("encrypt", "team.smg", "-o", "team.smg", cwd=tmp_path, env=env)
    with smg.open(mine) as memory:
        codes = [w["code"] for w in memory.info()["links"]["warnings"]]
        assert codes == ["SMG-W031", "SMG-W032"]
        found = memory.search("Frankfurt staging", k=5)
        assert all("Frankfurt" not in h["content"] for h in found)
        assert any("SMG-E140" in w for w in found.warnings)
    with smg.open(mine, link_passphrases={"team": "team secret"}) as memory:
        found = memory.search("Frankfurt staging", k=5)
        assert found[0]["file"]["name"] == "team"
        assert "Frankfurt" in found[0]["content"]

    (tmp_path / "team.smg").unlink()
    with smg.open(mine) as memory:
        assert [w["code"] for w in memory.info()["links"]["warnings"]] == ["SMG-W030"]
        assert memory.search("Postgres ledger", k=3)

    with pytest.raises(TypeError):
        smg.open(mine, link_passphrases={"team": 7})
