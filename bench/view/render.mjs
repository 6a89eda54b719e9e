// Opens one `smg view` page in headless Chromium and prints, as JSON, how long it took
// to show its graph (from navigation, and as the page measured itself), the graph's
// size on screen, the JS heap, and the first and a later search.
//   node bench/view/render.mjs PAGE.html [TIMEOUT_S]
import { chromium } from '../../smg-view/tests/browser/node_modules/playwright-core/index.mjs';

const [, , file, timeout = '300'] = process.argv;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
const start = Date.now();
let out;
try {
  await page.goto('file://' + file, { timeout: timeout * 1000 });
  await page.waitForFunction(() => window.smgView && window.smgView.ready, null, { timeout: timeout * 1000, polling: 50 });
  const ready = Date.now() - start;
  out = await page.evaluate(() => {
    const t0 = performance.now();
    const first = smgView.search('topic word').total;
    const t1 = performance.now();
    smgView.search('another query');
    const t2 = performance.now();
    return { inPage: smgView.firstRenderMs, drawn: smgView.cy.nodes().length, results: first,
      firstSearchMs: Math.round(t1 - t0), searchMs: Math.round((t2 - t1) * 10) / 10,
      heapMB: Math.round(performance.memory ? performance.memory.usedJSHeapSize / 1e6 : 0) };
  });
  out.readyMs = ready;
} catch (e) {
  out = { error: String(e.message).split('\n')[0], afterMs: Date.now() - start };
}
console.log(JSON.stringify(out));
await browser.close();
