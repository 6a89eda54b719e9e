// Where the native library is looked for, in order: SMG_LIB, the repository's release
// and debug builds (when the package is used from the repository), then the package's
// own copy (a packed tarball or an --install-links copy carries one).
const path = require('path');

const NAMES = { linux: 'libsmg.so', darwin: 'libsmg.dylib', win32: 'smg.dll' };

function libraryName() {
  return NAMES[process.platform] || 'libsmg.so';
}

function candidates() {
  const name = libraryName();
  const target = path.join(__dirname, '..', '..', 'target');
  return [
    process.env.SMG_LIB,
    path.join(target, 'release', name),
    path.join(target, 'debug', name),
    path.join(__dirname, name),
  ].filter(Boolean);
}

module.exports = { candidates, libraryName };
