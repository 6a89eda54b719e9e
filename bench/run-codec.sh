#!/usr/bin/env bash
# Codec benchmark: read/write throughput of a generated document (default 100 MB) in
# every encoding, next to serde_json::Value and the brotli/zstd tools on the same bytes.
# Usage: bash bench/run-codec.sh [SIZE_MB]   (prints Markdown; record it in bench/RESULTS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
need=()
command -v brotli >/dev/null || need+=(brotli)
command -v zstd >/dev/null || need+=(zstd)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
cargo build --release --locked -p smg-bench
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "Command: bash bench/run-codec.sh $size    ($(date -u +%Y-%m-%d), $(rustc --version))"
echo
target/release/smg-bench codec "$size" bench/out
