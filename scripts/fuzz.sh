#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through cargo-fuzz, on nightly) of each importer
# and of the file decoders, for as long as one likes; not part of the test suite.
#   bash scripts/fuzz.sh TARGET [SECONDS]   # default 600; TARGET: import_chatgpt,
#       import_claude, import_letta, import_mcp, import_locomo, import_jsonl, decode, decrypt, delta, vault, find,
#       index, validate (what each checks: fuzz/checks/src/lib.rs)
#   bash scripts/fuzz.sh all [SECONDS]      # each target in turn
#   bash scripts/fuzz.sh keep TARGET        # minimize the corpus into fuzz/replay/TARGET
# Seeds come from fixtures/ and ../shared/data; what a target finds is kept in
# fuzz/artifacts/TARGET/ (reproduce: cargo +nightly fuzz run TARGET FILE). Every find
# goes into fuzz/replay/TARGET/, which the test suite replays on stable, and becomes a
# regression test beside the code it broke.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: bash scripts/fuzz.sh TARGET|all [SECONDS]}"
seconds="${2:-600}"
rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

seed() {
  local t="$1" dir="fuzz/corpus/$1"
  mkdir -p "$dir"
  case "$t" in
    import_chatgpt) cp ../shared/data/imports/chatgpt/*.json "$dir"/ ;;
    import_claude) cp ../shared/data/imports/claude/*.json "$dir"/ ;;
    import_mcp) cp ../shared/data/imports/mcp-memory/*.jsonl fuzz/replay/import_mcp/* "$dir"/ ;;
    import_letta) cp ../shared/data/imports/letta/*.af fuzz/replay/import_letta/* "$dir"/ ;;
    import_locomo) cp ../shared/data/locomo-dev/*.json "$dir"/ ;;
    import_jsonl) cp fixtures/ingest/*.jsonl ../shared/data/imports/mcp-memory/*.jsonl "$dir"/ ;;
    decode|validate) cp fixtures/valid/*.smg fixtures/invalid/*.smg "$dir"/ ;;
    decrypt)
      # Files that pass the header would cost 600,000 KDF rounds each: the plain
      # fixtures are encrypted by the target with one round instead.
      cp fixtures/valid/*.smg fixtures/bad-input/encrypted-{weak-kdf,costly-kdf,unknown-kdf,truncated}.smg "$dir"/ ;;
    delta) cp fixtures/bad-input/*.smgd fixtures/valid/minimal.smg fixtures/valid/full.smg "$dir"/ ;;
    vault)
      python3 - "$dir" <<'PY'
import json, sys
for name in ("full", "code-chat"):
    doc = json.load(open(f"fixtures/valid/{name}.smg"))
    for i, art in enumerate(doc["artifactVault"]["artifacts"].values()):
        open(f"{sys.argv[1]}/{name}-{i}.json", "w").write(json.dumps(art))
lines = open("fixtures/ingest/sample-chat.jsonl", "rb").read().split(b"\n")
open(f"{sys.argv[1]}/growing.txt", "wb").write(b"\xff".join(b"\n".join(lines[:k]) for k in range(len(lines))))
PY
      ;;
    find)
      printf '%s' 'FIND decisions WHERE topic = "database" AND timestamp > "2025-12-01" ORDER BY importance DESC LIMIT 10' > "$dir/q1"
      printf '%s' 'FIND concepts WHERE importance >= 0.5 OR label CONTAINS "auth" LIMIT 3' > "$dir/q2"
      printf '%s' 'FIND * ORDER BY timestamp ASC' > "$dir/q3" ;;
    index)
      cp fixtures/valid/*packed*.smg "$dir"/
      for f in fixtures/valid/full-packed.smg fixtures/valid/code-chat-packed.smg; do
        cp "$f" "$dir/indexed-$(basename "$f")" && cargo run -q --release -p smg-cli -- index "$dir/indexed-$(basename "$f")"
      done ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
}

run() {
  seed "$1"
  (cd fuzz && cargo +nightly fuzz run "$1" "corpus/$1" -- \
    -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=4096 -print_final_stats=1)
}

keep() {
  local dir="fuzz/replay/$1"
  mkdir -p "$dir"
  (cd fuzz && cargo +nightly fuzz cmin "$1" "corpus/$1" -- -max_len=16384)
  # Only the 200 smallest inputs are committed, so that the replay stays seconds.
  find "fuzz/corpus/$1" -type f -size -16k -printf '%s %p\n' | sort -n | head -n 200 |
    cut -d' ' -f2- | xargs -r cp -t "$dir"/
  [ -d "fuzz/artifacts/$1" ] && find "fuzz/artifacts/$1" -type f -exec cp {} "$dir"/ \;
  echo "$(ls "$dir" | wc -l) inputs, $(du -sh "$dir" | cut -f1) in $dir"
}

if [ "$target" = keep ]; then
  keep "${2:?usage: bash scripts/fuzz.sh keep TARGET}"
elif [ "$target" = all ]; then
  for t in import_chatgpt import_claude import_letta import_mcp import_locomo import_jsonl decode decrypt delta vault find index validate; do run "$t"; done
else
  run "$target"
fi
