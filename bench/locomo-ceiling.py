#!/usr/bin/env python3
"""How far a better mix of smg's rankings could take LoCoMo recall (issue 28).

Reads the lines of `smg bench locomo DIR --model M --questions FILE`: for each
question, each evidence turn's place in the ranking retrieval uses (`ranked`), in
the ranking by words alone (`words`) and by the query's embedding alone (`meaning`),
and how many turns `smg context` showed at 500, 1000 and 2000 tokens (`shown`).

For k places it prints the share of evidence (mean over questions, as R@k) that
- each ranking finds in its first k, and
- the hindsight mix finds: for each question alone, the best split of the k places
  among the first turns of the three rankings, chosen knowing the answer.
No rule fixed before the question is known does better by choosing among these
rankings' first turns; it can only do better by lifting turns that every ranking
puts below its share of the places, which takes a signal the rankings lack (a
reranker, a stronger model).

Rows: R@10, and each question's own number of turns shown by the 1000- and
2000-token contexts (what Rtok1000 and Rtok2000 of `smg context` can reach).

    python3 bench/locomo-ceiling.py QUESTIONS.jsonl
"""
import json
import sys


def covered(places, n):
    """Which evidence turns a ranking's first n places hold."""
    return [p is not None and p <= n for p in places]


def hindsight(lists, k):
    """The best share of evidence any split of k places among `lists` reaches."""
    best = 0
    evidence = len(lists[0])
    for t in range(k + 1):
        first = covered(lists[0], t)
        for u in range(k + 1 - t):
            second = covered(lists[1], u)
            third = covered(lists[2], k - t - u) if len(lists) > 2 else [False] * evidence
            best = max(best, sum(a or b or c for a, b, c in zip(first, second, third)))
            if best == evidence:
                return 1.0
    return best / evidence


def main(path):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    if not rows:
        sys.exit(f"{path}: no questions")
    if any(r["meaning"] is None for r in rows):
        sys.exit(f"{path}: written without --model; the mix needs meaning's ranking")
    budgets = {"R@10": lambda r: 10,
               "turns shown at 1000 tokens": lambda r: r["shown"]["1000"],
               "turns shown at 2000 tokens": lambda r: r["shown"]["2000"]}
    print(f"{len(rows)} questions, {sum(len(r['evidence']) for r in rows)} evidence turns\n")
    print("| places | mean places | smg's ranking | words alone | meaning alone | hindsight mix of the three |")
    print("|---|---|---|---|---|---|")
    for name, places in budgets.items():
        sums = [0.0] * 4
        for r in rows:
            k = places(r)
            for i, key in enumerate(("ranked", "words", "meaning")):
                sums[i] += sum(covered(r[key], k)) / len(r["evidence"])
            sums[3] += hindsight([r["words"], r["meaning"], r["ranked"]], k)
        mean_k = sum(places(r) for r in rows) / len(rows)
        figures = " | ".join(f"{s / len(rows):.3f}" for s in sums)
        print(f"| {name} | {mean_k:.1f} | {figures} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
