"""Per-call time of Memory.search through the Python package (ctypes over the C ABI)."""
import json
import sys
import time

import smg

path, query, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with smg.open(path) as memory:
    memory.search(query, 10)
    start = time.perf_counter()
    for _ in range(n):
        memory.search(query, 10)
    print(json.dumps({"python_us": (time.perf_counter() - start) / n * 1e6}))
