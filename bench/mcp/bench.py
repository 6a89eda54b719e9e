"""MCP tool call latency: `smg mcp` beside the reference memory server (npm
@modelcontextprotocol/server-memory), both loaded with the same memory of N entities and
driven by the same official Python client (PyPI `mcp`) over stdio.

    python3 bench/mcp/bench.py SMG_BIN [ENTITIES] [CALLS] [OBSERVATIONS] [rare|common]

Prints a Markdown table: p50/p99 per tool, and the same for the reference server.
`common` draws words by Zipf's law and searches the 100 most frequent, which match
thousands of entities: the answers `smg mcp` bounds (50 entities, 64,000 characters)."""

import asyncio
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


def memory(n, path, per=3, zipf=False):
    """N entities with `per` observations of eight words from 50,000 (uniform, or by
    Zipf's law), and 1.5 N relations."""
    rng = random.Random(25)
    words = [f"w{k:05d}" for k in range(50_000)]
    weights = [1 / (k + 1) for k in range(len(words))] if zipf else None
    draw = (lambda: rng.choices(words, weights, k=8)) if zipf else (lambda: [rng.choice(words) for _ in range(8)])
    kinds = ["person", "project", "company", "place", "tool"]
    with open(path, "w") as f:
        for i in range(n):
            obs = [" ".join(draw()) for _ in range(per)]
            f.write(json.dumps({"type": "entity", "name": f"Entity {i:06d}", "entityType": kinds[i % 5],
                                "observations": obs}) + "\n")
        for i in range(n + n // 2):
            f.write(json.dumps({"type": "relation", "from": f"Entity {i % n:06d}",
                                "to": f"Entity {rng.randrange(n):06d}", "relationType": "related_to"}) + "\n")
    return words


def transcript(n, words, path):
    """A chat of N turns in the same words (JSON Lines), so that get_context has turns."""
    rng = random.Random(27)
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"conversation_id": f"c{i // 200}", "message_id": f"m{i}",
                                "role": "user" if i % 2 == 0 else "assistant",
                                "timestamp": f"2025-03-{1 + i // 4000 % 28:02d}T{i % 24:02d}:00:00Z",
                                "content": " ".join(rng.choice(words) for _ in range(20))}) + "\n")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def measure(params, calls, n, words, with_context, common):
    rng = random.Random(26)
    asked = words[:100] if common else words
    plans = {
        "search_nodes": lambda: {"query": rng.choice(asked)},
        "open_nodes": lambda: {"names": [f"Entity {rng.randrange(n):06d}" for _ in range(3)]},
    }
    if with_context:
        plans["get_context"] = lambda: {"query": " ".join(rng.choice(words) for _ in range(3)), "budget": 2000}
    out = {}
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            start = time.perf_counter()
            await s.initialize()
            await s.call_tool("open_nodes", {"names": ["Entity 000000"]})
            out["first call (s)"] = time.perf_counter() - start
            for tool, args in plans.items():
                for _ in range(3):
                    await s.call_tool(tool, args())
                times, sizes = [], []
                for _ in range(calls):
                    a = args()
                    t0 = time.perf_counter()
                    res = await s.call_tool(tool, a)
                    times.append((time.perf_counter() - t0) * 1000)
                    assert not res.is_error, res.content[0].text
                    sizes.append(len(res.content[0].text))
                out[tool] = (statistics.median(times), pct(times, 99), statistics.mean(sizes), max(sizes))
    return out


def main():
    smg = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    per = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    common = len(sys.argv) > 5 and sys.argv[5] == "common"
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        words = memory(n, d / "memory.jsonl", per, common)
        transcript(n // 2, words, d / "chat.jsonl")
        t0 = time.perf_counter()
        subprocess.run([smg, "ingest", "--from", "mcp-memory", d / "memory.jsonl", "-o", d / "memory.smg"], check=True,
                       capture_output=True)
        subprocess.run([smg, "ingest", "--append", d / "memory.smg", d / "chat.jsonl"], check=True, capture_output=True)
        ingest = time.perf_counter() - t0
        sizes = (os.path.getsize(d / "memory.jsonl"), os.path.getsize(d / "memory.smg"))
        ours = asyncio.run(measure(StdioServerParameters(command=smg, args=["mcp", str(d / "memory.smg"), "--read-only"]),
                                   calls, n, words, True, common))
        env = {**os.environ, "MEMORY_FILE_PATH": str(d / "memory.jsonl")}
        theirs = asyncio.run(measure(StdioServerParameters(command="node", args=[str(REFERENCE)], env=env),
                                     calls, n, words, False, common))
    print(f"Memory: {n} entities ({per} observations of 8 words each, words {'by Zipf' if common else 'uniform'}; "
          f"queries: {'the 100 most frequent words' if common else 'any word'}), {n + n // 2} relations, and for smg "
          f"{n // 2} chat turns of 20 words (what get_context packs); "
          f"memory.jsonl {sizes[0] / 1e6:.1f} MB, smg ingest to brotli {sizes[1] / 1e6:.1f} MB in {ingest:.1f} s; "
          f"{calls} calls per tool after 3 warm-up calls.\n")
    print("| server | open + first call | search_nodes p50 / p99 | open_nodes p50 / p99 | get_context p50 / p99 |")
    print("|---|---|---|---|---|")
    cell = lambda r, k: (f"{r[k][0]:.2f} / {r[k][1]:.2f} ms (mean {r[k][2] / 1e3:.1f} kB, largest {r[k][3] / 1e3:.1f} kB)"
                         if k in r else "—")
    for name, r in [("`smg mcp` (Rust)", ours), ("reference server-memory 2026.8.31 (Node)", theirs)]:
        print(f"| {name} | {r['first call (s)']:.2f} s | {cell(r, 'search_nodes')} | {cell(r, 'open_nodes')} | {cell(r, 'get_context')} |")
    speed = theirs["search_nodes"][0] / ours["search_nodes"][0]
    speed99 = theirs["search_nodes"][1] / ours["search_nodes"][1]
    print(f"\nsearch_nodes: smg is {speed:.0f}x faster at p50, {speed99:.0f}x at p99.")


main()
