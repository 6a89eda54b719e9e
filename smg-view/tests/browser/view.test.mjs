// `smg view` pages opened in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): the graph renders, search finds a known turn, a click on a node
// shows its provenance, the vault shows a diff, sealed and encrypted memories keep
// their secrets, memory text cannot run as script, and no request leaves the page.
// Screenshots go to target/view-screenshots/ (or $SMG_VIEW_SHOTS) for a person to see.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const smgBin = process.env.SMG_BIN || join(root, 'target', 'debug', 'smg');
const shots = process.env.SMG_VIEW_SHOTS || join(root, 'target', 'view-screenshots');
const locomo = join(root, '..', 'shared', 'data', 'locomo-dev', '26.json');
const work = mkdtempSync(join(tmpdir(), 'smg-view-'));
mkdirSync(shots, { recursive: true });

const smg = (args, env = {}) => execFileSync(smgBin, args, { cwd: work, env: { ...process.env, ...env }, encoding: 'utf8' });
const path = (name) => join(work, name);

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // The flags keep Chromium from calling home on a machine without a network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', '--disable-default-apps'],
  });
});
after(async () => { await browser?.close(); rmSync(work, { recursive: true, force: true }); });

/** Open a page, recording every request that is not the page itself, errors and CSP reports. */
async function open(html) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
  const seen = { requests: [], errors: [], csp: [] };
  const self = 'file://' + html;
  page.on('request', (r) => { if (r.url() !== self) seen.requests.push(r.url()); });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('dialog', (d) => { seen.errors.push('dialog: ' + d.message()); d.dismiss(); });
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) seen.csp.push(m.text()); });
  await page.goto(self);
  await page.waitForFunction(() => window.smgView && window.smgView.ready, null, { timeout: 60000 });
  return { page, seen };
}

function quiet(seen) {
  assert.deepEqual(seen.requests, [], 'no request may leave the page');
  assert.deepEqual(seen.errors, [], 'no script error or dialog');
  assert.deepEqual(seen.csp, [], 'the policy refuses nothing of the page itself');
}

test('the vendored Cytoscape.js is the npm release, byte for byte', () => {
  const vendored = readFileSync(join(root, 'smg-view', 'assets', 'vendor', 'cytoscape.min.js'));
  const released = readFileSync(join(here, 'node_modules', 'cytoscape', 'dist', 'cytoscape.min.js'));
  assert.ok(vendored.equals(released));
});

test('a LoCoMo memory: graph, search, provenance, archive, timeline', async () => {
  smg(['ingest', locomo, '-o', path('locomo.smg')]);
  const report = JSON.parse(smg(['view', path('locomo.smg'), '-o', path('locomo.html'), '--json']));
  const { page, seen } = await open(path('locomo.html'));

  // The graph: as many nodes as the page says it shows, drawn on the canvas.
  const drawn = await page.evaluate(() => ({ nodes: smgView.cy.nodes().length, edges: smgView.cy.edges().length }));
  assert.equal(drawn.nodes, report.shown);
  assert.ok(drawn.edges > 0 && drawn.edges <= report.edges);
  const inked = await page.evaluate(() => {
    let n = 0;
    for (const c of document.querySelectorAll('#cy canvas')) {
      if (!c.width || !c.height) continue;
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
    }
    return n;
  });
  assert.ok(inked > 10000, `the canvas shows the graph (${inked} pixels drawn)`);
  await page.screenshot({ path: join(shots, 'locomo-graph.png') });

  // Search: a turn's own words find it, through the search box as a person types.
  const conversation = JSON.parse(readFileSync(locomo, 'utf8'));
  const said = conversation.session_3.find((t) => t.text.split(/\s+/).length > 12).text;
  const query = said.split(/\s+/).slice(0, 8).join(' ');
  await page.fill('#search', query);
  await page.waitForSelector('#results .result .badge.turn');
  const results = await page.$$eval('#results .result', (rows) => rows.map((r) => r.textContent));
  assert.ok(results.some((r) => r.includes(said.slice(0, 40))), `"${query}" finds its turn: ${results.slice(0, 3)}`);
  await page.screenshot({ path: join(shots, 'locomo-search.png') });
  await page.click(`#results .result:has(.badge.turn):has-text(${JSON.stringify(said.slice(0, 40))})`);
  await page.waitForSelector('#conv-view .turn.target');
  assert.ok((await page.textContent('#conv-view .turn.target')).includes(said.slice(0, 40)));

  // A click on a node (a real mouse click on the canvas) shows the turns it came from.
  await page.click('#tabs [data-tab=graph]');
  const target = await page.evaluate(() => {
    const details = JSON.parse(document.getElementById('smg-details').textContent);
    const node = smgView.cy.nodes().filter((n) => details[n.data('k')] && details[n.data('k')].turns.length > 0)[0];
    smgView.cy.fit(node, 200);
    const box = document.getElementById('cy').getBoundingClientRect();
    const p = node.renderedPosition();
    const [c, k] = details[node.data('k')].turns[0];
    return { x: box.left + p.x, y: box.top + p.y, id: node.data('id'), text: smgView.turnAt(c, k)[5] };
  });
  await page.mouse.click(target.x, target.y);
  await page.waitForSelector('#details .provenance .turn');
  const provenance = await page.textContent('#details .provenance');
  assert.ok(provenance.includes(target.text.slice(0, 30)), 'the provenance shows the source turn');
  await page.screenshot({ path: join(shots, 'locomo-node.png') });
  await page.click('#fit');
  await page.screenshot({ path: join(shots, 'locomo-page.png') });

  await page.click('#tabs [data-tab=timeline]');
  const events = await page.$$eval('#tab-timeline .event', (e) => e.length);
  assert.equal(events, report.timeline);
  await page.click('#tabs [data-tab=archive]');
  await page.click('#conv-list .item');
  assert.equal(await page.$$eval('#conv-view .turn', (e) => e.length), Math.min(300, report.turns));
  quiet(seen);
  await page.close();
});

test('a page of linked memories: search reaches the linked file and names it', async () => {
  smg(['ingest', join(root, 'fixtures', 'ingest', 'sample-chat.jsonl'), '-o', path('mine.smg'), '-q']);
  smg(['ingest', locomo, '-o', path('team.smg'), '-q']);
  smg(['link', 'add', 'mine.smg', 'team.smg', '--name', 'team']);
  const report = JSON.parse(smg(['view', 'mine.smg', '-o', 'mine.html', '--json']));
  assert.equal(report.linked_files, 1);
  const { page, seen } = await open(path('mine.html'));

  // A turn only the linked file holds, found through the search box, badged with its file.
  const conversation = JSON.parse(readFileSync(locomo, 'utf8'));
  const said = conversation.session_2.find((t) => t.text.split(/\s+/).length > 12).text;
  await page.fill('#search', said.split(/\s+/).slice(0, 8).join(' '));
  const row = `#results .result:has(.badge.turn):has-text(${JSON.stringify(said.slice(0, 40))})`;
  await page.waitForSelector(row);
  assert.equal(await page.textContent(`${row} .badge.file`), 'team');
  await page.click(row);
  await page.waitForSelector('#conv-view .turn.target');
  assert.match(await page.textContent('#conv-view h2'), /team/);

  // The graph's "Files" filter: the linked file's nodes hidden, only the file's own stay.
  await page.click('#tabs [data-tab=graph]');
  const before = await page.evaluate(() => smgView.cy.nodes().length);
  await page.uncheck('#file-filter-list input[data-value="team"]');
  const own = await page.evaluate(() => smgView.cy.nodes().map((n) => smgView.fileName(smgView.data.nodeFiles[n.data('k')])));
  assert.ok(own.length > 0 && own.length < before, `${own.length} of ${before} nodes left`);
  assert.ok(own.every((f) => f === null), 'only the file asked\'s nodes are drawn');
  await page.screenshot({ path: join(shots, 'network-filter.png') });
  quiet(seen);
  await page.close();
});

test('the vault shows versions side by side', async () => {
  smg(['ingest', join(root, 'fixtures', 'ingest', 'sample-chat.jsonl'), '-o', path('chat.smg')]);
  smg(['view', path('chat.smg'), '-o', path('chat.html')]);
  const { page, seen } = await open(path('chat.html'));
  await page.click('#tabs [data-tab=vault]');
  await page.click('#artifact-list .item:has-text("webhook.rs")');
  await page.click('#artifact-view .versions button:has-text("v2")');
  const rows = await page.$$eval('#artifact-view table.diff tr', (r) => r.map((x) => x.className));
  assert.ok(rows.some((c) => c === 'chg' || c === 'add' || c === 'del'), `changed rows: ${rows}`);
  assert.ok(rows.includes('same'));
  await page.screenshot({ path: join(shots, 'vault-diff.png') });
  quiet(seen);
  await page.close();
});

test('sealed and encrypted memories keep their secrets out of the page', async () => {
  smg(['ingest', join(root, 'fixtures', 'ingest', 'sample-chat.jsonl'), '-o', path('secret.smg')]);
  writeFileSync(path('seal.txt'), 'board only\n');
  smg(['knowledge', 'add', 'secret.smg', '--label', 'Acquisition', '--content', 'We buy Initech in Q3',
    '--tier', 'restricted', '--confidence', '0.7', '--id', 'k-secret', '--seal-passphrase-file', 'seal.txt']);
  const pass = 'correct horse battery staple';
  smg(['encrypt', 'secret.smg', '-o', 'secret.enc.smg', '--iterations', '600000'], { SMG_PASSPHRASE: pass });
  smg(['view', 'secret.enc.smg', '-o', 'secret.html'], { SMG_PASSPHRASE: pass });
  const html = readFileSync(path('secret.html'), 'utf8');
  for (const secret of [pass, 'Initech', 'Acquisition', 'board only']) assert.ok(!html.includes(secret), `page holds "${secret}"`);

  const { page, seen } = await open(path('secret.html'));
  await page.click('#tabs [data-tab=sealed]');
  const sealed = await page.textContent('#tab-sealed table');
  assert.match(sealed, /tier:restricted/);
  assert.match(sealed, /restricted/);
  await page.evaluate(() => smgView.reveal(smgView.data.nodes.findIndex((n) => n[0] === 'k-secret')));
  await page.waitForSelector('#details h2');
  assert.match(await page.textContent('#details'), /Sealed: only its id and tier/);
  await page.screenshot({ path: join(shots, 'sealed.png') });
  quiet(seen);
  await page.close();
});

test('memory text is shown as text, never run', async () => {
  const evil = '</script><script>alert(1)</script><img src=x onerror="alert(2)"> <b>bold</b> &amp;';
  writeFileSync(path('evil.jsonl'), [
    { conversation_id: 'c1', message_id: 'm1', role: 'user', content: `we decided to use ${evil}`, timestamp: '2025-02-28T10:10:00Z' },
    { conversation_id: 'c1', message_id: 'm2', role: 'assistant', content: 'ok, noted', timestamp: '2025-02-28T10:11:00Z' },
  ].map((r) => JSON.stringify(r)).join('\n') + '\n');
  smg(['ingest', 'evil.jsonl', '-o', 'evil.smg']);
  smg(['view', 'evil.smg', '-o', 'evil.html']);
  const { page, seen } = await open(path('evil.html'));
  await page.evaluate(() => smgView.openConversation(0));
  assert.ok((await page.textContent('#conv-view')).includes(evil));
  assert.equal(await page.$$eval('#conv-view img, #conv-view b, #conv-view script', (e) => e.length), 0);
  quiet(seen);
  await page.close();
});

test('an empty memory opens, and says so', async () => {
  smg(['view', join(root, 'fixtures', 'valid', 'minimal.smg'), '-o', path('minimal.html')]);
  const { page, seen } = await open(path('minimal.html'));
  assert.equal(await page.evaluate(() => smgView.cy.nodes().length), 0);
  assert.deepEqual(await page.evaluate(() => smgView.search('anything')), { total: 0, matched: 0, of: 1, hits: [] });
  await page.click('#tabs [data-tab=archive]');
  assert.match(await page.textContent('#conv-list'), /The archive is empty/);
  await page.click('#tabs [data-tab=vault]');
  assert.match(await page.textContent('#artifact-list'), /The vault is empty/);
  quiet(seen);
  await page.close();
});
