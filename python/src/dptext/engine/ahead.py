"""A few rows' streams read ahead: each row's next outputs made in bulk, then read at any position.

The end of a batch leaves a few long texts drawing, one round per row per iteration, each iteration paying the
fixed cost of ~100 NumPy calls for a handful of rows. Reading these rows' streams ahead lets a sampler look at
several of a row's next rounds at once (``ExponentialNeighbourSampler.finish``). A row's outputs are made in
chunks of ``LENGTH`` steps that start ``LENGTH`` steps apart (``jump``: the state after n steps is a matrix power
applied to the state), all chunks of all rows stepped together; so ``LENGTH`` sequential steps make any number of
outputs. They are the stream's outputs, bit for bit (``RowStreams`` makes every step), and ``sync`` moves the rows'
streams exactly past the outputs used.
"""

from __future__ import annotations

import numpy as np

from dptext.engine import jump
from dptext.engine.xoshiro import RowStreams

LENGTH = 256  # steps per chunk (a power of two)


def _make(states: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At least ``counts[r]`` next outputs of each state: (outputs, first, ends): row r's are
    ``outputs[first[r]:first[r + 1]]`` and ``ends[r]`` is its state after them."""
    chunks = np.maximum(1, -(-np.asarray(counts, dtype=np.int64) // LENGTH))
    first_lane = np.concatenate([[0], np.cumsum(chunks)])
    bits = np.empty((int(first_lane[-1]), 256), dtype=np.float32)
    level = jump._bits(states)
    power = jump._power(LENGTH.bit_length() - 1)
    rows = np.arange(len(states))
    for j in range(int(chunks.max(initial=1))):
        if j:
            keep = chunks[rows] > j
            rows, level = rows[keep], level[keep]
            level = np.remainder(level @ power, 2.0).astype(np.float32)
        bits[first_lane[rows] + j] = level
    lanes = RowStreams(jump._states(bits))
    block = np.empty((LENGTH, len(bits)), dtype=np.uint64)
    for t in range(LENGTH):
        block[t] = lanes.next_long()
    ends = lanes.state()[first_lane[1:] - 1]
    return np.ascontiguousarray(block.T).reshape(-1), first_lane * LENGTH, ends


class Ahead:
    """The next outputs of ``rows`` of ``streams``, from where they are now. ``at[i]`` is the index in ``flat`` of
    row i's next unused output, ``end[i]`` the end of its outputs there; ``reserve`` makes more where needed."""

    def __init__(self, streams: RowStreams, rows: np.ndarray, counts: np.ndarray) -> None:
        self.streams = streams
        self.rows = rows
        self.origin = streams.state()[rows]
        self.flat, first, self.ends = _make(self.origin, counts)
        self.at = first[:-1].copy()
        self.end = first[1:].copy()
        self.shift = self.at.copy()  # position in the row's stream = at - shift

    def reserve(self, i: np.ndarray, needed: int) -> None:
        """At least ``needed`` unused outputs for rows ``i`` (positions in ``rows``)."""
        short = i[self.end[i] - self.at[i] < needed]
        if not short.size:
            return
        more, first, ends = _make(self.ends[short], np.full(len(short), max(needed, LENGTH)))
        pieces = [self.flat]
        start = len(self.flat)
        for k, r in enumerate(short.tolist()):
            rest = self.flat[self.at[r] : self.end[r]]
            joined = np.concatenate([rest, more[first[k] : first[k + 1]]])
            pieces.append(joined)
            self.shift[r] += start - self.at[r]
            self.at[r] = start
            start += len(joined)
            self.end[r] = start
        self.ends[short] = ends
        self.flat = np.concatenate(pieces)

    def sync(self) -> None:
        """Moves the rows' streams past the outputs used, exactly."""
        self.streams.resume(self.rows, jump.jump(self.origin, self.at - self.shift))


class AheadStreams(RowStreams):
    """``RowStreams`` for rows (positions in ``ahead.rows``) that reads their outputs from ``ahead``: the draws of
    any method (next_uniform, next_int, ...) are the stream's, as the rows' streams would make them."""

    __slots__ = ("ahead",)

    def __init__(self, ahead: Ahead) -> None:
        self.ahead = ahead

    def __len__(self) -> int:
        return len(self.ahead.rows)

    def next_long(self, rows=None) -> np.ndarray:
        a = self.ahead
        i = np.arange(len(a.rows)) if rows is None else np.asarray(rows, dtype=np.int64)
        a.reserve(i, 1)
        out = a.flat[a.at[i]]
        a.at[i] += 1
        return out
