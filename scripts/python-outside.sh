#!/usr/bin/env bash
# The Python package as a user outside this repository installs it: `pip wheel` builds
# a wheel (the C ABI inside), and a fresh virtual environment in another folder installs
# that wheel alone; `import smg` must then work with no path into the repository.
# With SMG_PREBUILT_LIB set (scripts/test.sh sets it), the wheel ships that library
# instead of building one (smg-ffi/python/setup.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/wheels" ./smg-ffi/python
if ! python3 -m venv "$work/env" >/dev/null 2>&1; then
  # Debian splits venv (ensurepip) into its own package.
  rm -rf "$work/env"
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$work/env"
fi
"$work/env/bin/python" -m pip install -q --disable-pip-version-check "$work"/wheels/smg-*.whl
cd "$work"
"$work/env/bin/python" - "$root/fixtures/valid/full.smg" <<'PY'
import sys
import smg
report = smg.validate(sys.argv[1])
assert report["valid"], report
assert smg.__file__.startswith(sys.prefix), smg.__file__
with smg.open(sys.argv[1]) as memory:
    hits = memory.search("database", k=3)
    assert isinstance(hits, smg.Hits) and all(h["type"] == "turn" for h in hits), hits
print("ok: import smg", smg.version(), "from", smg.__file__)
PY
