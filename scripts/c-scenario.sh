#!/usr/bin/env bash
# The C ABI scenario (smg-ffi/examples/c/scenario.c), built with gcc against the
# committed header and run under valgrind: no errors, no definite leaks.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v valgrind >/dev/null || need+=(valgrind)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Same selection as `cargo test --workspace --all-targets`, so after the tests this
# links nothing again (a `-p` selection resolves features differently).
cargo build -q --locked --workspace --all-targets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -std=c11 -Wall -Wextra -Werror -g -I smg-ffi/include smg-ffi/examples/c/scenario.c \
  -L target/debug -lsmg -o "$work/scenario"
sample=../shared/data/locomo-dev/26.json
target/debug/smg ingest "$sample" -o "$work/plain.smg" -q >/dev/null
SMG_PASSPHRASE="the right one" target/debug/smg encrypt "$work/plain.smg" -o "$work/locked.smg"
LD_LIBRARY_PATH=target/debug valgrind -q --error-exitcode=1 --leak-check=full \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite "$work/scenario" "$sample" "$work" "$work/locked.smg" \
  ../shared/data/locomo-dev/30.json
