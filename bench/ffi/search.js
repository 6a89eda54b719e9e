// Per-call time of search through the Node package (koffi over the C ABI): the hits
// as returned, the hits with every score and text read, and searchAll's JSON. Each
// figure is the mean of the fastest of 20 batches, in microseconds.
const smg = require('smg');

const BATCHES = 20;

function perCall(n, f) {
  f();
  const size = Math.max(Math.floor(n / BATCHES), 1);
  const means = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < size; i++) f();
    means.push(Number(process.hrtime.bigint() - start) / 1000 / size);
  }
  return Math.min(...means);
}

function readAll(hits) {
  let sink = 0;
  for (const h of hits) sink += h.score + h.content.length;
  for (const h of hits.nodes) sink += h.score + h.text.length;
  return sink;
}

const [path, query, n] = process.argv.slice(2);
const memory = smg.open(path);
console.log(JSON.stringify({
  search_us: perCall(Number(n), () => memory.search(query, 10)),
  read_us: perCall(Number(n), () => readAll(memory.search(query, 10))),
  json_us: perCall(Number(n), () => memory.searchAll(query, 10)),
}));
memory.close();
