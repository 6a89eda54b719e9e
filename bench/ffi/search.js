// Per-call time of Memory.search through the Node package (koffi over the C ABI).
const smg = require('smg');

const [path, query, n] = process.argv.slice(2);
const memory = smg.open(path);
memory.search(query, 10);
const start = process.hrtime.bigint();
for (let i = 0; i < Number(n); i++) memory.search(query, 10);
const us = Number(process.hrtime.bigint() - start) / 1000 / Number(n);
console.log(JSON.stringify({ node_us: us }));
memory.close();
