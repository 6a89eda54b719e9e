"""bench/locomo-ceiling.py: the hindsight mix of smg's rankings (issue 28)."""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "ceiling", os.path.join(HERE, "..", "..", "bench", "locomo-ceiling.py"))
ceiling = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ceiling)


def test_places_are_split_with_hindsight():
    # Evidence a is first by words, b first by meaning, and the mix has neither early.
    words, meaning, ranked = [1, 9], [7, 1], [5, 6]
    assert ceiling.hindsight([words, meaning, ranked], 1) == 0.5
    assert ceiling.hindsight([words, meaning, ranked], 2) == 1.0
    # A turn no ranking holds is never found, however many places.
    assert ceiling.hindsight([[None], [None], [None]], 50) == 0.0
    # The mix alone, when it is best: its first five.
    assert ceiling.hindsight([[40], [30], [5]], 5) == 1.0
    assert ceiling.hindsight([[40], [30], [6]], 5) == 0.0


def test_the_table_reads_what_smg_writes(tmp_path, capsys):
    line = {"file": "x.json", "question": "q", "evidence": ["D1:1", "D1:2"],
            "ranked": [3, 12], "words": [2, None], "meaning": [30, 4],
            "shown": {"500": 4, "1000": 8, "2000": 20}}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(line) + "\n")
    ceiling.main(str(path))
    table = capsys.readouterr().out
    # R@10: the mix holds one of two; words' first two and meaning's first four hold both.
    assert "| R@10 | 10.0 | 0.500 | 0.500 | 0.500 | 1.000 |" in table
    assert "| turns shown at 1000 tokens | 8.0 | 0.500 | 0.500 | 0.500 | 1.000 |" in table
    assert "| turns shown at 2000 tokens | 20.0 | 1.000 | 0.500 | 0.500 | 1.000 |" in table
