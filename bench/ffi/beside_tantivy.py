"""smg's Python package beside tantivy's Python binding, in one process, on the same
turns and queries: open and answer the first query, then each query's time.

    python3 bench/ffi/beside_tantivy.py PACKED.smg TURNS.jsonl QUERIES.txt INDEX_DIR

PACKED.smg is a packed file with its search index (`bash bench/run.sh retrieval`
leaves one), TURNS.jsonl the turns it was ingested from (their `content` is what
tantivy indexes, with its English stemmer), QUERIES.txt one query a line (the first is
the first answered). The tantivy index is built in INDEX_DIR when it is not there.
Prints one Markdown table.
"""
import json
import os
import sys
import time

import smg
import tantivy


def percentiles(times):
    times = sorted(times)
    at = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    return at(0.50), at(0.95), at(0.99)


def build(turns, folder):
    os.makedirs(folder, exist_ok=True)
    b = tantivy.SchemaBuilder()
    b.add_text_field("text", stored=False, tokenizer_name="en_stem")
    index = tantivy.Index(b.build(), path=folder)
    writer = index.writer(heap_size=256_000_000)
    start = time.perf_counter()
    n = 0
    with open(turns, encoding="utf-8") as f:
        for line in f:
            writer.add_document(tantivy.Document(text=json.loads(line)["content"]))
            n += 1
    writer.commit()
    writer.wait_merging_threads()
    return n, time.perf_counter() - start


def main():
    packed, turns, queries, folder = sys.argv[1:5]
    with open(queries, encoding="utf-8") as f:
        first, *rest = f.read().splitlines()
    built = None
    if not os.path.exists(os.path.join(folder, "meta.json")):
        built = build(turns, folder)

    start = time.perf_counter()
    memory = smg.open(packed)
    memory.search(first, 10)
    smg_first = (time.perf_counter() - start) * 1e3

    start = time.perf_counter()
    index = tantivy.Index.open(folder)
    searcher = index.searcher()
    searcher.search(index.parse_query(first, ["text"]), 10)
    tantivy_first = (time.perf_counter() - start) * 1e3

    def timed(f):
        out = []
        for q in rest:
            t = time.perf_counter()
            f(q)
            out.append((time.perf_counter() - t) * 1e3)
        return percentiles(out)

    smg_times = timed(lambda q: memory.search(q, 10))
    tantivy_times = timed(lambda q: searcher.search(index.parse_query(q, ["text"]), 10).hits)
    memory.close()

    row = lambda what, a, b: print(f"| {what} | {a} | {b} |")
    ms = lambda t: " / ".join(f"{x:.2f}" for x in t) + " ms"
    print(f"{len(rest)} queries; smg {smg.version()}, tantivy (Python) {tantivy.__version__}\n")
    print("| measure | smg (Python package) | tantivy (Python binding) |\n|---|---|---|")
    if built:
        row("build", "—", f"{built[0]} turns in {built[1]:.1f} s")
    row("open and answer the first query", f"{smg_first:.1f} ms", f"{tantivy_first:.1f} ms")
    row(
        "search, 10 hits: p50 / p95 / p99",
        ms(smg_times) + " (hybrid: turns with their text, nodes)",
        ms(tantivy_times) + " (BM25, hit addresses)",
    )


if __name__ == "__main__":
    main()
