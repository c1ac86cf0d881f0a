"""Streams read ahead (``engine.ahead``) and the SanText family's rounds over them (``finish``): the same draws and
the same rows as round by round, with no JVM (test_golden compares both with the JVM's rows)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from dptext.engine import ahead, mechanisms
from dptext.engine.keys import SecretKey
from dptext.engine.sanitizer import EngineSettings, PythonSanitizer
from dptext.engine.xoshiro import RowStreams
from tests.engine import model_files

GOLDEN = Path(__file__).resolve().parents[3] / "udfs" / "src" / "test" / "resources" / "golden"


def test_streams_read_ahead_give_the_streams_draws_and_positions():
    streams, plain = RowStreams.from_seed(np.arange(50)), RowStreams.from_seed(np.arange(50))
    rows = np.arange(0, 50, 3)
    read = ahead.Ahead(streams, rows, np.arange(len(rows)) * 40 + 1)  # too few for most rows: reserve makes more
    reader = ahead.AheadStreams(read)
    rng = np.random.default_rng(54)
    for k in range(2000):
        some = np.flatnonzero(rng.random(len(rows)) < 0.5)
        if k % 3 == 0:
            assert np.array_equal(reader.next_uniform(some), plain.next_uniform(rows[some]))
        elif k % 3 == 1:
            assert np.array_equal(reader.next_int(some, 1000), plain.next_int(rows[some], 1000))
        else:
            assert np.array_equal(reader.next_long(some), plain.next_long(rows[some]))
    read.sync()
    assert np.array_equal(streams.state()[rows], plain.state()[rows])
    others = np.setdiff1d(np.arange(50), rows)
    assert np.array_equal(streams.state()[others], RowStreams.from_seed(np.arange(50)).state()[others])


@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "santext"},
        {"mechanism": "santext+"},
        {"mechanism": "santext+", "p": "0.5"},
        {"mechanism": "tem", "gamma": "2"},
        {"mechanism": "tem", "gamma": "4.5"},
        {"mechanism": "tem"},
    ],
)
@pytest.mark.parametrize("model", ["golden", "synthetic"])
def test_reading_ahead_gives_the_rows_of_round_by_round(spec, model, monkeypatch, tmp_path):
    if model == "golden":
        path = GOLDEN / "model.dptext-model"
        lines = (GOLDEN / "rows.jsonl").read_text(encoding="ascii").splitlines()
        words = [w for line in lines for w in json.loads(line)["text"].split()]
    else:  # small neighbour tables: most targets lie outside, so rounds are rejected and a look can end open
        words, vectors = model_files.synthetic()
        path = model_files.write(tmp_path / "synthetic.dptext-model", words, vectors, {0: 12, 24: 12})
    rng = random.Random(54)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 400))) for _ in range(300)]
    key = SecretKey.parse((GOLDEN / "key.hex").read_text(encoding="ascii").strip(), "the golden files' test key")
    conf = spec | {"model": str(path), "idMode": "column"}
    ids = [str(i).encode() for i in range(len(texts))]

    def rows(ahead_rows: int, rounds: int, run: int = 8) -> list:
        monkeypatch.setattr(mechanisms, "_AHEAD_ROWS", ahead_rows)
        monkeypatch.setattr(mechanisms, "_AHEAD_ROUNDS", rounds)
        monkeypatch.setattr(mechanisms, "_EASY_RUN", run)
        return PythonSanitizer(EngineSettings.resolve(conf), key).sanitize(texts, ids)

    by_rounds = rows(0, 6)
    assert rows(10**9, 6) == by_rounds
    assert rows(10**9, 1) == by_rounds
    assert rows(40, 3) == by_rounds
    assert rows(10**9, 6, run=1) == by_rounds  # (TEM's run of tokens settled ahead of the look: one, or many)
    assert rows(10**9, 2, run=30) == by_rounds
