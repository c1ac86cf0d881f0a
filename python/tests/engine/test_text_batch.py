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
    # (Arrow holds UTF-8 only: a text with a lone surrogate takes the text-by-text path, whole batch and all.)
    return [t for t in ["", " ", "  x  ", *texts] if text._utf8_column([t]) is not None]


@pytest.mark.parametrize("case", ["vocabulary", "restore"])
@pytest.mark.parametrize("oov", ["random", "placeholder", "keep"])
def test_the_batch_path_gives_the_texts_of_the_text_by_text_path(oov, case):
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
    # A first batch (each distinct piece looked up, all new), then one of those texts and as many others: the table's
    # pieces give the second's ids (Arrow's index_in) and its new pieces are added.
    half = len(texts) // 2
    for chunk in (texts[:half], texts[half // 2 :]):
        batch = text.tokenize_batch(chunk, vocabulary)
        _assert_as_text_by_text(chunk, batch, vocabulary, oov, case)
    assert len(batch.distinct) == len(vocabulary._pieces)  # (the second batch's ids were the table's)


def _assert_as_text_by_text(texts, batch, vocabulary, oov, case):
    n_words = vocabulary.size
    tokenized = [text.tokenize(t, vocabulary) for t in texts]
    assert batch.ranks.tolist() == [r for tk in tokenized for r in tk.ranks]
    assert batch.counts.tolist() == [len(tk.ranks) for tk in tokenized]
    assert batch.oov_counts.tolist() == [tk.oov_count for tk in tokenized]
    rng = random.Random(oov + case)
    outputs = [rng.randrange(n_words) for _ in range(len(batch.ranks))]
    oov_ranks = [rng.randrange(n_words) for _ in range(int(batch.oov_counts.sum()))]
    got = text.assemble_batch(
        batch, np.array(outputs, dtype=np.int64), np.array(oov_ranks, dtype=np.int64), vocabulary, oov, "<unk>", case
    )
    o = q = 0
    for t, tk, g in zip(texts, tokenized, got, strict=True):
        want = text.assemble(
            tk, outputs[o : o + len(tk.ranks)], oov_ranks[q : q + tk.oov_count], vocabulary, oov, "<unk>", case
        )
        assert g == want, t
        o += len(tk.ranks)
        q += tk.oov_count


def test_the_batch_path_is_not_taken_where_it_does_not_apply():
    assert text.batch_assembles(text.Vocabulary(["a", "b"]), "vocabulary")
    assert text.batch_assembles(text.Vocabulary(["a", "b"]), "restore")
    assert not text.batch_assembles(text.Vocabulary(["a", "b"]), "title")
    assert not text.batch_assembles(text.Vocabulary(["a", ""]), "vocabulary")
    assert not text.batch_assembles(text.Vocabulary(["a", "\ud800"]), "vocabulary")  # not UTF-8: Arrow cannot hold it
    assert text.tokenize_batch(["a b", "a \udc00"], text.Vocabulary(["a", "b"])) is None


def test_a_table_past_its_size_carries_the_pieces_a_batch_needs(monkeypatch):
    """Past ``_PIECE_TYPES`` distinct pieces, a batch starts a new table holding only its own pieces' entries, copied
    from the old one: every batch still tokenizes and assembles as the text-by-text path does, the table stays near
    the size of a batch's pieces, and the pieces carried over are not cut again."""
    words = ["the", ".", "film", "do", "n't", "it", "a", "b", "!", "42", "ΟΔΟΣ"]
    vocabulary = text.Vocabulary(words)
    texts = _texts(words)
    monkeypatch.setattr(text, "_PIECE_TYPES", 60)
    rng = random.Random(7)
    cut = []
    run_entry = text._run_entry
    monkeypatch.setattr(text, "_run_entry", lambda run, index: cut.append(run) or run_entry(run, index))
    for _ in range(12):
        chunk = rng.sample(texts, 150)
        before = vocabulary._pieces
        seen = set(before) if before is not None else set()
        cut.clear()
        batch = text.tokenize_batch(chunk, vocabulary)
        assert not set(cut) & seen  # a piece the old table had is copied, not cut again
        pieces = len(np.unique(batch.piece_of))  # (the batch's distinct pieces)
        assert len(vocabulary._pieces) <= max(60, pieces) + pieces
        tokenized = [text.tokenize(t, vocabulary) for t in chunk]
        assert batch.ranks.tolist() == [r for tk in tokenized for r in tk.ranks]
        outputs = np.array([rng.randrange(len(words)) for _ in range(len(batch.ranks))], dtype=np.int64)
        for case in ("vocabulary", "restore"):  # (restore reads the carried entries' capitalisation)
            got = text.assemble_batch(batch, outputs, np.zeros(0, dtype=np.int64), vocabulary, "keep", "<unk>", case)
            o = 0
            for t, tk, g in zip(chunk, tokenized, got, strict=True):
                want = text.assemble(tk, outputs[o : o + len(tk.ranks)].tolist(), [], vocabulary, "keep", "<unk>", case)
                assert g == want, t
                o += len(tk.ranks)


def test_pieces_cut_by_arrow_have_the_tokens_cut_one_by_one():
    """``_PieceTypes.add`` cuts the simple pieces (``_SIMPLE_PIECE``: ASCII marks, at most two runs of ASCII letters and
    digits among them) with Arrow and the others one by one: each column, for every piece, is what cutting every
    piece one by one gives (the merges and clitics, the ranks exact or lower case, the capitalisation, the surfaces,
    the ids)."""
    words = ["the", "mr", ".", "...", "(", "'s", "it", "us", "a", "'", '"', "42", "e.g", "o'neil", "n't", ",", "x1"]
    vocabulary = text.Vocabulary(words)
    rng = random.Random(11)
    marks = [c for c in map(chr, range(33, 127)) if not c.isalnum()]
    cores = [*words, "The", "THE", "Mr", "MR", "A", "X1", "1x", "abc", "ABC", "Abc", "aBC", "7", "é", "it's", "a.b"]

    def run() -> str:
        if rng.random() < 0.8:
            return rng.choice(marks) * rng.choice([0, 0, 1, 1, 2, 3])
        return "".join(rng.choices(marks, k=rng.randint(1, 3)))

    def middle() -> str:
        return rng.choice(["'", "'", "-", ".", ",", "/", ":", "''", "...", ".<", "!", "'-"])

    pieces = [p for t in _texts(words) for p in t.split(" ")]
    pieces += [run() + rng.choice(cores) + run() for _ in range(3000)]
    # Two words: merged where the vocabulary has them ("o'neil", "e.g"), else a clitic ("n't", "'s", "'re", ...), else
    # three atoms.
    seconds = ["s", "S", "re", "ll", "ve", "m", "d", "t", "T", "neil", "g", "b", "x1", "10"]
    firsts = ["do", "DO", "an", "n", "N", "it", "IT", "o", "O", "e", "a", "x1", "4"]
    pieces += [run() + rng.choice(firsts) + middle() + rng.choice(seconds) + run() for _ in range(3000)]
    pieces = list(dict.fromkeys(p for p in pieces if text._utf8_column([p]) is not None))
    column = text._utf8_column(pieces)
    assert text._simple_pieces(column, text._utf8_column(words), vocabulary.index).matched.mean() > 0.5  # (most)
    by_arrow, one_by_one = text._PieceTypes(vocabulary.index), text._PieceTypes(vocabulary.index)
    more = [*pieces[:50], "brand", "brand", "(brand).", "Brand...", "BRAND", "?!", "-", ""]  # seen, new, one twice
    for batch in (pieces, more):
        assert np.array_equal(by_arrow.add(batch, text._utf8_column(batch)), one_by_one.add(batch))
        for a, b in zip(by_arrow.columns(), one_by_one.columns(), strict=True):
            assert np.array_equal(a, b)
        assert by_arrow.surfaces == one_by_one.surfaces
        assert list(by_arrow) == list(one_by_one)
