// Builds the C ABI (smg-ffi) with cargo when the package is installed from the
// repository and the library is not built yet; SMG_LIB points at a library built
// elsewhere.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { candidates } = require('./library');

if (process.env.SMG_LIB || candidates().some((c) => fs.existsSync(c))) {
  process.exit(0);
}
const manifest = path.join(__dirname, '..', 'Cargo.toml');
if (!fs.existsSync(manifest)) {
  console.error('smg: no native library and no smg-ffi sources to build it; set SMG_LIB');
  process.exit(1);
}
execFileSync('cargo', ['build', '--release', '--manifest-path', manifest], { stdio: 'inherit' });
