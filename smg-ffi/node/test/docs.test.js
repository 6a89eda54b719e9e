// Every `js` example of docs/ffi.md runs as shown, with the installed package, from a
// fresh folder that sees the repository's fixtures/.
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..', '..');

function blocks(markdown, lang) {
  const fence = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm');
  return [...markdown.matchAll(fence)].map((m) => m[1]);
}

test('every js example of docs/ffi.md runs', () => {
  const found = blocks(fs.readFileSync(path.join(root, 'docs', 'ffi.md'), 'utf8'), 'js');
  assert.ok(found.length > 0, 'docs/ffi.md shows no JavaScript');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-docs-'));
  fs.symlinkSync(path.join(root, 'fixtures'), path.join(dir, 'fixtures'));
  // The node_modules folder this test's own `require('smg')` finds the package in
  // (resolved, the package is the linked folder, not that).
  const modules = module.paths.find((p) => fs.existsSync(path.join(p, 'smg')));
  for (const code of found) {
    const out = spawnSync(process.execPath, ['-e', code], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: modules },
      encoding: 'utf8',
    });
    assert.strictEqual(out.status, 0, `${code}\n--- stdout\n${out.stdout}\n--- stderr\n${out.stderr}`);
    assert.ok(out.stdout.trim().length > 0, code);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
