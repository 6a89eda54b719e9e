"""Recall and latency of a search that reaches its answers through a link (issue 77).

For each LoCoMo conversation B and each other conversation A: A links to B, and B's
questions are asked of A (their evidence lives only in B) and of B alone. R@10: a
question counts when one of its evidence turns is among the ten turns `smg search`
returns. Latency: the same searches, one process each (open, search, print), as a user
runs them. Usage: python3 bench/links.py SMG_BIN LOCOMO_DIR
"""

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time


def search(smg, path, question):
    start = time.perf_counter()
    out = subprocess.run([smg, "search", str(path), question, "-k", "10", "--json"],
                         capture_output=True, check=True, text=True).stdout
    took = time.perf_counter() - start
    return json.loads(out), took


def found(hits, evidence, via_link):
    for h in hits["hits"]:
        if via_link and (h.get("file") or {}).get("name") != "linked":
            continue
        if h["provenance"]["messageId"] in evidence:
            return True
    return False


def main():
    smg, data = sys.argv[1], pathlib.Path(sys.argv[2])
    convs = sorted(data.glob("*.json"))
    tmp = pathlib.Path(tempfile.mkdtemp())
    for c in convs:
        subprocess.run([smg, "ingest", str(c), "-o", str(tmp / f"{c.stem}.smg"), "-q", "--from", "locomo",
                        "--layout", "packed", "--index"], check=True)
    print("| linked (asked) | through (first file) | questions | R@10 alone | R@10 through the link | "
          "p50 ms alone | p50 ms through |")
    print("|---|---|---|---|---|---|---|")
    for b in convs:
        qa = [q for q in json.loads(b.read_text())["qa"] if q.get("evidence")]
        for a in convs:
            if a == b:
                continue
            first = tmp / f"first-{a.stem}-{b.stem}.smg"
            first.write_bytes((tmp / f"{a.stem}.smg").read_bytes())
            subprocess.run([smg, "link", "add", str(first), str(tmp / f"{b.stem}.smg"), "--name", "linked"],
                           check=True, capture_output=True)
            alone, through, t_alone, t_through = 0, 0, [], []
            for q in qa:
                hits, took = search(smg, tmp / f"{b.stem}.smg", q["question"])
                alone += found(hits, q["evidence"], False)
                t_alone.append(took)
                hits, took = search(smg, first, q["question"])
                through += found(hits, q["evidence"], True)
                t_through.append(took)
            n = len(qa)
            print(f"| {b.stem} | {a.stem} | {n} | {alone / n:.3f} | {through / n:.3f} | "
                  f"{statistics.median(t_alone) * 1e3:.1f} | {statistics.median(t_through) * 1e3:.1f} |")


if __name__ == "__main__":
    main()
