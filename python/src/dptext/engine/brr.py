"""BRR (``BrrMechanism.java``) in the Python engine: the JVM's codes, flips and Hamming-nearest words, exactly.

docs/engine-spec.md specifies every step; in short:

- **Codes** (``BinaryCodes.of``): ``bits`` random hyperplanes, standard normals by Box-Muller (fdlibm's log,
  cos and sin, as the JVM's ``StrictMath``) from ``RandomStream.fromSeed(0x5eedb1c0de5)``; bit b of word y is
  [Σ_d plane_b[d]·(v_y[d] - μ[d]) ≥ 0], summed d = 0, 1, … in double (μ the vocabulary's mean, summed word by
  word). Here the dot products come from one matrix product (BLAS, any order), and only the products whose
  magnitude is within a rigorous rounding-error bound of 0 — where the order could flip the sign — are
  recomputed in the JVM's order. So the bits are the JVM's whatever BLAS does.
- **Flips** (``BrrMechanism.flip``/``bernoulliMask``): per token, per 64-bit lane, nextLong draws compared
  digit by digit with the binary expansion of p = 1/(1 + e^ε) until every lane is decided.
- **Nearest word** (``NearestCodes``): least Hamming distance, ties to the lower rank — the answer of a plain
  scan. Here the input word x is the answer outright when every other word is more than 2b from it (b the
  query's distance to x; the triangle inequality), which each word's floor (its distance to its nearest other
  word, computed once) decides; else a multi-index over 16-bit chunks finds it when b is small (a word within
  b agrees with the query within r_j bits on some chunk j, Σ(r_j + 1) = b + 1), else a blocked scan.
"""

from __future__ import annotations

import hashlib
import math
import threading
import weakref

import numpy as np

from dptext import options
from dptext.engine import distances as machine_cache
from dptext.engine import fdlibm, jump, xoshiro
from dptext.engine.mechanisms import Mechanism
from dptext.engine.model import Model
from dptext.engine.xoshiro import RowStreams

DEFAULT_SEED = 0x5EED_B1C0_DE5  # BinaryCodes.DEFAULT_SEED
CHUNK_BITS = 16
_MAX_CHUNK_RADIUS = 2
_PROBE_BLOCK = 4096
_PROBE_VALUES = 1 << 22  # at most this many (query, chunk value) probes in one block: bounded memory at 4096 bits
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_17, _19, _23, _41, _45 = (np.uint64(v) for v in (17, 19, 23, 41, 45))
_M64 = (1 << 64) - 1

if hasattr(np, "bitwise_count"):  # NumPy >= 2.0

    def popcount(x: np.ndarray) -> np.ndarray:
        """Set bits of each uint64, as uint8."""
        return np.bitwise_count(x)

else:  # pragma: no cover - NumPy 1.x
    _BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def popcount(x: np.ndarray) -> np.ndarray:
        """Set bits of each uint64, as uint8 (a byte table)."""
        x = np.ascontiguousarray(x, dtype=np.uint64)
        return _BYTE_COUNTS[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1, dtype=np.uint8)


def _popcount_into(x: np.ndarray, out: np.ndarray) -> None:
    if hasattr(np, "bitwise_count"):
        np.bitwise_count(x, out=out)
    else:  # pragma: no cover - NumPy 1.x
        out[...] = popcount(x)


def seed_longs(seed: int, count: int) -> np.ndarray:
    """The first ``count`` nextLong() of RandomStream.fromSeed(seed), as uint64 (read in bulk: ``jump.outputs``)."""
    start = RowStreams.from_seed(np.array([seed], dtype=np.int64)).state()
    return jump.outputs(start, count)[0]


def hyperplanes(bits: int, dim: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """``BinaryCodes.of``'s planes, shape (bits, dim): Box-Muller pairs from the seeded stream, u1 = 1 - nextDouble,
    u2 = nextDouble, planes[i] = √(-2·log u1)·cos(2π·u2), planes[i+1] = …·sin(2π·u2), row-major."""
    count = bits * dim
    pairs = (count + 1) // 2
    draws = seed_longs(seed, 2 * pairs)
    doubles = (draws >> np.uint64(11)).astype(np.float64) * 2.0**-53
    u1 = 1.0 - doubles[0::2]
    u2 = doubles[1::2]
    rad = np.sqrt(-2.0 * fdlibm.log(u1))
    angle = (2.0 * math.pi) * u2
    planes = np.empty(2 * pairs, dtype=np.float64)
    planes[0::2] = rad * fdlibm.cos(angle)
    planes[1::2] = rad * fdlibm.sin(angle)
    return planes[:count].reshape(bits, dim)


def vocabulary_mean(vectors: np.ndarray) -> np.ndarray:
    """``Embeddings.mean``: per component, the float32 values added word by word into a double, then / n."""
    n, m = vectors.shape
    acc = np.zeros(m, dtype=np.float64)
    for start in range(0, n, 4096):
        block = vectors[start : start + 4096].astype(np.float64)
        block[0] += acc  # acc + v: the same bits as v + acc
        acc = np.add.accumulate(block, axis=0)[-1]  # accumulate is sequential along the axis
    return acc / n


def code_bits(vectors: np.ndarray, bits: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Bit b of word y, as bool (n, bits): [Σ_d plane_b[d]·(v_y[d] - μ[d]) ≥ 0] with the JVM's summation order.

    The products come from BLAS; |computed - exact| ≤ gamma_m·Σ|p_d·c_d| ≤ gamma_m·‖p‖·‖c‖ (gamma_m = m·u/(1 - m·u),
    u = 2⁻⁵³) for any summation order, the JVM's included, so where |BLAS| exceeds twice that (with a margin)
    both have the exact sign, which is nonzero. The rest are summed d = 0, 1, … as the JVM does."""
    n, m = vectors.shape
    planes = hyperplanes(bits, m, seed)
    mean = vocabulary_mean(vectors)
    plane_norms = np.sqrt(np.einsum("ij,ij->i", planes, planes))
    slack = 8.0 * (m + 2) * 2.0**-53  # ≥ 4·gamma_m: twice the two-sided bound, with room for the norms' own error
    out = np.empty((n, bits), dtype=bool)
    block = max(1, (1 << 22) // max(1, bits))
    for start in range(0, n, block):
        c = vectors[start : start + block].astype(np.float64)
        c -= mean
        dots = c @ planes.T
        bound = (slack * np.sqrt(np.einsum("ij,ij->i", c, c)))[:, None] * plane_norms[None, :] + 1e-300
        bit = dots >= 0
        unsure = np.abs(dots) <= bound
        if unsure.any():
            ys, bs = np.nonzero(unsure)
            acc = np.zeros(len(ys), dtype=np.float64)
            cy = c[ys]
            pb = planes[bs]
            for d in range(m):
                acc += pb[:, d] * cy[:, d]  # rounded product, then rounded sum: Java's dot += p * c
            bit[ys, bs] = acc >= 0
        out[start : start + block] = bit
    return out


def pack(bits_array: np.ndarray) -> np.ndarray:
    """Bool (n, bits) → uint64 (n, ⌈bits/64⌉): bit b in long b >> 6 at position b & 63, as BinaryCodes packs."""
    n, bits = bits_array.shape
    longs = (bits + 63) // 64
    padded = np.zeros((n, longs * 64), dtype=bool)
    padded[:, :bits] = bits_array
    packed = np.packbits(padded, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64).reshape(n, longs)


class Codes:
    """A vocabulary's n-bit codes (``BinaryCodes``), and its exact Hamming nearest-word search (``NearestCodes``)."""

    def __init__(self, codes: np.ndarray, bits: int) -> None:
        self.bits = bits
        self.longs = (bits + 63) // 64
        self.codes = np.ascontiguousarray(codes, dtype=np.uint64)
        self.size = len(codes)
        self.lanes = np.ascontiguousarray(self.codes.T)  # (longs, n): one lane of every word, contiguous
        self.chunks = (bits + CHUNK_BITS - 1) // CHUNK_BITS
        self._index = None
        self._floors = None
        self._floor_caps = None  # per word, the cap its floor was computed at (0: not yet)
        self._lock = threading.RLock()  # floors() builds the index under it

    @classmethod
    def of(cls, vectors: np.ndarray, bits: int, seed: int = DEFAULT_SEED) -> Codes:
        if not 1 <= bits <= 4096:
            raise options._failure("bits", "in [1, 4096]", bits, None)
        return cls(pack(code_bits(vectors, bits, seed)), bits)

    def distances(self, queries: np.ndarray, words: np.ndarray) -> np.ndarray:
        """d_H(queries[i], code of words[i]) for each i, as int64."""
        d = np.zeros(len(words), dtype=np.int64)
        for k in range(self.longs):
            d += popcount(queries[:, k] ^ self.lanes[k][words])
        return d

    def _chunk_values(self, codes: np.ndarray, j: int) -> np.ndarray:
        bit = j * CHUNK_BITS
        return ((codes[:, bit >> 6] >> np.uint64(bit & 63)) & np.uint64(0xFFFF)).astype(np.int64)

    def index(self):
        """Per 16-bit chunk j: the words sorted by their chunk value (rank order within a value) and each
        value's start in that list (``NearestCodes.ChunkIndex``)."""
        with self._lock:
            if self._index is None:
                words, starts = [], []
                for j in range(self.chunks):
                    values = self._chunk_values(self.codes, j)
                    words.append(np.argsort(values, kind="stable").astype(np.int64))
                    starts.append(np.concatenate([[0], np.cumsum(np.bincount(values, minlength=1 << CHUNK_BITS))]))
                self._index = (words, starts)
            return self._index

    def nearest(self, queries: np.ndarray, hints: np.ndarray) -> np.ndarray:
        """For each query code, the word of least Hamming distance, ties to the lower rank (exact)."""
        out = np.empty(len(queries), dtype=np.int64)
        if len(queries) == 0:
            return out
        bound = self.distances(queries, hints)
        # The input word x wins outright when every other word is farther from it than twice the query's
        # distance b to it: then d(q, y) >= d(x, y) - b > b (triangle inequality). At the defaults (epsilon 3,
        # 256 bits) that is nearly every token -- the default model's words are >= 84 bits apart at the 1st
        # percentile, queries ~12 from their word -- and costs one comparison with x's floor (``floors``)
        # where a probe cost ~2 us.
        pending = np.ones(len(queries), dtype=bool)
        maybe = np.flatnonzero(2 * bound < self.floor_cap)
        if maybe.size:
            sure = maybe[self.floors(hints[maybe], 2 * bound[maybe]) > 2 * bound[maybe]]
            out[sure] = hints[sure]
            pending[sure] = False
        probed = pending & (bound <= self.chunks * (_MAX_CHUNK_RADIUS + 1) - 1)
        if probed.any():
            i = np.flatnonzero(probed)
            step = self._block(_PROBE_BLOCK)
            for start in range(0, len(i), step):  # blocks: the candidate lists stay in cache
                b = i[start : start + step]
                out[b] = self._probe(queries[b], hints[b], bound[b])
        scanned = pending & ~probed
        if scanned.any():
            i = np.flatnonzero(scanned)
            out[i] = self._scan(queries[i])
        return out

    def _block(self, most: int) -> int:
        """Queries per multi-index block: at most ``most``, and at most ``_PROBE_VALUES`` probed values in all
        (each query probes up to 1 + w + w(w-1)/2 values in each of the c chunks, w = 16)."""
        per_query = self.chunks * (1 + CHUNK_BITS + CHUNK_BITS * (CHUNK_BITS - 1) // 2)
        return max(1, min(most, _PROBE_VALUES // per_query))

    @property
    def floor_cap(self) -> int:
        """The largest floor ``floors`` reports: 3c, c the number of 16-bit chunks."""
        return self.chunks * (_MAX_CHUNK_RADIUS + 1)

    def floors(self, ranks: np.ndarray, need: np.ndarray | None = None) -> np.ndarray:
        """For each word, min(distance to its nearest other word, cap), exact below the cap. The cap is 3c (c the
        number of 16-bit chunks) where ``need`` is None or the word's ``need`` is at least 2c, else 2c or 3c: so
        ``floors(ranks, need) > need`` exactly when min(floor, 3c) > need. Exact below a cap C since the
        multi-index at bound C - 1 lists every word within C - 1 of the word (each chunk probed at radius 1 for
        2c, 2 for 3c: ~8x fewer probes at 2c, and most words' floors are above 2c). Computed once per word and
        cap, when first asked for."""
        ranks = np.asarray(ranks, dtype=np.int64)
        with self._lock:
            low, high = 2 * self.chunks, self.floor_cap
            if self._floors is None:
                self._floors = np.full(self.size, -1, dtype=np.int64)
                self._floor_caps = np.zeros(self.size, dtype=np.int64)
                mapped = self._machine_floors()
                if mapped is not None:
                    self._floors[:] = mapped
                    self._floor_caps[:] = high
            values, caps = self._floors, self._floor_caps
            self._compute_floors(ranks[caps[ranks] == 0], low)
            wants_high = True if need is None else np.asarray(need) >= low
            # A value below its cap is exact; one at the 2c cap only says the floor is at least 2c.
            self._compute_floors(ranks[wants_high & (values[ranks] == caps[ranks]) & (caps[ranks] < high)], high)
            return values[ranks]

    def _machine_floors(self) -> np.ndarray | None:
        """Every word's floor at the 3c cap from the machine's cache (``engine.distances``: keyed by the codes,
        written atomically, checked), computed whole and written by the first process on a machine to need them
        (~2 s on the default model at 256 bits) so that later workers' first batches compute none; None where no
        cache directory can be written or used. The wheel ships the default model's at the default bits
        (``engine.prebuilt``): no machine computes those."""
        found = machine_cache.once_per_machine(
            "floors", self.floors_key(), self.size, self._floors_as_computed, self.all_floors
        )
        return None if found is None else np.asarray(found).astype(np.int64)

    def floors_key(self) -> bytes:
        """What the floors depend on: the codes, their number of bits and the cap (and this version's way)."""
        h = hashlib.sha256(f"dptext-floors/1/{self.bits}/{self.floor_cap}/".encode())
        h.update(np.ascontiguousarray(self.codes, dtype="<u8").tobytes())
        return h.digest()

    def all_floors(self) -> np.ndarray:
        """Every word's floor at the 3c cap, as doubles (the cache's format)."""
        return self._scanned_floors(np.arange(self.size)).astype(np.float64)

    def _floors_as_computed(self, found: np.ndarray) -> bool:
        """Whether the floors of words spread over the vocabulary are the ones a scan gives here."""
        ys = np.unique(np.linspace(0, self.size - 1, 16).astype(np.int64))
        return bool(np.array_equal(np.asarray(found[ys]), self._scanned_floors(ys).astype(np.float64)))

    def _scanned_floors(self, ys: np.ndarray) -> np.ndarray:
        """min(distance to the nearest other word, 3c) of each of ``ys`` (distinct), by a scan of every code."""
        out = np.empty(len(ys), dtype=np.int64)
        for start, acc in self._scanned(self.codes[ys]):
            y = ys[start : start + len(acc)]
            acc[np.arange(len(y)), y] = np.iinfo(acc.dtype).max  # (not the word itself)
            out[start : start + len(y)] = np.minimum(acc.min(axis=1), self.floor_cap)
        return out

    def _compute_floors(self, ranks: np.ndarray, cap: int) -> None:
        todo = np.unique(ranks)
        if cap > 2 * self.chunks:
            # Radius 2 in every chunk probes ~2,200 values a word and lists thousands of candidates: a scan of
            # every word costs about half as much.
            if cap != self.floor_cap:
                raise AssertionError(f"floors are computed at 2c or 3c, not {cap}")
            self._floors[todo] = self._scanned_floors(todo)
            self._floor_caps[todo] = cap
            return
        step = self._block(_PROBE_BLOCK)
        for start in range(0, len(todo), step):
            y = todo[start : start + step]
            best = np.full(len(y), cap, dtype=np.int64)
            q, other = self._candidates(self.codes[y], np.full(len(y), cap - 1, dtype=np.int64))
            keep = other != y[q]
            q, other = q[keep], other[keep]
            if q.size:
                np.minimum.at(best, q, np.minimum(self.distances(self.codes[y[q]], other), cap))
            self._floors[y] = best
            self._floor_caps[y] = cap

    def _candidates(self, queries: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query, word) pairs that include every word within ``bound`` of each query (and others).

        Radii r_j with sum_j (r_j + 1) = b + 1 (chunks j < (b+1) mod c get floor((b+1)/c), the others one less;
        -1: not probed). A word y with d(q, y) <= b differs from q in at most r_j bits on some chunk j (else
        d >= sum (r_j + 1) > b), so probing every value within r_j of q's chunk j lists it."""
        words, starts = self.index()
        c = self.chunks
        s = bound + 1
        base, extra = s // c, s % c
        pair_q, pair_y = [], []
        for j in range(c):
            radius = np.where(j < extra, base, base - 1)
            width = min(CHUNK_BITS, self.bits - j * CHUNK_BITS)
            value = self._chunk_values(queries, j)
            for r in range(_MAX_CHUNK_RADIUS + 1):
                qs = np.flatnonzero(radius >= r)
                if qs.size == 0:
                    break
                masks = _masks(width, r)
                v = (value[qs][:, None] ^ masks[None, :]).ravel()
                q = np.repeat(qs, len(masks))
                lo = starts[j][v]
                length = starts[j][v + 1] - lo
                keep = length > 0
                if not keep.any():
                    continue
                q, lo, length = q[keep], lo[keep], length[keep]
                total = int(length.sum())
                offsets = np.cumsum(length) - length
                positions = np.arange(total, dtype=np.int64) - np.repeat(offsets - lo, length)
                pair_q.append(np.repeat(q, length))
                pair_y.append(words[j][positions])
        if not pair_q:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        return np.concatenate(pair_q), np.concatenate(pair_y)

    def _probe(self, queries: np.ndarray, hints: np.ndarray, bound: np.ndarray) -> np.ndarray:
        """Multi-index search (``_candidates`` at the hint's distance b): every word that can beat or tie the
        hint is listed, so the least (distance, rank) among them and the hint is the answer."""
        n = self.size
        best = bound * n + hints  # (distance, rank) as one integer
        q, y = self._candidates(queries, bound)
        if q.size:
            other = y != hints[q]  # the hint is in ``best`` already (and in most of its query's buckets)
            q, y = q[other], y[other]
            d = self.distances(queries[q], y)
            np.minimum.at(best, q, d * n + y)
        return best % n

    def _scan(self, queries: np.ndarray) -> np.ndarray:
        """Every word's distance, the first least (lowest rank): a plain scan (argmin returns the first least)."""
        out = np.empty(len(queries), dtype=np.int64)
        for start, acc in self._scanned(queries):
            out[start : start + len(acc)] = np.argmin(acc, axis=1)
        return out

    def _scanned(self, queries: np.ndarray):
        """Every word's distance to each query, a few queries at a time (their buffers stay in cache): yields
        (the block's first query, its (queries, words) distances), valid until the next block."""
        n = self.size
        if len(queries) == 0:
            return
        block = min(len(queries), max(1, (1 << 18) // max(1, n)))
        xor = np.empty((block, n), dtype=np.uint64)
        count = np.empty((block, n), dtype=np.uint8)
        acc = np.empty((block, n), dtype=np.uint16) if self.longs > 1 else count
        for start in range(0, len(queries), block):
            q = queries[start : start + block]
            t = len(q)
            for k in range(self.longs):
                np.bitwise_xor(q[:, k, None], self.lanes[k][None, :], out=xor[:t])
                if self.longs == 1:
                    _popcount_into(xor[:t], count[:t])
                elif k == 0:
                    _popcount_into(xor[:t], count[:t])
                    acc[:t] = count[:t]
                else:
                    _popcount_into(xor[:t], count[:t])
                    acc[:t] += count[:t]
            yield start, acc[:t]


_MASK_CACHE: dict[tuple[int, int], np.ndarray] = {}


def _masks(width: int, r: int) -> np.ndarray:
    """The values of ``width`` bits with exactly r bits set (r ≤ 2)."""
    found = _MASK_CACHE.get((width, r))
    if found is None:
        if r == 0:
            found = np.zeros(1, dtype=np.int64)
        elif r == 1:
            found = np.int64(1) << np.arange(width, dtype=np.int64)
        else:
            a, b = np.triu_indices(width, 1)
            found = (np.int64(1) << a.astype(np.int64)) | (np.int64(1) << b.astype(np.int64))
        _MASK_CACHE[(width, r)] = found
    return found


_CODES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CODES_LOCK = threading.Lock()


def codes_for(model: Model, bits: int) -> Codes:
    """The model's codes at ``bits`` (``DpTextModel.binaryCodes``), computed once per process."""
    with _CODES_LOCK:
        per_model = _CODES.setdefault(model, {})
        found = per_model.get(bits)
        if found is None:
            found = Codes.of(model.vectors, bits)
            per_model[bits] = found
    return found


def binary_digits(p: float) -> np.ndarray:
    """``BrrMechanism.binaryDigits``: the binary expansion of p ∈ [0, 1), digit k the coefficient of 2^-(k+1)."""
    if not 0 <= p < 1:  # p = 1/(1 + e^ε) of a checked ε: in (0, 1/2), whatever the settings
        raise AssertionError(f"p must be in [0, 1), got {p}")
    digits = []
    x = p
    while x != 0:
        x *= 2
        digits.append(x >= 1)
        if x >= 1:
            x -= 1
    return np.array(digits, dtype=bool)


class Brr(Mechanism):
    """BRR: each token's code with each bit flipped with probability 1/(1 + e^ε), then the Hamming-nearest word."""

    name = "brr"
    output_start = 0

    def __init__(self, model: Model, epsilon: float, bits: int) -> None:
        epsilon = float(epsilon)
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise options._failure("epsilon", "a positive finite number", epsilon, None)
        self.model = model
        self.epsilon = epsilon
        self.bits = int(bits)
        self.codes = codes_for(model, self.bits)
        self.flip_probability = 1.0 / (1.0 + float(fdlibm.exp(np.float64(epsilon))))
        digits = binary_digits(self.flip_probability)
        self.digit_masks = np.where(digits, _ALL, np.uint64(0)).astype(np.uint64)
        tail = self.bits % 64
        self.last_lane = np.uint64((1 << tail) - 1) if tail else _ALL

    def sanitize_rows(self, streams, ranks: np.ndarray, first: np.ndarray) -> np.ndarray:
        """Every token's code flipped (row by row, tokens in text order, lanes in order: ``BrrMechanism.sanitize``
        draws nothing else), then all the nearest words at once."""
        ranks = np.asarray(ranks, dtype=np.int64)
        if len(ranks) == 0:
            return np.empty(0, dtype=np.int64)
        queries = self.codes.codes[ranks] ^ self.flip_masks(streams, first)
        return self.codes.nearest(queries, ranks)

    def flip_masks(self, streams, first: np.ndarray) -> np.ndarray:
        """(tokens, longs) uint64: ``bernoulliMask`` for each token's lanes, each row's from its own stream.

        A row's masks are drawn one after another (token by token, lane by lane), each from nextLong draws until
        every one of its 64 lanes is decided or p's digits run out; all the rows advance together, one draw per
        iteration, each row on its current mask."""
        first = np.asarray(first, dtype=np.int64)
        longs = self.codes.longs
        total = int(first[-1]) * longs
        out = np.zeros(total, dtype=np.uint64)
        digits = self.digit_masks
        ndigits = len(digits)
        if ndigits and total:
            rows = np.flatnonzero(np.diff(first) > 0)
            _lockstep_masks(streams, rows, first[rows] * longs, first[rows + 1] * longs, digits, out)
        out = out.reshape(-1, longs)
        if self.last_lane != _ALL:
            out[:, -1] &= self.last_lane
        return out


def _lockstep_masks(streams, rows, job, end, digits, out) -> None:
    """Masks job[i] .. end[i] - 1 of ``out`` from the streams of ``rows`` (distinct, each with a mask at least):
    all the rows advance together, one draw per iteration, each row on its current mask.

    With fewer than 64 digits (p >= 2^-11: epsilon up to ~7.6), a row's next digits are one word, ``todo``:
    digit j of the mask's draw t at bit j - t and a sentinel bit at nd - t, shifted once per draw, so the digit
    is its low bit and the digits have run out when it is 1. That replaces a gather of digits[t] per draw (the
    loop's costliest step) with a shift; the draws and masks are the same."""
    ndigits = len(digits)
    job = np.array(job, dtype=np.int64)
    end = np.array(end, dtype=np.int64)
    sub = _Substreams(streams, np.asarray(rows, dtype=np.int64))
    undecided = np.full(len(job), _ALL, dtype=np.uint64)
    ones = np.zeros(len(job), dtype=np.uint64)
    shift = ndigits < 64
    if shift:
        pattern = np.uint64(sum(1 << j for j in range(ndigits) if digits[j]) | (1 << ndigits))
        k = np.full(len(job), pattern, dtype=np.uint64)  # ``todo``
    else:
        k = np.zeros(len(job), dtype=np.int64)  # draws made of the current mask
    while len(job):
        if len(job) <= _PYTHON_TAIL:
            if shift:  # the draws made: the sentinel's shift
                k = ndigits + 1 - (64 - xoshiro._leading_zeros(k))
            _finish(sub, job, end, undecided, ones, k, digits != 0, out)
            break
        u = sub.next_long()
        if shift:
            m = np.bitwise_and(k, _ONE, out=sub.t)
            np.negative(m, out=m)  # the digit as a mask: 0 or all ones
            x = np.bitwise_xor(u, m, out=u)
            x &= undecided  # the lanes this draw decides (their bit differs from the digit) ...
            m &= x  # ... and those it decides to 1 (digit 1, bit 0)
            ones |= m
            undecided ^= x
            k >>= _ONE
            done = np.equal(undecided, 0, out=sub.done)
            done |= np.equal(k, _ONE, out=sub.spent)
            f = np.flatnonzero(done)
        else:
            m = digits[k]
            ones |= undecided & ~u & m
            undecided &= ~(u ^ m)
            k += 1
            f = np.flatnonzero((undecided == 0) | (k == ndigits))
        if f.size:
            out[job[f]] = ones[f]
            job[f] += 1
            undecided[f] = _ALL
            ones[f] = 0
            k[f] = pattern if shift else 0
            live = job < end
            if not live[f].all():
                keep = np.flatnonzero(live)
                sub.keep(keep)
                job, end, undecided, ones, k = job[keep], end[keep], undecided[keep], ones[keep], k[keep]
    sub.close()


# Below this many rows left, a row's remaining masks are drawn in plain Python: one NumPy iteration costs about
# as much as 15 Python draws, and the last rows of a batch (its longest texts) would otherwise take an
# iteration per draw each.
_PYTHON_TAIL = 12


def _finish(sub, job, end, undecided, ones, k, digits, out) -> None:
    """``flip_masks``' loop for each remaining row alone, on Python ints (the same draws and masks)."""
    digits = [bool(d) for d in digits]
    nd = len(digits)
    m = _M64
    for i in range(len(job)):
        s0, s1, s2, s3 = (int(w[i]) for w in sub.s)
        j, e = int(job[i]), int(end[i])
        und, on, kk = int(undecided[i]), int(ones[i]), int(k[i])
        masks = []
        while len(masks) < e - j:
            a = (s0 + s3) & m
            u = ((((a << 23) | (a >> 41)) & m) + s0) & m
            t = (s1 << 17) & m
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = ((s3 << 45) | (s3 >> 19)) & m
            if digits[kk]:
                on |= und & ~u
                und &= u
            else:
                und &= ~u
            kk += 1
            if und == 0 or kk == nd:
                masks.append(on)
                und, on, kk = m, 0, 0
        out[j:e] = np.array(masks, dtype=np.uint64)
        for w, value in zip(sub.s, (s0, s1, s2, s3), strict=True):
            w[i] = value
    sub.close()


class _Substreams:
    """A compact copy of some rows' streams, advanced without gathering and scattering the state on every draw;
    rows dropped (``keep``) and, at the end, every row, write their state back to the batch's streams."""

    def __init__(self, streams, rows: np.ndarray) -> None:
        self.parent = streams
        self.rows = rows
        self.s = [streams.s0[rows], streams.s1[rows], streams.s2[rows], streams.s3[rows]]
        self._scratch()

    def _scratch(self) -> None:
        # next_long works in place in these (no allocation per draw); its result is ``out``, valid until the next.
        n = len(self.rows)
        self.a, self.out, self.t = (np.empty(n, dtype=np.uint64) for _ in range(3))
        self.done, self.spent = np.empty(n, dtype=bool), np.empty(n, dtype=bool)

    def next_long(self) -> np.ndarray:
        s0, s1, s2, s3 = self.s
        a, out, t = self.a, self.out, self.t
        np.add(s0, s3, out=a)  # result = rotl(s0 + s3, 23) + s0
        np.left_shift(a, _23, out=out)
        a >>= _41
        out |= a
        out += s0
        np.left_shift(s1, _17, out=t)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        np.left_shift(s3, _45, out=a)  # s3 = rotl(s3, 45)
        s3 >>= _19
        s3 |= a
        return out

    def _write_back(self) -> None:
        p = self.parent
        p.s0[self.rows], p.s1[self.rows], p.s2[self.rows], p.s3[self.rows] = self.s

    def keep(self, positions: np.ndarray) -> None:
        self._write_back()
        self.rows = self.rows[positions]
        self.s = [w[positions] for w in self.s]
        self._scratch()

    def close(self) -> None:
        self._write_back()
