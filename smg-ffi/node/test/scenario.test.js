// The ABI scenario through the Node package: ingest a LoCoMo file, open, search,
// context, expand, validate a broken file, and a wrong passphrase.
const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const smg = require('smg');

const root = path.resolve(__dirname, '..', '..', '..');
const locomo = path.join(root, '..', 'shared', 'data', 'locomo-dev', '26.json');

test('version is cargo\'s', () => {
  const cargo = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  assert.ok(cargo.includes(`version = "${smg.version()}"`));
});

test('the scenario', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-'));
  const out = path.join(dir, 'memory.smg');
  const summary = smg.ingest([locomo], out);
  assert.strictEqual(summary.turnsAdded, 419);

  const memory = smg.open(out);
  assert.strictEqual(memory.info().turns, 419);
  const hits = memory.search('When did Caroline go to the LGBTQ support group?', 5);
  assert.strictEqual(hits.length, 5);
  assert.ok(hits.some((h) => h.content.includes('support group')));
  const found = memory.searchAll('Caroline LGBTQ support group', 3);
  assert.ok(found.hits.length > 0 && found.warnings.length === 0);
  assert.ok(found.nodes.length > 0 && found.nodes.length <= 3);
  assert.ok(found.nodes.every((n) => n.type !== 'turn' && n.provenance.length > 0));
  const pack = memory.context('Caroline support group', 300);
  assert.ok(pack.tokens > 0 && pack.tokens <= 300);
  assert.ok(memory.expand(hits[0].segment).includes(hits[0].content));
  assert.throws(() => memory.expand('seg-999999'), (e) => e.code === 'SMG-E201');
  assert.throws(() => memory.search(42), TypeError);
  assert.ok(memory.validate().valid);
  memory.close();
  assert.throws(() => memory.search('x'), /closed/);

  const report = smg.validate(Buffer.from('this is not a memory file'));
  assert.strictEqual(report.valid, false);
  assert.strictEqual(report.findings[0].code, 'SMG-E003');

  const locked = path.join(dir, 'locked.smg');
  execFileSync(process.env.SMG_BIN, ['encrypt', out, '-o', locked], {
    env: { ...process.env, SMG_PASSPHRASE: 'the right one' },
  });
  assert.throws(() => smg.open(locked, 'not it'), (e) => e.code === 'SMG-E141');
  const opened = smg.open(locked, 'the right one');
  assert.strictEqual(opened.info().turns, 419);
  opened.close();
  assert.throws(() => smg.open(path.join(dir, 'nope.smg')), (e) => e.code === 'SMG-E001');
});

// A hit as searchAll shows it (scores rounded to six places there).
function asJsonShowsIt(hit) {
  const fields = hit.toJSON();
  fields.score = Math.round(fields.score * 1e6) / 1e6;
  return fields;
}

test('search reads what searchAll says', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-hits-'));
  const out = path.join(dir, 'memory.smg');
  smg.ingest([locomo], out);
  const memory = smg.open(out);
  for (const question of ['When did Caroline go to the LGBTQ support group?', 'What did Melanie paint?',
    'adoption agencies', 'Caroline', 'zzzz nothing matches this']) {
    const hits = memory.search(question, 7);
    const whole = memory.searchAll(question, 7);
    assert.deepStrictEqual(hits.map(asJsonShowsIt), whole.hits);
    assert.deepStrictEqual(hits.nodes.map(asJsonShowsIt), whole.nodes);
    assert.deepStrictEqual(hits.warnings, whole.warnings);
  }
  const exact = memory.search('adoption agencies', 7, { exact: true });
  assert.deepStrictEqual(exact.map((h) => h.toJSON()), memory.search('adoption agencies', 7).map((h) => h.toJSON()));
  const hits = memory.search('When did Caroline go to the LGBTQ support group?', 3);
  memory.close();
  // The results outlive the memory they came from.
  assert.strictEqual(hits[0].type, 'turn');
  assert.strictEqual(JSON.parse(JSON.stringify(hits))[0].content, hits[0].content);
  assert.strictEqual(hits[0].id, undefined);
  assert.strictEqual(hits.nodes[0].turn, undefined);
  assert.ok(hits.nodes[0].id);
});

test('a span of time is what the CLI keeps to', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-period-'));
  const out = path.join(dir, 'memory.smg');
  smg.ingest([locomo], out);
  const span = ['--since', '2023-07-01', '--until', '2023-08-31'];
  const cli = JSON.parse(execFileSync(process.env.SMG_BIN,
    ['search', out, 'adoption agencies', '-k', '5', '--json', ...span], { encoding: 'utf8' }));
  const context = execFileSync(process.env.SMG_BIN,
    ['context', out, 'adoption agencies', '--budget', '400', ...span], { encoding: 'utf8' });
  const memory = smg.open(out);
  for (const [since, until] of [['2023-07-01', '2023-08-31'], [new Date(Date.UTC(2023, 6, 1)), '2023-08-31']]) {
    const hits = memory.search('adoption agencies', 5, { since, until });
    assert.ok(hits.length > 0);
    assert.deepStrictEqual(hits.map(asJsonShowsIt), cli.hits);
    assert.deepStrictEqual(hits.nodes.map(asJsonShowsIt), cli.nodes);
    assert.strictEqual(memory.context('adoption agencies', 400, { since, until }).text, context);
  }
  assert.deepStrictEqual(memory.search('adoption agencies', 5, { since: '2024-01-01' }), []);
  assert.throws(() => memory.search('adoption', 5, { since: 'yesterday' }), (e) => e.code === 'SMG-E020');
  assert.throws(() => memory.context('adoption', 400, { until: 20230701 }), TypeError);
  memory.close();
});

test('an indexed file answers the same', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-index-'));
  const out = path.join(dir, 'memory.smg');
  smg.ingest([locomo], out);
  const question = 'When did Caroline go to the LGBTQ support group?';
  const ask = () => {
    const memory = smg.open(out);
    const found = memory.searchAll(question, 5);
    memory.close();
    return found;
  };
  const before = ask();
  const size = fs.statSync(out).size;
  const summary = smg.index(out);
  assert.strictEqual(summary.bytesBefore, size);
  assert.strictEqual(summary.bytesAfter, fs.statSync(out).size);
  assert.ok(summary.bytesAfter > size);
  assert.deepStrictEqual(ask(), before);
  const junk = path.join(dir, 'junk.smg');
  fs.writeFileSync(junk, 'not a memory');
  assert.throws(() => smg.index(junk), (e) => e.code.startsWith('SMG-E'));
  assert.strictEqual(fs.readFileSync(junk, 'utf8'), 'not a memory');
  assert.throws(() => smg.index(42), TypeError);
});

test('curation is audited and undone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-curate-'));
  const out = path.join(dir, 'memory.smg');
  smg.ingest([locomo], out);
  const memory = smg.open(out);
  const node = memory.searchAll('Caroline support group', 1).nodes[0].id;
  memory.close();
  assert.strictEqual(smg.recordAccess(out, [node], { at: '2026-05-31T12:00:00Z', by: 'app' }).found, 1);
  const touched = fs.readFileSync(out);
  const dry = smg.curate(out, { now: '2026-06-01T00:00:00Z', dryRun: true });
  assert.ok(fs.readFileSync(out).equals(touched));
  const report = smg.curate(out, { now: '2026-06-01T00:00:00Z' });
  assert.deepStrictEqual(report.actions, dry.actions);
  assert.ok(report.actions.some((a) => a.node === node && a.action === 'promote'));
  assert.ok(smg.validate(out).valid);
  assert.strictEqual(smg.curate(out, { now: '2026-06-01T00:00:00Z' }).actions.length, 0);
  assert.strictEqual(smg.restore(out, report.cycle).restored.length, report.actions.length);
  assert.ok(fs.readFileSync(out).equals(touched));
  assert.throws(() => smg.restore(out, report.cycle), (e) => e.code === 'SMG-E241');
  assert.throws(() => smg.curate(out, { now: 'tomorrow' }), (e) => e.code === 'SMG-E020');
});

test('a delta rebuilds a file and refuses another base', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-delta-'));
  const [a, b, d] = ['a.smg', 'b.smg', 'b.smgd'].map((n) => path.join(dir, n));
  smg.ingest([locomo], a);
  smg.ingest([locomo, path.join(path.dirname(locomo), '30.json')], b);
  const header = smg.makeDelta(a, b, d);
  assert.strictEqual(header.patch, 'document');
  assert.ok(header.deltaBytes < fs.statSync(b).size);
  smg.applyDelta(a, d, path.join(dir, 'b2.smg'));
  assert.ok(fs.readFileSync(path.join(dir, 'b2.smg')).equals(fs.readFileSync(b)));
  assert.throws(() => smg.applyDelta(b, d, path.join(dir, 'x.smg')), (e) => e.code === 'SMG-E160');
  assert.ok(!fs.existsSync(path.join(dir, 'x.smg')));
});

test('a sealed tier opens in memory with its key', () => {
  const sealed = path.join(root, 'fixtures', 'valid', 'sealed-conversation.smg');
  const before = fs.readFileSync(sealed);
  const memory = smg.open(sealed);
  assert.deepStrictEqual(memory.search('Northwind acquisition'), []);
  assert.throws(() => memory.unseal('not the key'), (e) => e.code === 'SMG-E141');
  const board = memory.unseal('restricted');
  const said = board.search('Northwind acquisition', 2).map((h) => h.content);
  assert.ok(said.some((s) => s.includes('Northwind')), said.join(' | '));
  assert.ok(board.context('Northwind', 500).text.includes('Northwind'));
  board.close();
  assert.deepStrictEqual(memory.search('Northwind acquisition'), []);
  memory.close();
  assert.ok(fs.readFileSync(sealed).equals(before));
});

// The reference model (scripts/test.sh installs it and names its folder in
// SMG_TEST_MODEL): queries embedded and tokens counted as `smg context` does.
test('queries embedded and tokens counted as the command line does', (t) => {
  const model = process.env.SMG_TEST_MODEL;
  if (!model) {
    if (process.env.SMG_REQUIRE_SERVERS === '1') throw new Error('SMG_TEST_MODEL is not set');
    t.skip('SMG_TEST_MODEL is not set');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-'));
  const lines = ['We switched the orders database to PostgreSQL last night.',
    'My sister adopted a puppy; he chews every shoe in the house.',
    'The quarterly budget review moved to Thursday afternoon.'];
  const src = path.join(dir, 't.jsonl');
  fs.writeFileSync(src, lines.map((content, i) => JSON.stringify({
    conversation_id: 'c', message_id: `m${i}`, speaker: 'Ann', content,
    timestamp: `2025-03-0${i + 1}T10:00:00Z`,
  }) + '\n').join(''));
  const out = path.join(dir, 'm.smg');
  const bin = process.env.SMG_BIN;
  execFileSync(bin, ['ingest', '-q', '--embed', '--model', model, '-o', out, src]);
  const memory = smg.open(out);
  assert.ok(!memory.context('my dog', 40).text.includes('puppy'));
  assert.throws(() => memory.setTokenizer('gpt2'), (e) => e.code === 'SMG-E020');
  const pack = memory.setModel(model).setTokenizer('cl100k').context('my dog', 40);
  const cli = JSON.parse(execFileSync(bin, ['context', out, 'my dog', '--budget', '40', '--json',
    '--model', model, '--tokenizer', 'cl100k']));
  assert.ok(pack.text.includes('puppy'), pack.text);
  assert.deepStrictEqual([pack.text, pack.tokens], [cli.text, cli.tokens]);
  const hit = memory.searchAll('pet', 1).hits[0];
  assert.ok(hit.content.includes('puppy'));
  assert.deepStrictEqual(hit.sources, ['turns']);
  memory.close();
});

test('share writes a copy without the values and reports kinds, not values', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smg-node-share-'));
  const key = 'AKIAZ7QWERTYUIOP2345';
  const talk = path.join(dir, 'talk.jsonl');
  fs.writeFileSync(talk, `${JSON.stringify({ conversation_id: 'c1', message_id: 'm1', role: 'user',
    content: `The key is ${key} and mail goes to ada.planted@example.org.` })}\n`);
  const out = path.join(dir, 'memory.smg');
  smg.ingest([talk], out);
  const copy = path.join(dir, 'copy.smg');
  const report = smg.share(out, copy, { at: '2026-01-01T00:00:00Z' });
  assert.deepStrictEqual(report.distinct, { 'aws-key': 1, email: 1 });
  assert.strictEqual(report.written, copy);
  assert.ok(!JSON.stringify(report).includes(key));
  const memory = smg.open(copy);
  const shown = JSON.stringify(memory.searchAll('key mail', 5));
  memory.close();
  assert.ok(!shown.includes(key) && shown.includes('[AWS-KEY-1]'), shown);
  assert.strictEqual(smg.share(copy).findings.length, 0);
  const dry = smg.share(out, null, { keep: ['aws-key'] });
  assert.strictEqual(dry.written, null);
  assert.deepStrictEqual(Object.keys(dry.counts), ['email']);
  assert.throws(() => smg.share(out, copy, { keep: ['mail'] }), (e) => e.code === 'SMG-E020');
});
