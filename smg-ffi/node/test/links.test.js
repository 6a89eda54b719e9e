// Linked memories through the Node package: smg.open follows a file's links as
// `smg search|context|expand` do (the same answers, `file` on each hit when more than
// one file answered), links: false keeps to one file, an encrypted linked file takes
// its passphrase by link name, and a missing one is a warning, not a failure.
const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const smg = require('smg');

const root = path.resolve(__dirname, '..', '..', '..');
const mineChat = path.join(root, 'fixtures', 'ingest', 'sample-chat.jsonl');
const team = [
  { conversation_id: 't1', message_id: '1', role: 'user', content: 'The staging cluster runs Kubernetes 1.29 in the Frankfurt region.', timestamp: '2025-03-01T09:00:00Z' },
  { conversation_id: 't1', message_id: '2', role: 'assistant', content: 'Noted: staging is in Frankfurt, production stays in Dublin.', timestamp: '2025-03-01T09:01:00Z' },
];

function cli(args, cwd, env = process.env) {
  return execFileSync(process.env.SMG_BIN, args, { cwd, env, encoding: 'utf8' });
}

// mine.smg linking team.smg under the name `team`, in a new folder.
function network() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-links-'));
  fs.writeFileSync(path.join(dir, 'team.jsonl'), team.map((t) => `${JSON.stringify(t)}\n`).join(''));
  cli(['ingest', mineChat, '-o', 'mine.smg', '-q'], dir);
  cli(['ingest', 'team.jsonl', '-o', 'team.smg', '-q'], dir);
  cli(['link', 'add', 'mine.smg', 'team.smg', '--name', 'team'], dir);
  return dir;
}

test('open follows links as the command line does', () => {
  const dir = network();
  const mine = path.join(dir, 'mine.smg');
  const query = 'Frankfurt staging Postgres';
  const memory = smg.open(mine);
  assert.deepStrictEqual(memory.info().links.files.map((f) => f.name), ['team']);
  const expected = JSON.parse(cli(['search', mine, query, '--json'], dir));
  assert.deepStrictEqual(memory.searchAll(query, 10), expected);
  const hits = memory.search(query, 10);
  assert.deepStrictEqual(hits.map((h) => h.file), expected.hits.map((h) => h.file));
  assert.deepStrictEqual(new Set(hits.map((h) => h.file.name)), new Set([null, 'team']));
  const first = hits.find((h) => h.file.name === 'team');
  assert.ok(first.content.includes('Frankfurt'));
  assert.deepStrictEqual(first.toJSON().file, { name: 'team', path: path.join(dir, 'team.smg') });
  assert.ok(memory.expand(first.segment, 'team').includes('Frankfurt'));
  assert.throws(() => memory.expand(first.segment, 'nobody'), (e) => e.code === 'SMG-E020');
  const pack = memory.context(query, 300);
  const cliPack = JSON.parse(cli(['context', mine, query, '--budget', '300', '--json'], dir));
  assert.strictEqual(pack.text, cliPack.text);
  assert.ok(pack.text.includes('· team\n'));
  memory.close();

  const alone = smg.open(mine, null, { links: false });
  const found = alone.search('Frankfurt staging', 10);
  assert.ok(found.every((h) => !h.content.includes('Frankfurt') && h.file === undefined));
  assert.deepStrictEqual(alone.info().links, { files: [], warnings: [] });
  alone.close();
});

test('an encrypted link takes its passphrase; a missing one warns', () => {
  const dir = network();
  const mine = path.join(dir, 'mine.smg');
  cli(['encrypt', 'team.smg', '-o', 'team.smg'], dir, { ...process.env, SMG_PASSPHRASE: 'team secret' });
  const locked = smg.open(mine);
  assert.deepStrictEqual(locked.info().links.warnings.map((w) => w.code), ['SMG-W031', 'SMG-W032']);
  const without = locked.search('Frankfurt staging', 5);
  assert.ok(without.every((h) => !h.content.includes('Frankfurt')));
  assert.ok(without.warnings.some((w) => w.includes('SMG-E140')));
  locked.close();
  const opened = smg.open(mine, null, { linkPassphrases: { team: 'team secret' } });
  const hits = opened.search('Frankfurt staging', 5);
  assert.strictEqual(hits[0].file.name, 'team');
  opened.close();

  fs.unlinkSync(path.join(dir, 'team.smg'));
  const missing = smg.open(mine);
  assert.deepStrictEqual(missing.info().links.warnings.map((w) => w.code), ['SMG-W030']);
  assert.ok(missing.search('Postgres ledger', 3).length > 0);
  missing.close();
});
