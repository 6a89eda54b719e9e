"""Per-call time of search through the Python package (ctypes over the C ABI): the
hits as returned, the hits with every score and text read, and search_all's JSON.
Each figure is the fastest of 20 batches, in microseconds."""
import json
import sys
import time

import smg

BATCHES = 20


def per_call(n, f):
    f()
    size = max(n // BATCHES, 1)
    means = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(size):
            f()
        means.append((time.perf_counter() - start) / size * 1e6)
    return min(means)


def read_all(hits):
    for h in hits:
        h["score"], h["content"]
    for h in hits.nodes:
        h["score"], h["text"]


path, query, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with smg.open(path) as memory:
    print(json.dumps({
        "search_us": per_call(n, lambda: memory.search(query, 10)),
        "read_us": per_call(n, lambda: read_all(memory.search(query, 10))),
        "json_us": per_call(n, lambda: memory.search_all(query, 10)),
    }))
