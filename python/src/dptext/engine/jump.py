"""Many consecutive outputs of each row's stream at once, by jumping ahead.

xoshiro256++'s state update is linear over GF(2): the state after n steps is Aⁿ·s for a fixed 256 x 256 bit
matrix A. A row's next N outputs can therefore be made as C = N / L chunks of L outputs each, every chunk
starting from A^(jL)·s, with all chunks of all rows stepped together: L sequential steps over R·C lanes instead
of N steps over R lanes. The embedding-noise mechanisms draw about 131 outputs per token (a Gamma variate and 100
normals by the polar method), so a long review needs over 100,000 consecutive outputs; this is what keeps the
Python engine's cost there proportional to the tokens, not to the longest row.

The outputs are the stream's, bit for bit: ``xoshiro.RowStreams`` makes every step here; only where each
chunk starts is computed by matrix powers, and ``test_randomness`` checks blocks against plain stepping.
"""

from __future__ import annotations

import threading

import numpy as np

from dptext.engine.xoshiro import RowStreams

_LOCK = threading.Lock()
_POWERS: list[np.ndarray] = []  # _POWERS[b] = A^(2^b), as float32 0/1 matrices (transposed for row vectors)
CHUNK = 1024


def _bits(states: np.ndarray) -> np.ndarray:
    """(K, 4) uint64 states -> (K, 256) float32 bits, bit i = word i // 64, bit i % 64."""
    raw = np.ascontiguousarray(states, dtype="<u8").view(np.uint8)
    return np.unpackbits(raw, axis=1, bitorder="little").astype(np.float32)


def _states(bits: np.ndarray) -> np.ndarray:
    packed = np.packbits(bits.astype(np.uint8), axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64)


def _power(b: int) -> np.ndarray:
    """A^(2^b) transposed (so that bits @ P is the state after 2^b steps), computed once per process."""
    with _LOCK:
        if not _POWERS:
            basis = np.zeros((256, 4), dtype=np.uint64)
            for i in range(256):
                basis[i, i // 64] = np.uint64(1) << np.uint64(i % 64)
            stepped = RowStreams(basis)
            stepped.next_long()
            # Row i of the transposed matrix is the image of basis vector i.
            _POWERS.append(_bits(stepped.state()))
        while len(_POWERS) <= b:
            p = _POWERS[-1]
            _POWERS.append(np.remainder(p @ p, 2.0).astype(np.float32))
        return _POWERS[b]


def jump(states: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Each state (K, 4) advanced by its own number of steps (K,), as that many ``next_long`` calls would."""
    steps = np.asarray(steps, dtype=np.int64)
    out = np.array(states, dtype=np.uint64, copy=True)
    if not len(out):
        return out
    bits = _bits(out)
    for b in range(int(steps.max()).bit_length()):
        lanes = np.flatnonzero((steps >> b) & 1)
        if lanes.size:
            bits[lanes] = np.remainder(bits[lanes] @ _power(b), 2.0)
    return _states(bits)


class Outputs:
    """The next ``n`` outputs of each of R streams, laid out chunk by chunk as they were stepped: ``at(r, p)`` is
    output p (0-based) of stream r. The streams themselves are not advanced."""

    def __init__(self, states: np.ndarray, n: int) -> None:
        states = np.asarray(states, dtype=np.uint64)
        self.rows = r = len(states)
        self.n = n = max(int(n), 1)
        self.length = length = CHUNK if n > CHUNK else n
        self.chunks = chunks = -(-n // length)
        # Chunk j of every stream starts A^(jL) further on: one matrix product per chunk, all streams at once.
        bits = _bits(states) if r else np.zeros((0, 256), np.float32)
        starts = [bits]
        if chunks > 1:
            power = _power(length.bit_length() - 1)  # CHUNK is a power of two
            for _ in range(1, chunks):
                bits = np.remainder(bits @ power, 2.0)
                starts.append(bits)
        lanes = RowStreams(_states(np.concatenate(starts)) if r else np.zeros((0, 4), np.uint64))
        self.block = np.empty((length, chunks * r), dtype=np.uint64)  # [step, chunk * R + stream]
        for i in range(length):
            self.block[i] = lanes.next_long()
        self._flat = self.block.reshape(-1)

    def at(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Output ``positions`` of streams ``rows`` (broadcast together); every position must be < n."""
        return self._flat[
            (positions % self.length) * (self.chunks * self.rows) + (positions // self.length) * self.rows + rows
        ]


def outputs(states: np.ndarray, n: int) -> np.ndarray:
    """The next ``n`` outputs (``next_long``) of each state (K, 4), shape (K, n); the states are not advanced."""
    block = Outputs(states, n)
    k = len(states)
    return block.at(np.arange(k)[:, None], np.arange(n)[None, :])
