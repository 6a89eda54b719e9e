// Where the native library is looked for, in order.
const path = require('path');

const NAMES = { linux: 'libsmg.so', darwin: 'libsmg.dylib', win32: 'smg.dll' };

function candidates() {
  const name = NAMES[process.platform] || 'libsmg.so';
  const target = path.join(__dirname, '..', '..', 'target');
  return [
    process.env.SMG_LIB,
    path.join(__dirname, name),
    path.join(target, 'release', name),
    path.join(target, 'debug', name),
  ].filter(Boolean);
}

module.exports = { candidates };
