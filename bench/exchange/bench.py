"""Memory in and out of other tools' formats, timed as users run it.

A synthetic ChatGPT export and a Claude export of CONVERSATIONS conversations (50
messages each; every tenth ChatGPT conversation has an edited branch, every fifth
message holds a code block) go through `smg ingest` and `smg export` back to their own
format; the output must equal the input as JSON. Beside it, in the same run: Python's
json.load + json.dump of the same file (what any converter pays just to read and write
it). Then a git repository: `smg ingest --from git` against `git log --first-parent -p`
(the same commits and changes as text).

usage: python3 bench/exchange/bench.py SMG CONVERSATIONS REPO
"""

import json
import os
import subprocess
import sys
import tempfile
import time

SMG, N, REPO = sys.argv[1], int(sys.argv[2]), sys.argv[3]
WORDS = ("memory graph vault archive decision postgres stripe webhook retry deploy "
         "schema cache token budget context merge branch export import agent").split()


def text(i, j):
    w = [WORDS[(i * 7 + j * 3 + k) % len(WORDS)] for k in range(40)]
    s = " ".join(w).capitalize() + "."
    if j % 5 == 4:
        s += f"\n\n```python\ndef step_{i}_{j}(x):\n    return x * {j}\n```\n"
    return s


def chatgpt(n):
    out = []
    for i in range(n):
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
        parent = "root"
        for j in range(50):
            nid = f"c{i}-m{j}"
            role = "user" if j % 2 == 0 else "assistant"
            mapping[nid] = {"id": nid, "parent": parent, "children": [], "message": {
                "id": nid, "author": {"role": role, "name": None, "metadata": {}},
                "create_time": 1.7e9 + i * 3600 + j * 60.5,
                "content": {"content_type": "text", "parts": [text(i, j)]},
                "status": "finished_successfully", "metadata": {}, "recipient": "all"}}
            mapping[parent]["children"].append(nid)
            if i % 10 == 0 and j == 10:
                alt = f"c{i}-alt"
                mapping[alt] = {"id": alt, "parent": parent, "children": [], "message": {
                    "id": alt, "author": {"role": role}, "create_time": 1.7e9 + i * 3600,
                    "content": {"content_type": "text", "parts": ["an edit: " + text(i, 99)]}}}
                mapping[parent]["children"].append(alt)
            parent = nid
        out.append({"id": f"conv-{i}", "title": f"Conversation {i}", "create_time": 1.7e9 + i * 3600,
                    "update_time": 1.7e9 + i * 3600 + 3000, "mapping": mapping, "current_node": parent})
    return out


def claude(n):
    return [{"uuid": f"cl-{i}", "name": f"Chat {i}", "created_at": "2025-01-01T00:00:00Z",
             "chat_messages": [{"uuid": f"cl-{i}-{j}", "sender": "human" if j % 2 == 0 else "assistant",
                                "text": text(i, j), "content": [{"type": "text", "text": text(i, j)}],
                                "created_at": f"2025-01-01T{j // 60:02d}:{j % 60:02d}:00Z",
                                "attachments": [], "files": []} for j in range(50)]}
            for i in range(n)]


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def peak(cmd):
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True, capture_output=True, text=True)
    return int(out.stderr.strip().splitlines()[-1]) / 1024


def main():
    d = tempfile.mkdtemp()
    print("| format | conversations | messages | input MB | smg ingest s | smg export s | peak MB (ingest / export) | equal | json.load + dump s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, make in (("chatgpt", chatgpt), ("claude", claude)):
        src = os.path.join(d, f"{name}.json")
        with open(src, "w") as f:
            json.dump(make(N), f)
        mem, back = os.path.join(d, f"{name}.smg"), os.path.join(d, f"{name}.back.json")
        ingest = [SMG, "ingest", "-q", "--from", name, src, "-o", mem]
        export = [SMG, "export", mem, "--to", name, "-o", back]
        t_in, t_out = timed(ingest), timed(export)
        p_in, p_out = peak(ingest[:-1] + [mem + ".2"]), peak(export)
        t = time.perf_counter()
        with open(src) as f:
            data = json.load(f)
        with open(os.path.join(d, "copy.json"), "w") as f:
            json.dump(data, f)
        t_py = time.perf_counter() - t
        with open(back) as f:
            equal = json.load(f) == data
        msgs = sum(len(c.get("mapping", c.get("chat_messages", []))) for c in data)
        print(f"| {name} | {N} | {msgs} | {os.path.getsize(src) / 1e6:.1f} | {t_in:.2f} | {t_out:.2f} | "
              f"{p_in:.0f} / {p_out:.0f} | {equal} | {t_py:.2f} |")
        assert equal, f"{name}: the export differs from its source"
    mem = os.path.join(d, "repo.smg")
    t_smg = timed([SMG, "ingest", "-q", "--from", "git", REPO, "-o", mem])
    t_git = timed(["git", "-C", REPO, "log", "--first-parent", "-p", "HEAD", "--"])
    commits = subprocess.run(["git", "-C", REPO, "rev-list", "--first-parent", "--count", "HEAD"],
                             check=True, capture_output=True, text=True).stdout.strip()
    print()
    print(f"git: {REPO} ({commits} first-parent commits): smg ingest --from git {t_smg:.2f} s "
          f"(turns, vault versions, graph, written); git log --first-parent -p {t_git:.2f} s (text only)")


main()
