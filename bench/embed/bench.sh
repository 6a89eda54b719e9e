#!/usr/bin/env bash
# Local embeddings (issue 28): how fast `smg embed` embeds a memory on this machine,
# and what meaning adds to retrieval on LoCoMo's dev split (with and without --model).
# Usage: bench/embed/bench.sh SMG LOCOMO_DIR MODEL_DIR
set -euo pipefail
smg=$1 dir=$2 model=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$smg" ingest -q -o "$work/m.smg" "$dir"/*.json >/dev/null
start=$(date +%s.%N)
report=$("$smg" embed -q --json --model "$model" "$work/m.smg")
end=$(date +%s.%N)
python3 - "$report" "$start" "$end" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); wall = float(sys.argv[3]) - float(sys.argv[2])
n = r["turns"] + r["nodes"]
print(f"| texts embedded | turns | nodes | smg embed wall (model load and file write included) | texts/s |")
print(f"|---|---|---|---|---|")
print(f"| {n} | {r['turns']} | {r['nodes']} | {wall:.1f} s | {n / wall:.0f} |")
print()
print(f"Model: {r['model']}, {r['dimensions']} dimensions, stored as int8.")
PY
start=$(date +%s.%N)
for q in "when did she go to the support group" "what does he paint" "which pets do they have"; do
  "$smg" context "$work/m.smg" "$q" --budget 1000 --model "$model" >/dev/null
done
end=$(date +%s.%N)
python3 -c "import sys; print(f'smg context --model, one process per question (model load included): {(float(sys.argv[2]) - float(sys.argv[1])) / 3 * 1000:.0f} ms each')" "$start" "$end"
echo
echo "### smg bench locomo, words only"
echo '```'
"$smg" bench locomo "$dir"
echo '```'
echo "### smg bench locomo --model (memories and questions embedded)"
echo '```'
"$smg" bench locomo "$dir" --model "$model"
echo '```'
