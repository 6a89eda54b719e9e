"""How large a .smg is beside compressing the export it came from (issue 76).

For each export: its raw bytes; `brotli -q 11` (window 24), `xz -9` and `zstd -19 --long`
of it; the .smg a new user makes (`smg ingest EXPORT -o m.smg`: default encoding, no
search index), and that memory in each encoding and in the packed layout (`smg
convert`), and at Brotli quality 11 (`smg convert --level 11`, exports under 4 MB:
the strongest the envelope gives); the ratio of each to brotli-11; and where the default file's bytes go: each
top-level section's canonical JSON (`smg info --json`) and what that section alone
compresses to with the file's encoding (Brotli, quality 11 here, an upper bound on
what it adds to the whole). Usage: python3 bench/size.py SMG_BIN EXPORT…
"""

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile


def run(args, **kw):
    return subprocess.run(args, capture_output=True, check=True, **kw).stdout


def compressed(tool, path):
    args = {
        "brotli-11": ["brotli", "-q", "11", "-w", "24", "-c", str(path)],
        "xz -9": ["xz", "-9", "-c", str(path)],
        "zstd -19 --long": ["zstd", "-19", "--long", "-q", "-c", str(path)],
    }[tool]
    return len(run(args))


def sections(smg, memory, tmp):
    """Each top-level section: canonical JSON bytes, and Brotli-11 of it alone."""
    plain = tmp / "plain.json"
    run([smg, "convert", str(memory), "-o", str(plain), "--encoding", "json"])
    doc = json.loads(plain.read_text())
    out = {}
    for key, value in doc.items():
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
        alone = run(["brotli", "-q", "11", "-w", "24", "-c"], input=text)
        out[key] = (len(text), len(alone))
    return out


def measure(smg, export, tmp):
    raw = export.stat().st_size
    tools = {t: compressed(t, export) for t in ("brotli-11", "xz -9", "zstd -19 --long")}
    memory = tmp / "m.smg"
    run([smg, "ingest", "-q", str(export), "-o", str(memory)])
    smgs = {"default": memory.stat().st_size}
    if raw < 4_000_000:
        best = tmp / "m.q11.smg"
        run([smg, "convert", str(memory), "-o", str(best), "--level", "11"])
        smgs["q11"] = best.stat().st_size
    for name, extra in (("json", ["--encoding", "json"]), ("zstd", ["--encoding", "zstd"]),
                        ("packed", ["--layout", "packed"])):
        other = tmp / f"m.{name}.smg"
        run([smg, "convert", str(memory), "-o", str(other), *extra])
        smgs[name] = other.stat().st_size
    return raw, tools, smgs, sections(smg, memory, tmp)


def main():
    smg, exports = sys.argv[1], [pathlib.Path(p) for p in sys.argv[2:]]
    rows, ratios, parts = [], [], {}
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for export in exports:
            raw, tools, smgs, secs = measure(smg, export, tmp)
            b = tools["brotli-11"]
            ratios.append(smgs["default"] / b)
            rows.append((export, raw, tools, smgs))
            parts[export] = secs
    print("| export | raw | brotli-11 | xz -9 | zstd -19 --long | .smg (default: Brotli) "
          "| ÷ brotli-11 | JSON | Zstandard | packed | Brotli quality 11 | ÷ brotli-11 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for export, raw, tools, smgs in rows:
        b = tools["brotli-11"]
        print(f"| {export.parent.name}/{export.name} | {raw:,} | {b:,} | {tools['xz -9']:,} | "
              f"{tools['zstd -19 --long']:,} | {smgs['default']:,} | **{smgs['default'] / b:.2f}×** | "
              f"{smgs['json']:,} | {smgs['zstd']:,} | {smgs['packed']:,} | "
              + (f"{smgs['q11']:,} | {smgs['q11'] / b:.2f}× |" if "q11" in smgs else "– | – |"))
    print(f"\nDefault .smg ÷ brotli-11 of its export: median {statistics.median(ratios):.2f}×, "
          f"worst {max(ratios):.2f}× ({len(ratios)} exports; targets 1.00× and 1.30×).")
    print("\nWhere the default file's bytes go: each section's canonical JSON, and Brotli-11 "
          "of it alone (kB).\n")
    keys = sorted({k for secs in parts.values() for k in secs})
    shown = [k for k in keys if any(secs.get(k, (0, 0))[0] > 200 for secs in parts.values())]
    print("| export | " + " | ".join(shown) + " |")
    print("|---|" + "---|" * len(shown))
    for export, secs in parts.items():
        cells = [f"{secs[k][0] / 1e3:.1f} → {secs[k][1] / 1e3:.1f}" if k in secs else "–"
                 for k in shown]
        print(f"| {export.parent.name}/{export.name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
