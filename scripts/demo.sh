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

echo "== smg ingest: a coding chat into memory, then the same export grown by two turns"
head -n 10 fixtures/ingest/sample-chat.jsonl > "$out/early.jsonl"
"$smg" ingest "$out/early.jsonl" -o "$out/memory.smg"
cp "$out/memory.smg" "$out/checkpoint-1.smg"
"$smg" ingest --append "$out/memory.smg" fixtures/ingest/sample-chat.jsonl
"$smg" validate "$out/memory.smg"
echo
echo "== checkpoints: what the append changed, as a delta that rebuilds the file byte for byte"
"$smg" diff "$out/checkpoint-1.smg" "$out/memory.smg" --stat
"$smg" diff "$out/checkpoint-1.smg" "$out/memory.smg" --delta -o "$out/memory.smgd"
"$smg" apply "$out/checkpoint-1.smg" "$out/memory.smgd" -o "$out/rebuilt.smg"
cmp "$out/rebuilt.smg" "$out/memory.smg" && echo "rebuilt: identical"
"$smg" fork "$out/memory.smg" -o "$out/experiment.smg" --branch experiment
"$smg" log "$out/experiment.smg"
echo
echo "== smg query: the decisions and the memories it found"
"$smg" query "$out/memory.smg" 'FIND decisions ORDER BY timestamp'
"$smg" query "$out/memory.smg" 'FIND memories WHERE memoryType != "event" ORDER BY importance DESC LIMIT 5'
echo
echo "== smg search: the best turns, and the best memory nodes"
"$smg" search "$out/memory.smg" "stripe webhook 401" -k 3
echo
echo "== the same memory packed, with its search index stored: search reads the index and"
echo "   the blocks of the turns it shows, and answers the same"
"$smg" convert "$out/memory.smg" -o "$out/indexed.smg" --layout packed
"$smg" index "$out/indexed.smg"
cmp <("$smg" search "$out/memory.smg" "stripe webhook 401" --json) \
    <("$smg" search "$out/indexed.smg" "stripe webhook 401" --json) && echo "same results"
echo
echo "== smg context: memory for a prompt, within 300 tokens"
"$smg" context "$out/memory.smg" "why did the stripe webhook fail" --budget 300
echo
echo "== smg view: the memory as one page that works offline (graph, timeline, vault, archive, search)"
"$smg" view "$out/memory.smg" -o "$out/memory.html"
echo
echo "== smg curate: the memory a year later (every action audited; restore undoes the cycle)"
cp "$out/memory.smg" "$out/curated.smg"
"$smg" curate "$out/curated.smg" --now 2026-06-01T00:00:00Z | tail -n 4
"$smg" validate "$out/curated.smg"
"$smg" restore "$out/curated.smg" cycle-2026-06-01T00:00:00Z
cmp <("$smg" cat "$out/memory.smg") <("$smg" cat "$out/curated.smg") && echo "restored: the same document"
echo
echo "== smg validate fixtures/valid"
"$smg" validate fixtures/valid
echo
echo "== smg validate fixtures/invalid (each refused with its code; brotli-bomb.smg only under the 1 MiB --max-bytes its catalogue entry gives)"
"$smg" validate fixtures/invalid | tail -n 4 || true
echo
echo "== smg info fixtures/valid/full.smg"
"$smg" info fixtures/valid/full.smg
for enc in brotli zstd json; do
  "$smg" convert fixtures/valid/full.smg -o "$out/full.$enc.smg" --encoding "$enc"
done
"$smg" convert fixtures/valid/full.smg -o "$out/full.packed.smg" --layout packed
echo
echo "== sizes by encoding"
ls -l "$out" | awk 'NR>1 {print "  " $9 "  " $5 " bytes"}'
for enc in brotli zstd json packed; do
  cmp <("$smg" cat fixtures/valid/full.smg) <("$smg" cat "$out/full.$enc.smg")
done
echo "== every encoding and layout holds the same canonical document"
echo
echo "== the vault of a coding chat: each file once, revisions as diffs"
"$smg" vault list fixtures/valid/code-chat.smg
"$smg" vault log fixtures/valid/code-chat.smg stripe-webhook-handler.js
echo
echo "== one archived turn, read from the packed layout (only its block is read)"
"$smg" convert fixtures/valid/code-chat.smg -o "$out/chat.smg" --layout packed
"$smg" archive show "$out/chat.smg" 3
