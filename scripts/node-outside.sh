#!/usr/bin/env bash
# The Node package installed the ways a user outside this repository installs it, each
# in a fresh `npm init -y` project, none with SMG_LIB when it runs:
# - the tarball `npm pack` writes: it carries the native library (packed from
#   target/debug/libsmg.so through SMG_LIB here) and runs with no build in reach;
# - the folder with --install-links: npm's `prepare` puts the library built here in
#   the copy;
# - a plain folder install of a copy outside the repository (npm links it and installs
#   none of its dependencies): the install stops naming `npm pack`; with SMG_LIB it
#   installs, and require('smg') stops naming `npm install --install-links`.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
unset SMG_LIB
lib="$root/target/debug/libsmg.so"
[ -f "$lib" ] || cargo build --locked -q -p smg-ffi
work="$(mktemp -d)"
trap 'rm -rf "$work" "$root/smg-ffi/node/libsmg.so"' EXIT
tarball="$(cd "$work" && SMG_LIB="$lib" npm pack --silent "$root/smg-ffi/node" 2>/dev/null)"
tar -tzf "$work/$tarball" | grep -qx 'package/libsmg.so' || { echo "the tarball carries no libsmg.so" >&2; exit 1; }
[ ! -e "$root/smg-ffi/node/libsmg.so" ] || { echo "npm pack left its copy of the library in the folder" >&2; exit 1; }
cp "$root/fixtures/valid/full.smg" "$work/full.smg"
check() {
  node -e "
    const smg = require('smg');
    const r = smg.validate(Buffer.from('{\"@context\":\"https://w3id.org/smg/v1\",\"@type\":\"SemanticMemoryGraph\",\"version\":\"1.0\",\"metadata\":{\"created\":\"2025-01-01T00:00:00Z\"}}'));
    if (!r.valid) { console.error(r); process.exit(1); }
    const m = smg.open('$work/full.smg');
    const hits = m.search('webhook', 3);
    if (hits.length !== 3 || !hits[0].content.toLowerCase().includes('webhook')) { console.error(hits); process.exit(1); }
    m.close();
    console.log('ok: require(\"smg\") ' + smg.version() + ' from ' + require.resolve('smg'));
  "
}
# Runs the command given and wants it to fail with a message that contains $1.
stops_with() {
  local want="$1" said
  shift
  if said="$("$@" 2>&1)"; then
    echo "expected a failure naming '$want', got: $said" >&2
    exit 1
  fi
  grep -qF -- "$want" <<<"$said" || { echo "the failure does not name '$want': $said" >&2; exit 1; }
  echo "ok: stops with: $(grep -m1 -o 'smg: .*' <<<"$said" | cut -c1-100)…"
}
project() {
  mkdir -p "$work/$1" && cd "$work/$1" && npm init -y >/dev/null
}
install() {
  npm install --no-audit --no-fund --loglevel=error "$@"
}
(
  project tarball
  install "$work/$tarball"
  check
)
(
  project links
  install --install-links "$root/smg-ffi/node"
  check
)
(
  mkdir -p "$work/elsewhere" && cp -r "$root/smg-ffi/node" "$work/elsewhere/node"
  rm -rf "$work/elsewhere/node/node_modules" "$work/elsewhere/node/libsmg.so"
  project folder
  stops_with "npm pack" install "$work/elsewhere/node"
  SMG_LIB="$lib" install "$work/elsewhere/node"
  SMG_LIB="$lib" stops_with "npm install --install-links" check
)
