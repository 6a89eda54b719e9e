"""Every ``python`` example of docs/ffi.md runs as shown, with the installed package,
from a fresh folder that sees the repository's ``fixtures/``."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def blocks(markdown, lang):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", markdown, re.S | re.M)


def test_every_python_example_runs(tmp_path):
    found = blocks((ROOT / "docs" / "ffi.md").read_text(), "python")
    assert found, "docs/ffi.md shows no Python"
    os.symlink(ROOT / "fixtures", tmp_path / "fixtures")
    for code in found:
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                             capture_output=True, text=True)
        assert out.returncode == 0, f"{code}\n--- stdout\n{out.stdout}\n--- stderr\n{out.stderr}"
        assert out.stdout.strip(), code
