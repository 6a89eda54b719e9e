"""Time to open a memory file through the Python package and answer one search.

    python3 bench/ffi/open.py FILE [QUERY]

A packed file with a stored search index opens by the index alone (smg_memory_open);
any other is read and indexed whole.
"""
import json
import sys
import time

import smg

path = sys.argv[1]
query = sys.argv[2] if len(sys.argv) > 2 else "miven kaneka"
start = time.perf_counter()
with smg.open(path) as memory:
    opened = time.perf_counter() - start
    start = time.perf_counter()
    hits = memory.search(query, 10)
    searched = time.perf_counter() - start
print(json.dumps({"open_ms": round(opened * 1e3), "first_search_ms": round(searched * 1e3, 1), "hits": len(hits)}))
