#!/usr/bin/env python3
"""One very long LoCoMo-format conversation, for ingest's memory bound (issue 24).

The sessions of the dev files (../shared/data/locomo-dev/*.json), in file order,
repeated until the output reaches SIZE bytes, numbered again as one conversation
(session_N, dia_id DN:K). Deterministic: the same files give the same bytes.

    python3 bench/long-locomo.py OUT.json [SIZE_MB=64.5]
"""
import glob
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
dev = os.path.join(here, "..", "..", "shared", "data", "locomo-dev")
out_path = sys.argv[1]
limit = int(float(sys.argv[2] if len(sys.argv) > 2 else "64.5") * 1_000_000)

sessions = []
first = None
for path in sorted(glob.glob(os.path.join(dev, "*.json"))):
    with open(path) as f:
        sample = json.load(f)
    for s in sample if isinstance(sample, list) else [sample]:
        conv = s.get("conversation", s)
        first = first or conv
        n = 1
        while f"session_{n}" in conv:
            sessions.append((conv.get(f"session_{n}_date_time"), conv[f"session_{n}"]))
            n += 1

conv = {"speaker_a": first["speaker_a"], "speaker_b": first["speaker_b"]}
size, n = 0, 0
while size < limit:
    date, turns = sessions[n % len(sessions)]
    n += 1
    renumbered = [dict(t, dia_id=f"D{n}:{k + 1}") for k, t in enumerate(turns)]
    conv[f"session_{n}_date_time"] = date
    conv[f"session_{n}"] = renumbered
    size += len(json.dumps(renumbered)) + 40
with open(out_path, "w") as f:
    json.dump({"sample_id": "long", "conversation": conv}, f)
turns = sum(len(v) for k, v in conv.items() if k.startswith("session_") and isinstance(v, list))
print(f"{out_path}: {os.path.getsize(out_path) / 1e6:.1f} MB, {n} sessions, {turns} turns")
