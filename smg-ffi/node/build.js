// Builds the C ABI (smg-ffi) with cargo when the package is installed from the
// repository and the library is not built yet; SMG_LIB points at a library built
// elsewhere; a packed copy carries its own (pack.js).
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { candidates } = require('./library');

if (process.env.SMG_LIB || candidates().some((c) => fs.existsSync(c))) {
  process.exit(0);
}
const manifest = path.join(__dirname, '..', 'Cargo.toml');
if (!fs.existsSync(manifest)) {
  console.error(
    'smg: this copy of the package has no native library and no smg-ffi sources to ' +
      'build one. Install the tarball that `npm pack /path/to/smg-ffi/node` writes ' +
      '(it carries the library): npm install ./smg-0.1.0.tgz — or set SMG_LIB to a ' +
      'built libsmg.so'
  );
  process.exit(1);
}
execFileSync('cargo', ['build', '--release', '--manifest-path', manifest], { stdio: 'inherit' });
