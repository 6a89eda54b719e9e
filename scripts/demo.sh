#!/usr/bin/env bash
# Builds smg and runs the main job on the bundled sample data (fixtures/):
# validates the whole conformance suite, describes a full memory file, converts it
# through every encoding and checks that nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p smg-cli
smg=target/release/smg
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== smg validate fixtures/valid"
"$smg" validate fixtures/valid
echo
echo "== smg validate fixtures/invalid (every file must be refused with its code)"
"$smg" validate fixtures/invalid | tail -n 4 || true
echo
echo "== smg info fixtures/valid/full.smg"
"$smg" info fixtures/valid/full.smg
for enc in brotli zstd json; do
  "$smg" convert fixtures/valid/full.smg -o "$out/full.$enc.smg" --encoding "$enc"
done
echo
echo "== sizes by encoding"
ls -l "$out" | awk 'NR>1 {print "  " $9 "  " $5 " bytes"}'
for enc in brotli zstd json; do
  cmp <("$smg" cat fixtures/valid/full.smg) <("$smg" cat "$out/full.$enc.smg")
done
echo "== every encoding holds the same canonical document"
