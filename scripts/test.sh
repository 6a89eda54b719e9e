#!/usr/bin/env bash
# Installs what the tests need and runs every test: format, lints, docs, and the
# Rust suites (unit, conformance fixtures, property tests, CLI, doc tests), the
# Python interop tests and the C ABI scenario under valgrind.
# Run from anywhere: `bash scripts/test.sh`. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is required (https://rustup.rs)" >&2
  exit 2
fi
timeout 120 rustup component add rustfmt clippy >/dev/null 2>&1 || true
# GNU patch: the vault's diffs are tested against it.
if ! command -v patch >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq patch >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq patch >/dev/null
  fi
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
echo "== cargo test"
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked

echo "== Python interop tests (pytest, cryptography)"
python3 -m pip install -q --disable-pip-version-check pytest cryptography
cargo build --locked -q -p smg-cli
SMG_BIN="$PWD/target/debug/smg" python3 -m pytest -q tests/python

echo "== C ABI scenario (gcc, valgrind)"
bash scripts/c-scenario.sh
