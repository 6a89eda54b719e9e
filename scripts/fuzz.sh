#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through cargo-fuzz, on nightly) of each importer
# and of the file decoders, for as long as one likes; not part of the test suite.
#   bash scripts/fuzz.sh TARGET [SECONDS]   # default 600; TARGET: import_chatgpt,
#                                           # import_claude, import_locomo, import_jsonl, decode
#   bash scripts/fuzz.sh all [SECONDS]      # each target in turn
# Seeds come from fixtures/ and ../shared/data; what a target finds is kept in
# fuzz/artifacts/TARGET/ (reproduce: cargo +nightly fuzz run TARGET FILE). Every find
# becomes a regression test beside the code it broke.
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
    import_locomo) cp ../shared/data/locomo-dev/*.json "$dir"/ ;;
    import_jsonl) cp fixtures/ingest/*.jsonl ../shared/data/imports/mcp-memory/*.jsonl "$dir"/ ;;
    decode) cp fixtures/valid/*.smg fixtures/invalid/*.smg "$dir"/ ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
}

run() {
  seed "$1"
  (cd fuzz && cargo +nightly fuzz run "$1" "corpus/$1" -- \
    -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=4096 -print_final_stats=1)
}

if [ "$target" = all ]; then
  for t in import_chatgpt import_claude import_locomo import_jsonl decode; do run "$t"; done
else
  run "$target"
fi
