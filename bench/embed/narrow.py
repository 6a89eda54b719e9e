#!/usr/bin/env python3
"""Narrowing by sign bits against scoring every embedding, on real embeddings (issue 28).

A memory of N distinct English sentences (the doc comments of the crates in this
machine's cargo registry, in path order: real prose, no two alike) is ingested,
embedded with the model (`smg embed`) and indexed (`smg index`); then QUERIES other
sentences of the same kind are searched with `smg search --model` twice, as users
run it and with `--exact`, and the hits compared. Deterministic for one registry.

    python3 bench/embed/narrow.py SMG MODEL_DIR [N=72000] [QUERIES=100]
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

smg, model = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 72000
queries = int(sys.argv[4]) if len(sys.argv) > 4 else 100


def sentences():
    seen, out = set(), []
    pattern = os.path.expanduser("~/.cargo/registry/src/*/*/src/**/*.rs")
    for path in sorted(glob.glob(pattern, recursive=True)):
        with open(path, errors="ignore") as f:
            lines = f.read().splitlines()
        para = []
        for line in lines + [""]:
            m = re.match(r"\s*///\s?(.*)$", line)
            if m and not m.group(1).startswith(("```", "#", "|", "-", "*")):
                para.append(m.group(1).strip())
                continue
            for s in re.split(r"(?<=[.!?])\s+", " ".join(para)):
                s = s.strip()
                if 8 <= len(s.split()) <= 60 and s[:1].isupper() and s.endswith(".") and s not in seen:
                    seen.add(s)
                    out.append(s)
            para = []
    return out


def run(*args):
    return subprocess.run([smg, *args], check=True, capture_output=True, text=True).stdout


all_sentences = sentences()
if len(all_sentences) < n + queries:
    sys.exit(f"only {len(all_sentences)} sentences in the registry")
corpus, rest = all_sentences[:n], all_sentences[n:]
asked = rest[:: max(1, len(rest) // queries)][:queries]
work = tempfile.mkdtemp()
transcript = os.path.join(work, "t.jsonl")
with open(transcript, "w") as f:
    for i, s in enumerate(corpus):
        role = "user" if i % 2 == 0 else "assistant"
        f.write(json.dumps({"conversation_id": f"c{i // 100}", "message_id": str(i),
                            "role": role, "content": s}) + "\n")
memory = os.path.join(work, "m.smg")
run("ingest", "-q", "--layout", "packed", "-o", memory, transcript)
start = time.time()
report = json.loads(run("embed", "-q", "--json", "--model", model, memory))
embedded = time.time() - start
run("index", memory)
print(f"{report['turns']} turns and {report['nodes']} nodes embedded in {embedded:.0f} s; "
      f"{len(asked)} queries, k = 10, each by `smg search --model` (as users run it) and with `--exact`.\n")
shared = total = same_lists = 0
for q in asked:
    hits = []
    for extra in ([], ["--exact"]):
        r = json.loads(run("search", memory, q, "-k", "10", "--model", model, "--json", *extra))
        hits.append([json.dumps(h.get("turn", h.get("id")), sort_keys=True) for h in r["hits"] + r["nodes"]])
    narrowed, exact = hits
    total += len(exact)
    shared += sum(1 for h in exact if h in narrowed)
    same_lists += narrowed == exact
print("| measure | value |\n|---|---|")
print(f"| hits of the exact search the narrowed search also gives | {shared} of {total} ({shared / max(total, 1):.3f}) |")
print(f"| queries whose hits are the same, in the same order | {same_lists} of {len(asked)} |")
