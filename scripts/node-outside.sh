#!/usr/bin/env bash
# The Node package installed the ways a user outside this repository installs it:
# `npm pack` then the tarball, and the folder with --install-links. Each must give a
# working require('smg') in a fresh `npm init -y` project. Uses target/debug/libsmg.so.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
lib="$root/target/debug/libsmg.so"
[ -f "$lib" ] || cargo build --locked -q -p smg-ffi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(cd "$work" && npm pack --silent "$root/smg-ffi/node")"
check() {
  SMG_LIB="$lib" node -e "
    const smg = require('smg');
    const r = smg.validate(Buffer.from('{\"@context\":\"https://w3id.org/smg/v1\",\"@type\":\"SemanticMemoryGraph\",\"version\":\"1.0\",\"metadata\":{\"created\":\"2025-01-01T00:00:00Z\"}}'));
    if (!r.valid) { console.error(r); process.exit(1); }
    const m = smg.open('$root/fixtures/valid/full.smg');
    if (!m.search('database', 3).every((h) => h.type === 'turn')) process.exit(1);
    m.close();
    console.log('ok: require(\"smg\") ' + smg.version() + ' from ' + require.resolve('smg'));
  "
}
for how in tarball links; do
  project="$work/project-$how"
  mkdir -p "$project"
  (
    cd "$project"
    npm init -y >/dev/null
    if [ "$how" = tarball ]; then
      SMG_LIB="$lib" npm install --no-audit --no-fund --loglevel=error "$work/$tarball"
    else
      SMG_LIB="$lib" npm install --no-audit --no-fund --loglevel=error --install-links "$root/smg-ffi/node"
    fi
    check
  )
done
