// Puts the native library inside the package folder, as the Python wheel carries its
// own, so that a copy of the package runs in another project with no SMG_LIB and no
// Rust toolchain:
// - `npm pack` (prepack): SMG_LIB, otherwise the repository's release build, built
//   now if missing; `postpack` (`--clean`) takes the copy out of the folder again;
// - `prepare` (`--if-built`, which npm runs before it copies the folder for
//   `npm install --install-links`): SMG_LIB or a build already there, if any; nothing
//   is built. The repository's own builds are looked for before this copy
//   (library.js), so a copy left in the folder never shadows a newer build.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { libraryName } = require('./library');

const inside = path.join(__dirname, libraryName());
const target = path.join(__dirname, '..', '..', 'target');
const builds = ['release', 'debug'].map((p) => path.join(target, p, libraryName()));

function given() {
  const lib = process.env.SMG_LIB;
  if (lib && !fs.existsSync(lib)) {
    throw new Error(`smg: SMG_LIB names no file: ${lib}`);
  }
  return lib;
}

function release() {
  if (!fs.existsSync(builds[0])) {
    const manifest = path.join(__dirname, '..', 'Cargo.toml');
    if (!fs.existsSync(manifest)) {
      throw new Error('smg: no native library to pack and no smg-ffi sources to build it; set SMG_LIB');
    }
    execFileSync('cargo', ['build', '--release', '--locked', '--manifest-path', manifest], {
      stdio: 'inherit',
    });
  }
  return builds[0];
}

if (process.argv.includes('--clean')) {
  fs.rmSync(inside, { force: true });
} else {
  const from = process.argv.includes('--if-built')
    ? given() || builds.find((b) => fs.existsSync(b))
    : given() || release();
  if (from) {
    fs.copyFileSync(from, inside);
  }
}
