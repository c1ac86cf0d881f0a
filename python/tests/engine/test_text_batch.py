"""The text layer's batch path (``tokenize_batch``, ``assemble_batch``) against its text-by-text path, with no JVM:
the same ranks, counts and texts for every OOV policy. (test_text compares both paths with the JVM's answers.)"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from dptext.engine import text

GOLDEN = Path(__file__).resolve().parents[3] / "udfs" / "src" / "test" / "resources" / "golden"
IMDB = Path.home() / ".cache" / "dptext" / "imdb-reviews.jsonl"
PIECES = ["the", "The", "THE", "film", "n't", "do", "'s", "it", ".", ",", "...", "--", "-", "e.g.", "U.S.", "Σ",
          "ΟΔΟΣ", "straße", "x", "zz", "!", "?", "<br />", "(", ")", "'", "\u2019", "42", "a/b"]  # fmt: skip
SPACES = [" ", " ", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "\r\n", "\u0085", "\u200b"]


def _texts(words: list[str]) -> list[str]:
    texts = [json.loads(line)["text"] for line in (GOLDEN / "rows.jsonl").read_text(encoding="ascii").splitlines()]
    if IMDB.exists():
        with IMDB.open(encoding="utf-8") as f:
            texts += [json.loads(line)["review"] for _, line in zip(range(300), f, strict=False)]
    rng = random.Random(54)
    for _ in range(2000):
        parts = []
        for _ in range(rng.randint(0, 12)):
            parts.append(rng.choice([*PIECES, *words]) if rng.random() < 0.6 else rng.choice(SPACES))
        texts.append("".join(parts))
    return ["", " ", "  x  ", *texts]


@pytest.mark.parametrize("oov", ["random", "placeholder", "keep"])
def test_the_batch_path_gives_the_texts_of_the_text_by_text_path(oov):
    words = [
        "the",
        ".",
        "film",
        "do",
        "n't",
        "'s",
        "it",
        "e.g.",
        "\u03c2",
        "\u03c3",
        "ΟΔΟΣ",
        "-",
        "42",
        "a",
        "b",
        "!",
        "--",
    ]
    vocabulary = text.Vocabulary(words)
    texts = _texts(words)
    batch = text.tokenize_batch(texts, vocabulary)
    tokenized = [text.tokenize(t, vocabulary) for t in texts]
    assert batch.ranks.tolist() == [r for tk in tokenized for r in tk.ranks]
    assert batch.counts.tolist() == [len(tk.ranks) for tk in tokenized]
    assert batch.oov_counts.tolist() == [tk.oov_count for tk in tokenized]
    rng = random.Random(oov)
    outputs = [rng.randrange(len(words)) for _ in range(len(batch.ranks))]
    oov_ranks = [rng.randrange(len(words)) for _ in range(int(batch.oov_counts.sum()))]
    got = text.assemble_batch(
        batch, np.array(outputs, dtype=np.int64), np.array(oov_ranks, dtype=np.int64), vocabulary, oov, "<unk>"
    )
    o = q = 0
    for t, tk, g in zip(texts, tokenized, got, strict=True):
        want = text.assemble(
            tk, outputs[o : o + len(tk.ranks)], oov_ranks[q : q + tk.oov_count], vocabulary, oov, "<unk>", "vocabulary"
        )
        assert g == want, t
        o += len(tk.ranks)
        q += tk.oov_count


def test_the_batch_path_is_not_taken_where_it_does_not_apply():
    assert text.batch_assembles(text.Vocabulary(["a", "b"]), "vocabulary")
    assert not text.batch_assembles(text.Vocabulary(["a", "b"]), "restore")
    assert not text.batch_assembles(text.Vocabulary(["a", ""]), "vocabulary")
