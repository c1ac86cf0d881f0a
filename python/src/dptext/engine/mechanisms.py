"""The word mechanisms of the Python engine: the JVM's samplers, draw for draw.

Each sampler here makes, for every token, exactly the draws its Java counterpart makes (same calls on
the row's xoshiro256++ stream, in the same order) and decides with exactly the same numbers: its tables
are computed from the model file's float32 vectors with the JVM's summation order
(``squared_distances``) and fdlibm's exp/log/log1p/expm1/tanh (the JVM uses ``StrictMath`` on these
paths). So the same key, id, settings and model give the same output word, not a similar one.

Samplers work on many rows at once: ``sample(streams, rows, words)`` draws the output for one token of
each row in ``rows`` (distinct), advancing those rows' streams only. A rejection loop keeps drawing for
the rows whose proposal was rejected, and only for them, so each row's stream sees the sequence of calls
the JVM makes for that row.

The mechanisms that add noise to embeddings (laplace, mahalanobis, vickrey, vickrey-topk) are in ``noise``, BRR
in ``brr``; each is written down draw by draw in docs/ (engine-spec.md).
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_FLOOR, Decimal

import numpy as np

from dptext.engine import ahead, fdlibm
from dptext.engine import distances as distance_cache
from dptext.engine.model import Model, NeighbourTable
from dptext.engine.xoshiro import _LN_2, _LOG_SCALES, _POWERS_OF_TWO, _TOP_ZEROS, RowStreams
from dptext.errors import DpTextError

SUPPORTED = (
    "santext",
    "santext+",
    "tem",
    "custext",
    "custext+",
    "1-diffractor",
    "laplace",
    "mahalanobis",
    "vickrey",
    "vickrey-topk",
    "brr",
)

_PAIRS_PER_CHUNK = 1 << 12
_FEW_PAIRS = 512
_ENTRIES_PER_BLOCK = 1 << 15


def squared_distances(vectors: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d²(a_i, b_i) for each pair, in the JVM's order (``Embeddings.squaredDistance``): four running sums
    over k ≡ 0, 1, 2, 3 (mod 4), the tail into the first, then (s0 + s1) + (s2 + s3). Each sum is added
    term by term, never pairwise, so the bits are the JVM's. ``vectors``: the model's float32 vectors (rows
    gathered in a third of the time) or their float64 copy; the differences are taken in double either way."""
    out = np.empty(len(a), dtype=np.float64)
    for start in range(0, len(a), _PAIRS_PER_CHUNK):
        end = min(len(a), start + _PAIRS_PER_CHUNK)
        if end - start <= _FEW_PAIRS:
            d = vectors[a[start:end]].astype(np.float64)
            d -= vectors[b[start:end]]
            out[start:end] = _summed_squares(d)
        else:  # one column per pair: the running sums add whole rows
            d = np.empty((vectors.shape[1], end - start))
            a_rows, b_rows = vectors.take(a[start:end], axis=0), vectors.take(b[start:end], axis=0)
            np.subtract(a_rows.T, b_rows.T, out=d, dtype=np.float64)  # (dtype: float32 vectors subtract in double)
            out[start:end] = _summed_square_columns(d)
    return out


def squared_distance_below(model: Model, a: np.ndarray, b: np.ndarray, limit: np.ndarray, exact=None) -> np.ndarray:
    """Whether d²(a_i, b_i) < limit_i, d² exactly as ``squared_distances`` computes it: decided by a float32
    screen where it cannot differ, exactly for the rest.

    The screen (float32 differences and any summation order) and the JVM's sum are both within a relative
    (m + 3)·2^-24 of the real Σ (a_k - b_k)² of the float32 vectors (less than 1e-5 for m = 100); outside four
    times that margin of the limit both compare alike. Near the limit, or where the screen's squares could
    underflow or overflow (or a value is NaN), the exact double sum decides. Gathering float32 rows moves half
    the bytes of the double ones, and a dot product replaces the ordered sums: ~10x less per proposal.

    ``exact``, when given, maps positions to their exact limits: ``limit`` itself may then be off by a relative
    1e-9 (far inside the screen's margin), and only the pairs the screen leaves to the exact sum need the exact
    limit."""
    v = model.vectors
    d = v.take(a, axis=0)  # (take: rows gathered in ~half the time of v[a])
    d -= v.take(b, axis=0)
    approx = np.einsum("ij,ij->i", d, d).astype(np.float64)
    margin = 4.0 * (v.shape[1] + 3) * 2.0**-24
    with np.errstate(invalid="ignore", over="ignore"):
        below = approx < limit * (1.0 - margin)
        sure = below | (approx > limit * (1.0 + margin))
    unsure = np.flatnonzero(~sure | ~(approx >= _SCREEN_SMALLEST) | ~np.isfinite(approx))
    if unsure.size:
        exact_limit = limit[unsure] if exact is None else exact(unsure)
        below[unsure] = squared_distances(model.vectors, a[unsure], b[unsure]) < exact_limit
    return below


_THRESHOLD_MARGIN = 2.0**-30  # a threshold from NumPy's log decides where it is this far (relative) from the cap
_SCREEN_SMALLEST = 1e-30  # far above float32's subnormals (2^-126 ~ 1.2e-38): the relative bound holds


def _summed_squares(d: np.ndarray) -> np.ndarray:
    """Per row of differences, Σ d_k² in the JVM's order (see ``squared_distances``); may square ``d`` in place."""
    n, m = d.shape
    if n > _FEW_PAIRS:  # many pairs: one column each, whole rows added (``_summed_square_columns``)
        return _summed_square_columns(np.ascontiguousarray(d.T))
    full = (m // 4) * 4
    np.multiply(d, d, out=d)
    lanes = d[:, :full].reshape(n, full // 4, 4)
    # np.cumsum adds term by term along the axis (never pairwise, unlike np.sum): the last running sum of each
    # lane is the JVM's, in one NumPy call instead of one per group of four (a round's few pairs).
    s = np.cumsum(lanes, axis=1)[:, -1, :] if full else np.zeros((n, 4), dtype=np.float64)
    for k in range(full, m):
        s[:, 0] += d[:, k]
    return (s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])


def _summed_square_columns(d: np.ndarray) -> np.ndarray:
    """Per column of differences (``d``: dimensions x pairs, C-contiguous), Σ d_k² in the JVM's order (see
    ``squared_distances``); squares ``d`` in place. Row-major rows would add 4-wide strided lanes (~5x slower)."""
    m = d.shape[0]
    full = (m // 4) * 4
    np.multiply(d, d, out=d)
    if full:
        s = d[0:4].copy()
        for k in range(4, full, 4):
            s += d[k : k + 4]
    else:
        s = np.zeros((4, d.shape[1]), dtype=np.float64)
    for k in range(full, m):
        s[0] += d[k]
    return (s[0] + s[1]) + (s[2] + s[3])


def distances(vectors: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d(a_i, b_i) = sqrt(d²), as ``Embeddings.distance`` (sqrt is correctly rounded everywhere)."""
    return np.sqrt(squared_distances(vectors, a, b))


def pick_row(cumulative: np.ndarray, row_start: np.ndarray, row_length: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, the first index j of ``cumulative[start : start + length]`` whose value is > u (the last one
    when none is): ``ExponentialNeighbourSampler.pickExcess``'s binary search, all rows at once."""
    if len(u) <= _SCALAR_ROWS:
        # A few rows (the end of a batch, where the longest texts are still drawing): one np.searchsorted per row
        # costs less than the ~75 NumPy calls of the vectorised search. (Each row is non-decreasing, so every
        # binary search finds the same first entry > u; the last entry is taken when no other is.)
        return np.fromiter(
            (
                cumulative[start : start + length - 1].searchsorted(x, "right")
                for start, length, x in zip(row_start.tolist(), row_length.tolist(), u.tolist(), strict=True)
            ),
            dtype=np.int64,
            count=len(u),
        )
    # The count of entries <= u among the first length - 1 of the row (it is non-decreasing: they are a prefix), which
    # is the first index whose value is > u, or the last index. Counted from the highest power of two down: a step
    # is taken where the entry it ends on is <= u. 7 NumPy calls per halving instead of the bounds' 8.
    end = row_start + (row_length - 1)
    pos = row_start.astype(np.int64, copy=True)
    step = 1 << max(0, int(row_length.max(initial=1) - 1).bit_length() - 1)
    while step:
        at = pos + (step - 1)
        ok = cumulative.take(at, mode="clip") <= u  # (clip: a position past the row's prefix is not taken anyway)
        ok &= at < end
        pos += ok * step  # (a third less than np.add(..., where=ok))
        step >>= 1
    return pos - row_start


_SCALAR_ROWS = 64


def exceeds_vocabulary(mechanism: str, parameter: str, value: object, size: int) -> DpTextError:
    """A parameter the model's vocabulary cannot serve: the refusal the JVM's ``validate(spec, model)`` raises."""
    return DpTextError.of(
        "MECHANISM_PARAMETER_EXCEEDS_MODEL",
        mechanism=mechanism,
        parameter=parameter,
        value=value,
        what="vocabulary size",
        limit=size,
    )


class Mechanism:
    """A sampler: ``output_start`` (outputs lie in [output_start, |V|), and so do OOV replacements) and
    ``step``, one round of the JVM's draws for one token of each row given.

    A round either ends the token (``done``, with its output) or leaves it for another round (a rejected
    proposal, or SanText+'s kept-or-not draw before its first round). Rounds of different rows are
    independent, so a caller may interleave rows freely as long as each row's rounds come in order.
    """

    name: str
    output_start: int = 0

    def sanitize_rows(self, streams, ranks: np.ndarray, first: np.ndarray) -> np.ndarray | None:
        """The outputs of every token of the batch at once, or ``None`` to be driven round by round (``step``).

        Row r's tokens are ``ranks[first[r]:first[r + 1]]``, in text order, and their draws are row r's of
        ``streams``, in the JVM's order. Mechanisms whose JVM counterpart draws for all of a row's tokens before
        mapping any of them to a word (the embedding-noise mechanisms and BRR: noise for every token, then one
        search) answer here, and so does 1-Diffractor, whose draws never depend on an earlier token's word."""
        return None

    def prepare(self, words: np.ndarray) -> None:
        """Computes what the rounds for these input words need (tables computed on first use)."""

    def step(self, streams, rows: np.ndarray, words: np.ndarray, fresh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One round for the token ``words[i]`` of row ``rows[i]`` (``fresh[i]``: its first round): returns
        ``(done, outputs)``; ``outputs[i]`` is meaningful where ``done[i]``."""
        raise NotImplementedError

    def sample(self, streams, rows: np.ndarray, words: np.ndarray) -> np.ndarray:
        """The output for one token of each row: rounds until every row's token is done."""
        self.prepare(words)
        out = np.empty(len(rows), dtype=np.int64)
        pending = np.arange(len(rows))
        fresh = np.ones(len(rows), dtype=bool)
        while pending.size:
            done, y = self.step(streams, rows[pending], words[pending], fresh)
            out[pending[done]] = y[done]
            pending = pending[~done]
            fresh = np.zeros(len(pending), dtype=bool)
        return out


class ExponentialNeighbourSampler(Mechanism):
    """SanText's and TEM's exact exponential mechanism by rejection from a neighbour envelope
    (``ExponentialNeighbourSampler.java``): P(y | x) ∝ exp(-ε·min(d(x, y), gamma)/2) over the targets
    [target_start, |V|), gamma = +∞ for SanText. A word's envelope row is computed the first time a text uses it,
    or every row is mapped from the machine's cache (``_map_envelopes``)."""

    def __init__(self, model: Model, table: NeighbourTable, epsilon: float, cap: float = math.inf) -> None:
        self.model = model
        self.table = table
        self.epsilon = float(epsilon)
        self.cap = float(cap)
        self.target_start = table.target_start
        self.target_size = model.size - table.target_start
        self.offsets = table.offsets.astype(np.int64)
        self.lengths = np.diff(self.offsets)
        self.neighbours = table.neighbours
        self.bounds = np.minimum(table.outside_bounds, self.cap)
        self.cumulative = np.empty(len(table.neighbours), dtype=np.float64)
        self.p_uniform = np.empty(model.size, dtype=np.float64)
        self.ready = np.zeros(model.size, dtype=bool)
        self._lock = threading.Lock()
        self._distances = _UNSET  # the table's distances, shared (``table_distances``), once a text needs them

    def prepare(self, words: np.ndarray) -> None:
        """Computes the envelope rows of the words not computed yet (``envelope`` in Java), exactly; the first
        time, every row of this epsilon is mapped from the machine's cache instead where it holds them."""
        missing = np.unique(words[~self.ready[words]])
        if missing.size == 0:
            return
        with self._lock:
            missing = missing[~self.ready[missing]]
            if missing.size:
                if self._distances is _UNSET:
                    if self._map_envelopes():
                        return
                    self._distances = table_distances(self.model, self.table)
                self._envelopes(missing)
                self.ready[missing] = True

    def _map_envelopes(self) -> bool:
        """Every envelope row from the machine's cache (``engine.distances``): the first process on a machine to
        need this model, table, epsilon and cap computes them all and writes the file; every later one maps it
        (a later Python worker's first batch then computes no row). Whether the rows are mapped."""
        found = distance_cache.once_per_machine(
            "envelopes",
            _envelope_key(self.model, self.table, self.epsilon, self.cap),
            len(self.neighbours) + self.model.size,
            self._rows_as_computed,
            self._all_envelopes,
            keep=_ENVELOPE_FILES_KEPT,
        )
        if found is None:
            return False
        # Plain read-only arrays over the mapping: np.memmap's Python hooks on every slice and take cost ~15 % of
        # a steady SanText+ batch.
        rows = np.asarray(found)
        self.cumulative = rows[: len(self.neighbours)]
        self.p_uniform = rows[len(self.neighbours) :]
        self.ready[:] = True
        return True

    def _all_envelopes(self) -> np.ndarray:
        """Every word's envelope row, then every word's uniform-branch probability, as one array (the file's)."""
        self._distances = table_distances(self.model, self.table)
        rows = np.empty(len(self.neighbours) + self.model.size)  # (computed in place: no 72 MB copy)
        self.cumulative, self.p_uniform = rows[: len(self.neighbours)], rows[len(self.neighbours) :]
        self._envelopes(np.arange(self.model.size))
        return rows

    def _rows_as_computed(self, found: np.ndarray) -> bool:
        """Whether the rows of words spread over the vocabulary (and their uniform-branch probabilities) are, bit
        for bit, the ones computed here from the vectors: a file from other vectors or other code is not used."""
        xs = np.unique(np.linspace(0, self.model.size - 1, _CHECKED_ROWS).astype(np.int64))
        xs = xs[self.lengths[xs] > 0]
        cumulative = np.empty_like(self.cumulative)  # (pages are allocated only where the sample's rows are)
        p_uniform = np.empty_like(self.p_uniform)
        for b in _blocks(xs, self.lengths[xs]):
            self._envelope_block(b[0], b[1], self.epsilon, None, cumulative, p_uniform)
        positions = np.concatenate([np.arange(self.offsets[x], self.offsets[x + 1]) for x in xs] or [xs])
        entries = len(self.neighbours)
        return bool(
            np.array_equal(np.asarray(found[positions]).view(np.int64), cumulative[positions].view(np.int64))
            and np.array_equal(np.asarray(found[entries + xs]).view(np.int64), p_uniform[xs].view(np.int64))
        )

    def _envelopes(self, xs: np.ndarray) -> None:
        eps = self.epsilon
        _in_threads(
            _blocks(xs, self.lengths[xs]),
            lambda b: self._envelope_block(b[0], b[1], eps, self._distances, self.cumulative, self.p_uniform),
        )

    def _envelope_block(self, xs, lengths, eps: float, distances, cumulative, p_uniform) -> None:
        # One row per word, padded after its entries (whose excess is then 0: the running sums of the real
        # entries, np.cumsum along a row, sequential as the JVM's loop, are unchanged). ``distances``: the
        # table's (``table_distances``), or None to compute the rows' from the vectors.
        positions, valid = _padded(self.offsets[xs], lengths)
        if distances is None:
            d = _row_distances(self.model.vectors, self.neighbours, xs, positions)
        else:
            d = distances[positions]
        if self.cap != math.inf:
            d = np.minimum(d, self.cap)
        bound = self.bounds[xs]
        reference = np.minimum(d[:, 0], bound)
        with np.errstate(invalid="ignore", over="ignore"):
            log_flat = -0.5 * eps * (bound - reference)
            flat = fdlibm.exp(log_flat)
            w = fdlibm.exp(-0.5 * eps * (d - reference[:, None]))
            excess = np.where(valid, np.maximum(0.0, w - flat[:, None]), 0.0)
            running = np.cumsum(excess, axis=1)
            total = running[:, -1]
            cumulative[positions[valid]] = (running / np.where(total > 0, total, 1.0)[:, None])[valid]
            log_uniform = fdlibm.log(np.float64(self.target_size)) + log_flat
            log_excess = fdlibm.log(np.where(total > 0, total, 1.0))
            upper = log_uniform >= log_excess
            a = -fdlibm.log1p(fdlibm.exp(log_excess - log_uniform))
            b = (log_uniform - log_excess) - fdlibm.log1p(fdlibm.exp(log_uniform - log_excess))
            p = fdlibm.exp(np.where(upper, a, b))
        p = np.where(log_uniform == -np.inf, 0.0, p)
        p = np.where(total == 0, 1.0, p)
        p_uniform[xs] = p

    def step(self, streams, rows, words, fresh):
        """One round of ``ExponentialNeighbourSampler.sample``'s loop: a full-precision uniform for the branch
        (none when the uniform branch is certain), then a uniform target and a log-uniform for the acceptance
        test, or one 53-bit uniform for the pick among the neighbours' excess."""
        n = len(rows)
        done = np.zeros(n, dtype=bool)
        out = np.empty(n, dtype=np.int64)
        pu = self.p_uniform[words]
        uniform = pu == 1.0
        drawn = np.flatnonzero(~uniform)
        if drawn.size == n:  # (as a rule: every row draws its branch, and the rows need no gathering)
            uniform = streams.next_uniform(rows) < pu
        elif drawn.size:
            uniform[drawn] = streams.next_uniform(rows[drawn]) < pu[drawn]
        picked = np.flatnonzero(uniform)
        if picked.size:
            ru, xu = rows[picked], words[picked]
            y = self.target_start + streams.next_int(ru, self.target_size).astype(np.int64)
            mantissa, scale = streams.next_log_uniform_parts(ru)
            bounds = self.bounds[xu]

            def exact(i):  # the JVM's threshold: bound - 2·log(u)/ε with fdlibm's log
                return bounds[i] - 2.0 * (fdlibm.log(mantissa[i]) - scale[i]) / self.epsilon

            # The threshold from NumPy's log, within a relative 1e-15 of the exact one (a sum of two non-negative
            # terms, each a few ulps off): it decides wherever it is not within 2^-30 of what it is compared with;
            # fdlibm's log (~50 NumPy calls) is computed for the rest only.
            threshold = bounds - 2.0 * (np.log(mantissa) - scale) / self.epsilon
            # squaredDistanceBelow(x, y, t²) < t² ⇔ the full d² < t²: its partial sums never exceed it.
            if self.cap == math.inf:  # SanText: no threshold is above the cap, the distance decides every proposal
                accept = squared_distance_below(self.model, xu, y, threshold * threshold, lambda i: _square(exact(i)))
            else:
                accept = threshold > self.cap
                near = np.flatnonzero(~(np.abs(threshold - self.cap) > threshold * _THRESHOLD_MARGIN))
                if near.size:
                    threshold[near] = exact(near)
                    accept[near] = threshold[near] > self.cap
                test = np.flatnonzero(~accept)
                if test.size:
                    t = threshold[test]
                    accept[test] = squared_distance_below(
                        self.model, xu[test], y[test], t * t, lambda i, test=test: _square(exact(test[i]))
                    )
            done[picked] = accept
            out[picked] = y
        excess = np.flatnonzero(~uniform)
        if excess.size:
            xe = words[excess]
            u = streams.next_double(rows[excess])
            start = self.offsets[xe]
            out[excess] = self.neighbours[start + pick_row(self.cumulative, start, self.lengths[xe], u)]
            done[excess] = True
        return done, out

    def finish(self, streams, rows, ranks, position, end, fresh, outputs, step, keep_below=0, keep_p=0.0) -> None:
        """Every token left of ``rows`` (row r's are ``ranks[position[r]:end[r]]``, the first fresh or not), outputs
        written, the rows' streams left past their draws: as rounds of ``step`` would, for a few rows at a time.

        The rows' streams are read ahead (``ahead``), and each iteration looks at ``_AHEAD_ROUNDS`` rounds of every
        row's token at once: a round starts 3 outputs after a rejected one (the branch, the target, the log-uniform;
        2 where the uniform branch is certain), so the rounds' outputs are known before their outcomes; the first
        round that ends the token (an accepted target, or the pick among the neighbours) settles it. A round whose
        draws take the rare longer path (a leading exponent past the first word, nextInt's rejection) and everything
        after it in the row goes to ``step`` itself, reading the same outputs. SanText+'s kept-or-not draw
        (``keep_below``, ``keep_p``) comes first for a fresh non-sensitive word."""
        a = ahead.Ahead(streams, rows, 8 * (end[rows] - position[rows]) + 64)
        reader = ahead.AheadStreams(a)
        pos, stop, new = position[rows].copy(), end[rows], fresh[rows].copy()
        k = np.arange(_AHEAD_ROUNDS)[None, :]
        bound = np.uint64(self.target_size)
        reject_below = (np.uint64(1 << 32) - bound) % bound
        live = np.arange(len(rows))
        # TEM: most rounds end their token without a distance (a threshold decisively above gamma, or the excess pick),
        # so each iteration first settles a row's next tokens while their first rounds do (``_easy_run``).
        easy = not keep_below and self.cap != math.inf
        while live.size:
            if easy:
                live = self._easy_run(a, live, ranks, pos, stop, new, outputs)
                if not live.size:
                    break
            if keep_below:
                # A fresh row's next words while each is non-sensitive and its draw keeps it (one output each), ahead
                # of the token this iteration samples: SanText+'s kept words cost no iteration of their own.
                a.reserve(live, _KEPT_RUN)
                token = pos[live][:, None] + np.arange(_KEPT_RUN)[None, :]
                word = ranks[np.minimum(token, len(ranks) - 1)]
                draw = (a.flat[a.at[live][:, None] + np.arange(_KEPT_RUN)[None, :]] >> np.uint64(11)).astype(np.float64)
                kept = (token < stop[live][:, None]) & (word < keep_below) & (draw * 2.0**-53 >= keep_p)
                kept &= new[live][:, None]
                run = np.where(kept.all(axis=1), _KEPT_RUN, kept.argmin(axis=1))
                moved = np.flatnonzero(run)
                if moved.size:
                    r, count = live[moved], run[moved]
                    at = np.repeat(pos[r] - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
                    outputs[at] = ranks[at]
                    pos[r] += count
                    a.at[r] += count
                    live = live[pos[live] < stop[live]]
                    if not live.size:
                        break
            a.reserve(live, 3 * _AHEAD_ROUNDS + 2)
            n = len(live)
            x = ranks[pos[live]]
            at = a.at[live]
            flat = a.flat
            done = np.zeros(n, dtype=bool)
            out = np.empty(n, dtype=np.int64)
            used = np.zeros(n, dtype=np.int64)
            base = at.copy()
            decide = np.flatnonzero(new[live] & (x < keep_below)) if keep_below else ()
            if len(decide):
                kept = decide[(flat[at[decide]] >> np.uint64(11)).astype(np.float64) * 2.0**-53 >= keep_p]
                done[kept], out[kept], used[kept] = True, x[kept], 1
                base[decide] += 1
            pu = self.p_uniform[x]
            s = np.where(pu == 1.0, 2, 3)[:, None]
            q = base[:, None] + s * k
            three = s == 3
            branch = flat[q]
            top = (branch >> np.uint64(52)).astype(np.intp)
            rare = three & (top == 0)
            u = _mantissa(branch) * _POWERS_OF_TWO[top]
            uniform = ~three | (u < pu[:, None])
            m = (flat[q + (s - 2)] >> np.uint64(32)) * bound
            y = self.target_start + (m >> np.uint64(32)).astype(np.int64)
            logs = flat[q + (s - 1)]
            top_log = (logs >> np.uint64(52)).astype(np.intp)
            rare |= uniform & (((m & np.uint64(0xFFFFFFFF)) < reject_below) | (top_log == 0))
            mantissa = _mantissa(logs)
            scale = _LOG_SCALES[top_log]
            bounds = self.bounds[x]
            threshold = bounds[:, None] - 2.0 * (np.log(mantissa) - scale) / self.epsilon  # as in ``step``

            def exact(i, bounds=bounds, mantissa=mantissa, scale=scale):  # (flat positions of the n x rounds)
                r = i // _AHEAD_ROUNDS
                return bounds[r] - 2.0 * (fdlibm.log(mantissa.ravel()[i]) - scale.ravel()[i]) / self.epsilon

            accept = threshold > self.cap
            if self.cap != math.inf:
                near = np.flatnonzero(~(np.abs(threshold - self.cap) > threshold * _THRESHOLD_MARGIN).ravel())
                if near.size:
                    accept.ravel()[near] = exact(near) > self.cap
            # Distances only for the rounds before the row's first excess or rare round (which ends the look): those
            # are all uniform and not rare. (SanText: no threshold is above an infinite cap.)
            stops = ~uniform | rare
            stop_at = np.where(stops.any(axis=1), stops.argmax(axis=1), _AHEAD_ROUNDS)
            tested = k < stop_at[:, None]
            if self.cap != math.inf:
                tested &= ~accept
            test = np.flatnonzero(tested.ravel())
            if test.size:
                t = threshold.ravel()[test]
                xs = x[test // _AHEAD_ROUNDS]
                accept.ravel()[test] = squared_distance_below(
                    self.model, xs, y.ravel()[test], t * t, lambda i, test=test: _square(exact(test[i]))
                )
            event = ~uniform | accept | rare
            first = event.argmax(axis=1)
            if len(decide):
                open_ = np.flatnonzero(~done)
                ends = open_[event[open_, first[open_]]]
                row_first = first[ends]
                # No event in the rounds looked at: all rejected.
                used[open_] = (base - at)[open_] + s[open_, 0] * _AHEAD_ROUNDS
                used[ends] = (base - at)[ends] + s[ends, 0] * row_first
            else:  # (no kept-or-not draw: every row open, its rounds from at)
                ends = np.flatnonzero(event.any(axis=1))
                row_first = first[ends]
                used = s[:, 0] * _AHEAD_ROUNDS
                used[ends] = s[ends, 0] * row_first
            slow = ends[rare[ends, row_first]]
            settled = ends[~rare[ends, row_first]]
            accepted = settled[uniform[settled, first[settled]]]
            done[accepted], out[accepted] = True, y[accepted, first[accepted]]
            used[accepted] += s[accepted, 0]
            picks = settled[~uniform[settled, first[settled]]]
            if picks.size:
                d = flat[q[picks, first[picks]] + 1]
                xp = x[picks]
                start = self.offsets[xp]
                j = pick_row(
                    self.cumulative, start, self.lengths[xp], (d >> np.uint64(11)).astype(np.float64) * 2.0**-53
                )
                done[picks], out[picks] = True, self.neighbours[start + j]
                used[picks] += 2
            a.at[live] = at + used
            if slow.size:
                d2, y2 = step(reader, live[slow], x[slow], np.zeros(slow.size, dtype=bool))
                done[slow], out[slow] = d2, y2
            finished = live[done]
            outputs[pos[finished]] = out[done]
            pos[finished] += 1
            new[live] = done
            live = live[pos[live] < stop[live]]
        a.sync()
        position[rows] = pos

    def _easy_run(self, a, live, ranks, pos, stop, new, outputs) -> np.ndarray:
        """``finish``'s first part for TEM: per row of ``live``, its next tokens while each one's first round ends it
        without a distance (or a rare path), settled at once; returns the rows with tokens left.

        A round is 3 outputs in the uniform branch and 2 in the excess one, so where each round ends its token the
        rounds' offsets follow from the branch draws alone: a walk over the ``_EASY_RUN`` tokens, each output read as
        a branch draw once. The first token whose round would not end it this way (a threshold not decisively above
        gamma, a rare path, the certain uniform branch) ends the run; the regular look takes it from there."""
        count = _EASY_RUN
        a.reserve(live, 3 * count)
        n = len(live)
        token = pos[live][:, None] + np.arange(count)[None, :]
        x = ranks[np.minimum(token, len(ranks) - 1)]
        pu = self.p_uniform[x]
        window = a.flat[a.at[live][:, None] + np.arange(3 * count)[None, :]]
        top = (window >> np.uint64(52)).astype(np.intp)
        u = _mantissa(window) * ((1023 - (_TOP_ZEROS[top] + 1)) << 52).view(np.float64)  # nextUniform's, top != 0
        r = np.arange(n)
        offset = np.zeros((n, count + 1), dtype=np.int64)  # each token's round's first output, if all end there
        for j in range(count):
            offset[:, j + 1] = offset[:, j] + 2 + (u[r, offset[:, j]] < pu[:, j])
        at = offset[:, :count]
        rc = r[:, None]
        uniform = u[rc, at] < pu
        target = window[rc, at + 1]  # the uniform target (nextInt), or the excess pick's nextDouble
        bound = np.uint64(self.target_size)
        m = (target >> np.uint64(32)) * bound
        top_log = top[rc, at + 2]
        threshold = self.bounds[x] - 2.0 * (
            np.log(_mantissa(window[rc, at + 2])) - (_TOP_ZEROS[top_log] + 1) * _LN_2
        ) / (self.epsilon)  # as in ``step``: it decides where not within 2^-30 of the cap
        accepted = (threshold > self.cap) & (np.abs(threshold - self.cap) > threshold * _THRESHOLD_MARGIN)
        accepted &= ((m & np.uint64(0xFFFFFFFF)) >= (np.uint64(1 << 32) - bound) % bound) & (top_log != 0)
        ends = (token < stop[live][:, None]) & (pu != 1.0) & (top[rc, at] != 0) & (~uniform | accepted)
        run = np.where(ends.all(axis=1), count, ends.argmin(axis=1))
        moved = np.flatnonzero(run)
        if moved.size:
            taken = np.arange(count)[None, :] < run[moved][:, None]
            xs, tokens = x[moved][taken], token[moved][taken]
            ys = self.target_start + (m[moved][taken] >> np.uint64(32)).astype(np.int64)
            picks = np.flatnonzero(~uniform[moved][taken])
            if picks.size:
                d = (target[moved][taken][picks] >> np.uint64(11)).astype(np.float64) * 2.0**-53
                start = self.offsets[xs[picks]]
                ys[picks] = self.neighbours[start + pick_row(self.cumulative, start, self.lengths[xs[picks]], d)]
            outputs[tokens] = ys
            rows = live[moved]
            pos[rows] += run[moved]
            a.at[rows] += offset[moved, run[moved]]
            new[rows] = True
        return live[pos[live] < stop[live]]


_mantissa = RowStreams._mantissa


_AHEAD_ROWS = 256  # rows left in a batch when the SanText family reads their streams ahead (``finish``)
_AHEAD_ROUNDS = 6  # rounds of a row's token looked at per iteration there
_KEPT_RUN = 8  # SanText+'s kept words looked at before them
_EASY_RUN = 8  # TEM's tokens looked at before them
_UNSET = object()


def _square(t: np.ndarray) -> np.ndarray:
    return t * t


# Per process, the distances of each table (by identity; the table is kept so its id is never reused).
_TABLE_DISTANCES: dict[int, tuple[NeighbourTable, np.ndarray | None]] = {}
_TABLE_DISTANCES_LOCK = threading.Lock()


def table_distances(model: Model, table: NeighbourTable) -> np.ndarray | None:
    """d(x, y) of every entry of ``table``, in its order: from the machine's cache (``engine.distances``), or
    computed whole and written there; ``None`` when no cache directory can be written, and the sampler
    computes the rows of the words it meets instead (less work for one process, but every process again).

    They are the same for every epsilon and for TEM's gamma (applied after, ``min(d, gamma)``), so one file
    serves every SanText-family run on the model and table."""
    with _TABLE_DISTANCES_LOCK:
        found = _TABLE_DISTANCES.get(id(table))
        if found is not None and found[0] is table:
            return found[1]
        result = distance_cache.once_per_machine(
            "distances",
            _table_key(model, table),
            len(table.neighbours),
            lambda d: _same_as_computed(model, table, d),
            lambda: _all_distances(model, table),
        )
        _TABLE_DISTANCES[id(table)] = (table, result)
        return result


_TABLE_KEYS: dict[int, tuple[NeighbourTable, bytes]] = {}
_TABLE_KEYS_LOCK = threading.Lock()


def _table_key(model: Model, table: NeighbourTable) -> bytes:
    """``distances.key`` of the model's vectors and ``table`` (hashing them costs ~0.03 s: once per process)."""
    with _TABLE_KEYS_LOCK:
        found = _TABLE_KEYS.get(id(table))
        if found is None or found[0] is not table:
            digest = distance_cache.key(model.vectors, table.offsets, table.neighbours, table.target_start)
            found = _TABLE_KEYS[id(table)] = (table, digest)
        return found[1]


def _envelope_key(model: Model, table: NeighbourTable, epsilon: float, cap: float) -> bytes:
    """What a sampler's envelope rows depend on: the table's distances (``_table_key``), its bounds on the words
    outside each row, epsilon and the cap, bit for bit, and how the rows are computed (this version)."""
    h = hashlib.sha256(b"dptext-envelopes/1/")
    h.update(_table_key(model, table))
    h.update(np.ascontiguousarray(table.outside_bounds, dtype="<f8").tobytes())
    h.update(np.array([epsilon, cap], dtype="<f8").tobytes())
    return h.digest()


# Per machine (72 MB each on the default model), so that a sweep over epsilon does not fill the disk; a miss costs
# ~0.5 s. Stated in docs/settings.md (the model cache).
_ENVELOPE_FILES_KEPT = 4
_CHECKED_ROWS = 16


def _all_distances(model: Model, table: NeighbourTable) -> np.ndarray:
    offsets = table.offsets.astype(np.int64)
    lengths = np.diff(offsets)
    out = np.empty(len(table.neighbours), dtype=np.float64)
    v = model.vectors

    def block(b):
        positions, valid = _padded(offsets[b[0]], b[1])
        out[positions[valid]] = _row_distances(v, table.neighbours, b[0], positions)[valid]

    _in_threads(_blocks(np.arange(model.size), lengths), block)
    return out


def _same_as_computed(model: Model, table: NeighbourTable, d: np.ndarray) -> bool:
    """Whether entries spread over the table have, bit for bit, the distances computed here: a file written
    from other vectors or by other code (whatever its checksum) is not used."""
    entries = len(table.neighbours)
    if entries == 0:
        return True
    at = np.unique(np.linspace(0, entries - 1, _CHECKED_ENTRIES).astype(np.int64))
    xs = np.searchsorted(table.offsets.astype(np.int64), at, side="right") - 1
    fresh = distances(model.vectors, xs, table.neighbours[at].astype(np.int64))
    return bool(np.array_equal(np.asarray(d[at]).view(np.int64), fresh.view(np.int64)))


_CHECKED_ENTRIES = 64


def _blocks(xs: np.ndarray, lengths: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """``xs`` (with their row lengths) in blocks of about ``_ENTRIES_PER_BLOCK`` entries, by increasing length so
    that padding every row of a block to its longest costs little; few blocks keep NumPy's calls large."""
    order = np.argsort(lengths, kind="stable")
    xs, lengths = xs[order], lengths[order]
    blocks = []
    start = 0
    while start < len(xs):
        # Rows are sorted by length: a block's longest row is its last.
        count = max(1, _ENTRIES_PER_BLOCK // max(1, int(lengths[start])))
        while count > 1 and count * int(lengths[min(len(xs), start + count) - 1]) > _ENTRIES_PER_BLOCK:
            count = max(1, min(count - 1, _ENTRIES_PER_BLOCK // int(lengths[min(len(xs), start + count) - 1])))
        end = min(len(xs), start + count)
        blocks.append((xs[start:end], lengths[start:end]))
        start = end
    return blocks


def _padded(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's entry positions padded to the longest row (padding repeats the row's first entry), and
    which are real."""
    k = int(lengths.max()) if len(lengths) else 0
    j = np.arange(k)[None, :]
    valid = j < lengths[:, None]
    return starts[:, None] + np.where(valid, j, 0), valid


def _in_threads(blocks: list, fn) -> None:
    # Blocks write disjoint entries, and NumPy releases the GIL in its loops: threads share the work.
    workers = min(len(blocks), os.cpu_count() or 1, 4)
    if workers <= 1:
        for b in blocks:
            fn(b)
        return
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(fn, blocks))


def _row_distances(v: np.ndarray, neighbours: np.ndarray, xs: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """d(x, y) for the entries ``positions`` (one row of equal length per x of ``xs``)."""
    n, k = positions.shape
    rows = max(1, _PAIRS_PER_CHUNK // max(1, k))
    if n > rows:  # the differences of a few thousand pairs at a time stay in cache
        return np.concatenate(
            [_row_distances(v, neighbours, xs[i : i + rows], positions[i : i + rows]) for i in range(0, n, rows)]
        )
    if k > _PAIRS_PER_CHUNK:  # (and a long row's, a part at a time)
        step = _PAIRS_PER_CHUNK
        return np.concatenate(
            [_row_distances(v, neighbours, xs, positions[:, j : j + step]) for j in range(0, k, step)], axis=1
        )
    m = v.shape[1]
    diff = np.empty((m, n * k))  # (one column per entry: see _summed_square_columns)
    # The rows gathered as they are, then turned into columns and converted to double in one copy, then the
    # subtraction in double alone: less than one subtraction that converts and reads across the rows (NumPy buffers
    # the mixed-type strided operands; the default model's table 2.44 -> 2.12 s on one thread). (y - x)² = (x - y)²:
    # the same bits.
    np.copyto(diff, v.take(neighbours[positions].ravel(), axis=0).T)
    by_row = diff.reshape(m, n, k)
    np.subtract(by_row, v.take(xs, axis=0).T.astype(np.float64)[:, :, None], out=by_row)
    return np.sqrt(_summed_square_columns(diff)).reshape(n, k)


class SanText(Mechanism):
    name = "santext"

    def __init__(self, model: Model, epsilon: float) -> None:
        self.sampler = ExponentialNeighbourSampler(model, model.table(0, "santext"), epsilon)

    def prepare(self, words):
        self.sampler.prepare(words)

    def step(self, streams, rows, words, fresh):
        return self.sampler.step(streams, rows, words, fresh)

    def finish(self, streams, rows, ranks, position, end, fresh, outputs):
        self.sampler.finish(streams, rows, ranks, position, end, fresh, outputs, self.step)


class Tem(Mechanism):
    name = "tem"

    def __init__(self, model: Model, epsilon: float, gamma: float, beta: float) -> None:
        self.gamma = gamma if gamma > 0 else gamma_for(epsilon, beta, model.size)
        self.sampler = ExponentialNeighbourSampler(model, model.table(0, "tem"), epsilon, self.gamma)

    def prepare(self, words):
        self.sampler.prepare(words)

    def step(self, streams, rows, words, fresh):
        return self.sampler.step(streams, rows, words, fresh)

    def finish(self, streams, rows, ranks, position, end, fresh, outputs):
        self.sampler.finish(streams, rows, ranks, position, end, fresh, outputs, self.step)


def gamma_for(epsilon: float, beta: float, size: int) -> float:
    """TEM's gamma = (2/ε)·ln((1 - β)·(n - 1)/β), at least the smallest normal double, as the JVM computes it."""
    g = 2.0 / epsilon * float(fdlibm.log(np.float64((1 - beta) * max(1, size - 1) / beta)))
    return max(g, 2.2250738585072014e-308)


def sensitive_start(size: int, w: float) -> int:
    """SanText+'s first sensitive rank, n - ⌊w·n⌋, with w taken as its decimal value (as BigDecimal.valueOf)."""
    count = int((Decimal(repr(float(w))) * size).to_integral_value(rounding=ROUND_FLOOR))
    if count < 1:
        plain = format(Decimal(repr(float(w))).normalize(), "f")  # as the JVM writes it (BigDecimal, plain)
        raise DpTextError.of(
            "MECHANISM_PARAMETER_SELECTS_NO_WORD", mechanism="santext+", parameter="w", value=plain, size=size
        )
    return size - count


class SanTextPlus(Mechanism):
    name = "santext+"

    def __init__(self, model: Model, epsilon: float, w: float, p: float) -> None:
        self.output_start = sensitive_start(model.size, w)
        self.p = float(p)
        self.sampler = ExponentialNeighbourSampler(model, model.table(self.output_start, "santext+"), epsilon)

    def prepare(self, words):
        self.sampler.prepare(words)

    def finish(self, streams, rows, ranks, position, end, fresh, outputs):
        self.sampler.finish(streams, rows, ranks, position, end, fresh, outputs, self.step, self.output_start, self.p)

    def step(self, streams, rows, words, fresh):
        """A non-sensitive word's first round starts with the kept-or-not draw (one nextDouble: kept with
        probability 1 - p); a word not kept, and every sensitive word, then draws SanText's round over V_S."""
        n = len(rows)
        done = np.zeros(n, dtype=bool)
        out = np.empty(n, dtype=np.int64)
        decide = np.flatnonzero(fresh & (words < self.output_start))
        if decide.size:
            kept = decide[streams.next_double(rows[decide]) >= self.p]
            done[kept] = True
            out[kept] = words[kept]
        rest = np.flatnonzero(~done)
        if rest.size:
            d, y = self.sampler.step(streams, rows[rest], words[rest], fresh[rest])
            done[rest] = d
            out[rest] = y
        return done, out


class CusText(Mechanism):
    """CusText(+) (``CusText.java``): disjoint groups of K close words built greedily in rank order; x becomes
    y of its group with P ∝ exp(ε·u(x, y)/2). The groups and rows are rebuilt here from the model exactly."""

    def __init__(self, model: Model, epsilon: float, k: int, verbatim: str | None, plus: bool) -> None:
        self.name = "custext+" if plus else "custext"
        n = model.size
        if k < 2:
            raise AssertionError(f"groupSize={k}: the settings check K >= 2 first")
        if k > n:  # the JVM's CusText validate(spec, model)
            raise exceeds_vocabulary(self.name, "groupSize", k, n)
        self.verbatim = np.zeros(n, dtype=bool)
        if plus:
            index = {}
            for rank, word in enumerate(model.words):
                index.setdefault(word, rank)
            for word in (verbatim or "").split(";"):
                if word.strip():
                    rank = index.get(word.strip(), -1)
                    if rank >= 0:
                        self.verbatim[rank] = True
        self.row_offset, self.outputs, self.cumulative = _custext_tables(model, model.table(0, self.name), k, epsilon)

    def step(self, streams, rows, words, fresh):
        return np.ones(len(rows), dtype=bool), self._draw(streams, rows, words)

    def _draw(self, streams, rows, words):
        out = words.astype(np.int64, copy=True)
        drawn = ~self.verbatim[words]
        if drawn.any():
            x = words[drawn]
            start = self.row_offset[x]
            j = pick_row(self.cumulative, start, self.row_offset[x + 1] - start, streams.next_uniform(rows[drawn]))
            out[drawn] = self.outputs[start + j]
        return out


# Per machine (8 MB each on the default model at K = 20), like the envelope files; a miss costs ~0.4 s.
_CUSTEXT_FILES_KEPT = 4
_CHECKED_GROUPS = 8


def _custext_tables(model: Model, table: NeighbourTable, k: int, epsilon: float):
    """CusText's rows (``row_offset``, ``outputs``, ``cumulative``: word x's row is ``row_offset[x]`` to
    ``row_offset[x + 1]``): mapped from the machine's cache (``engine.distances``), where the first process on a
    machine to need this model, table, K and epsilon computed them and wrote its groups and rows; computed here
    where no cache directory can be used."""
    n = model.size
    groups = max(1, n // k)  # (groups of K while 2K or more words are free, then one of the rest)
    last = n - (groups - 1) * k
    rows = (groups - 1) * k * k + last * last
    layout = (n, groups + 1, rows, rows)
    found = distance_cache.once_per_machine(
        "custext",
        _custext_key(model, table, k, epsilon),
        sum(layout),
        lambda f: _custext_as_computed(model, table, k, epsilon, _unpacked(f, layout)),
        lambda: _packed(_custext_computed(model, table, k, epsilon), layout),
        keep=_CUSTEXT_FILES_KEPT,
    )
    tables = _custext_computed(model, table, k, epsilon) if found is None else _unpacked(found, layout)
    members, start, outputs, cumulative = tables
    return _row_offsets(members, start), outputs, cumulative


def _custext_key(model: Model, table: NeighbourTable, k: int, epsilon: float) -> bytes:
    """What CusText's groups and rows depend on: the vectors and table (``_table_key``), the table's bounds on the
    words outside each row, K and epsilon, and how they are computed (this version)."""
    h = hashlib.sha256(b"dptext-custext/1/")
    h.update(_table_key(model, table))
    h.update(np.ascontiguousarray(table.outside_bounds, dtype="<f8").tobytes())
    h.update(np.array([k], dtype="<i8").tobytes())
    h.update(np.array([epsilon], dtype="<f8").tobytes())
    return h.digest()


def _packed(tables: tuple[np.ndarray, ...], layout: tuple[int, ...]) -> np.ndarray:
    """Members, group starts, outputs and cumulative rows as the cache file's one array of doubles."""
    if tuple(len(a) for a in tables) != layout:
        raise AssertionError(f"CusText's tables have lengths {[len(a) for a in tables]}, not {list(layout)}")
    return np.concatenate([a.astype(np.float64) for a in tables])


def _unpacked(found: np.ndarray, layout: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """The cache file's members, group starts, outputs (as integers) and cumulative rows (a view of the file)."""
    ends = np.cumsum(layout)
    members, start, outputs, cumulative = np.split(np.asarray(found), ends[:-1])
    return members.astype(np.int64), start.astype(np.int64), outputs.astype(np.int64), cumulative


def _custext_computed(model: Model, table: NeighbourTable, k: int, epsilon: float) -> tuple[np.ndarray, ...]:
    """CusText's groups (``_groups``) and every word's row (``_group_rows``)."""
    members, start = _groups(model, table, k)
    row_offset = _row_offsets(members, start)
    outputs = np.empty(row_offset[-1], dtype=np.int64)
    cumulative = np.empty(row_offset[-1], dtype=np.float64)
    _group_rows(model, members, start, np.arange(len(start) - 1), epsilon, row_offset, outputs, cumulative)
    return members, start, outputs, cumulative


def _custext_as_computed(model: Model, table: NeighbourTable, k: int, epsilon: float, tables) -> bool:
    """Whether a cache file holds the groups and rows computed here: its words a partition into groups, each of
    groups spread over it built from the groups before it as ``_groups`` builds it (x the first word they leave
    free, then ``_picks``), and those groups' rows bit for bit ``_group_rows``'."""
    members, start, outputs, cumulative = tables
    n = model.size
    if not np.array_equal(np.sort(members), np.arange(n)) or start[0] != 0 or start[-1] != n:
        return False
    if np.any(np.diff(start) < 1):
        return False
    checked = np.unique(np.linspace(0, len(start) - 2, _CHECKED_GROUPS).astype(np.int64))
    for g in checked.tolist():
        taken = np.zeros(n, dtype=bool)
        taken[members[: start[g]]] = True
        x = int(members[start[g]])
        if taken[x] or taken[:x].sum() != x:  # (x is the first free word)
            return False
        if not np.array_equal(_picks(model, table, k, x, taken), members[start[g] + 1 : start[g + 1]]):
            return False
    row_offset = _row_offsets(members, start)
    fresh_outputs = np.empty(row_offset[-1], dtype=np.int64)  # (pages are allocated only where the sample's rows are)
    fresh_cumulative = np.empty(row_offset[-1], dtype=np.float64)
    _group_rows(model, members, start, checked, epsilon, row_offset, fresh_outputs, fresh_cumulative)
    words = np.concatenate([members[start[g] : start[g + 1]] for g in checked.tolist()])
    at = np.concatenate([np.arange(row_offset[x], row_offset[x + 1]) for x in words.tolist()])
    return bool(
        np.array_equal(outputs[at], fresh_outputs[at])
        and np.array_equal(np.asarray(cumulative[at]).view(np.int64), fresh_cumulative[at].view(np.int64))
    )


def _row_offsets(members: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Where each word's row starts (rank order), its row one entry per word of its group."""
    counts = np.diff(start)
    size = np.empty(len(members), dtype=np.int64)
    size[members] = np.repeat(counts, counts)
    return np.concatenate([[0], np.cumsum(size)]).astype(np.int64)


def _group_rows(model, members, start, gs, epsilon, row_offset, outputs, cumulative) -> None:
    """The rows of the words of groups ``gs``: a word's group by decreasing distance to it (ties: higher rank
    first), and the running sums of exp(-ε·d/(2·its largest d)), normalised (``CusText.java``). The groups of one
    size at once (all have K words but the last): a few NumPy calls for the default model's 25,000 rows."""
    counts = np.diff(start)
    for s in np.unique(counts[gs]).tolist():
        g = gs[counts[gs] == s]
        groups = members[start[g][:, None] + np.arange(s)]  # (groups, s), a group's words in its order
        # Row i of a group: its word i against each word j (one word's row, as a neighbour table's: the same bits as
        # ``distances``, in ~half the time).
        own_group = np.repeat(np.arange(len(g)) * s, s)[:, None] + np.arange(s)
        d = _row_distances(model.vectors, groups.ravel(), groups.ravel(), own_group)  # one row per word x
        group = np.repeat(groups, s, axis=0)  # row x's group, in the group's order
        biggest = np.max(d, axis=1, initial=0.0)
        order = np.lexsort((-group, -d), axis=-1)
        dx = np.take_along_axis(d, order, axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            w = fdlibm.exp(-0.5 * epsilon * (dx / biggest[:, None]))
        w[~(biggest > 0)] = 1.0
        running = np.cumsum(w, axis=1)  # (along a row: term by term, as the JVM's loop)
        at = row_offset[groups.ravel()][:, None] + np.arange(s)
        outputs[at] = np.take_along_axis(group, order, axis=-1)
        cumulative[at] = running / running[:, -1:]


def _groups(model: Model, table: NeighbourTable, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``CusText.Groups.build``: in rank order, each free word x takes its K - 1 nearest free words (``_picks``);
    the last < 2K words form one group. Returns the words group after group, and each group's start there."""
    n = model.size
    taken = np.zeros(n, dtype=bool)
    members = np.empty(n, dtype=np.int64)
    starts = []
    placed = 0
    for x in range(n):
        if taken[x]:
            continue
        starts.append(placed)
        picks = _picks(model, table, k, x, taken)
        taken[x] = True
        taken[picks] = True
        members[placed] = x
        members[placed + 1 : placed + 1 + len(picks)] = picks
        placed += 1 + len(picks)
        if placed == n:
            break
    return members, np.array([*starts, n], dtype=np.int64)


def _picks(model: Model, table: NeighbourTable, k: int, x: int, taken: np.ndarray) -> np.ndarray:
    """The words that join x (the first free word) in its group, ``taken`` the words of the groups before: every
    free word where fewer than 2K are free, else the K - 1 nearest free words, (distance, rank) first, from x's
    neighbour row when the row settles it, else by a scan of every free word."""
    n = model.size
    want = k - 1
    if n - int(np.count_nonzero(taken)) < 2 * k:
        rest = np.flatnonzero(~taken)
        return rest[rest != x]
    row = table.neighbours[int(table.offsets[x]) : int(table.offsets[x + 1])]
    free = row[(row != x) & ~taken[row]][:want]
    bound = table.outside_bounds[x]
    if len(free) == want and (
        bound == np.inf or distances(model.vectors, np.array([x]), free[-1:].astype(np.int64))[0] < bound
    ):
        return free.astype(np.int64)
    candidates = np.flatnonzero(~taken)
    candidates = candidates[candidates != x]
    d = _row_distances(model.vectors, candidates, np.array([x]), np.arange(len(candidates))[None, :])[0]  # (x's row)
    return candidates[np.lexsort((candidates, d))[:want]]


class Diffractor(Mechanism):
    """1-Diffractor (``Diffractor.java``): the vocabulary on L lists (greedy nearest-neighbour chains from
    the words of largest norm); a word moves to a position drawn with geometric or truncated exponential
    noise around its own, on a list chosen uniformly."""

    name = "1-diffractor"

    def __init__(self, model: Model, epsilon: float, noise: str, radius: int, lists: int) -> None:
        n = model.size
        if lists > n:  # the JVM's Diffractor validate(spec, model)
            raise exceeds_vocabulary(self.name, "lists", lists, n)
        self.epsilon = float(epsilon)
        self.noise = noise
        self.radius = int(radius)
        self.n = n
        table = model.table(0, "1-diffractor")
        starts = _largest_norms(model.vectors, min(lists, n))
        self.order = np.array([_chain(table, n, int(s)) for s in starts], dtype=np.int64)
        self.position = np.empty_like(self.order)
        for li in range(len(self.order)):
            self.position[li, self.order[li]] = np.arange(n)
        self.zero_probability = float(fdlibm.tanh(np.float64(self.epsilon / 2)))
        self.log_b = -self.epsilon / 2

    def step(self, streams, rows, words, fresh):
        return np.ones(len(rows), dtype=bool), self._draw(streams, rows, words)

    def _draw(self, streams, rows, words):
        lists = len(self.order)
        li = np.zeros(len(rows), dtype=np.int64) if lists == 1 else streams.next_int(rows, lists).astype(np.int64)
        p = self.position[li, words]
        j = self._geometric(streams, rows, p) if self.noise == "geometric" else self._tem(streams, rows, p)
        return self.order[li, j]

    def sanitize_rows(self, streams, ranks: np.ndarray, first: np.ndarray) -> np.ndarray | None:
        """Geometric noise: the rounds' draws, then every token's arithmetic at once. Each round draws, for the
        next token of every row that has one, the list (``nextInt(L)``, when L > 1), the branch (``nextUniform``)
        and, for the tokens that move, the side (``nextLong``) and the distance's log-uniform: what ``_draw``
        draws, in its order, with the logs, floors, clamps and the lists' lookups left for one pass over all the
        tokens after the last round (a round costs about half). TEM noise: ``_draw`` round by round."""
        if self.noise != "geometric" or self.n == 1:
            return None
        ranks = np.asarray(ranks, dtype=np.int64)
        lists = len(self.order)
        li = np.zeros(len(ranks), dtype=np.int64)
        moves = np.zeros(len(ranks), dtype=bool)
        up = np.zeros(len(ranks), dtype=bool)
        mantissa = np.ones(len(ranks))
        scale = np.zeros(len(ranks))
        position, end = first[:-1].copy(), first[1:]
        active = np.flatnonzero(end > position)
        while active.size:
            at = position[active]
            if lists > 1:
                li[at] = streams.next_int(active, lists)
            moved = np.flatnonzero(streams.next_uniform(active) >= self.zero_probability)
            if moved.size:
                r, t = active[moved], at[moved]
                moves[t] = True
                up[t] = streams.next_long(r) >= np.uint64(1 << 63)  # Java's nextLong() < 0
                mantissa[t], scale[t] = streams.next_log_uniform_parts(r)
            position[active] += 1
            active = active[position[active] < end[active]]
        p = self.position[li, ranks]
        t = np.flatnonzero(moves)
        p[t] = self._moved(p[t], up[t], self._over_epsilon(mantissa[t], scale[t]))
        return self.order[li, p]

    def _geometric(self, streams, rows, p):
        n = self.n
        j = p.copy()
        if n == 1:
            return j
        moves = streams.next_uniform(rows) >= self.zero_probability
        if not moves.any():
            return j
        r = rows[moves]
        up = streams.next_long(r) >= np.uint64(1 << 63)  # Java's nextLong() < 0
        j[moves] = self._moved(p[moves], up, self._over_epsilon(*streams.next_log_uniform_parts(r)))
        return j

    def _moved(self, p: np.ndarray, up: np.ndarray, q: np.ndarray) -> np.ndarray:
        """The position a moving token takes: k = 1 + ⌊q⌋ steps up or down from p, clamped to the list."""
        n = self.n
        k = 1 + np.floor(q)
        with np.errstate(invalid="ignore"):
            upper = np.where(k >= n - 1 - p, n - 1, p + np.minimum(k, n).astype(np.int64))
            lower = np.where(k >= p, 0, p - np.minimum(k, n).astype(np.int64))
        return np.where(up, upper, lower)

    def _over_epsilon(self, mantissa: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """``nextLogUniform() / -ε`` (from its parts) where its floor is what is used: from NumPy's log wherever no
        integer lies within the margin of it, else from fdlibm's (the JVM's), so every floor is the JVM's.

        NumPy's log is within a few ulps of fdlibm's on [1, 2), so the two quotients differ by less than
        |q|·2^-50 + 2^-50/ε (the log's error, and the subtraction's and the division's roundings); the margin
        |q|·2^-30 + 2^-40/ε is a thousand times that. fdlibm's log is ~50 NumPy calls: ~17 % of this mechanism's
        time before."""
        q = (np.log(mantissa) - scale) / -self.epsilon
        near = np.flatnonzero(~(np.abs(q - np.rint(q)) > np.abs(q) * _THRESHOLD_MARGIN + 2.0**-40 / self.epsilon))
        if near.size:
            q[near] = (fdlibm.log(mantissa[near]) - scale[near]) / -self.epsilon
        return q

    def _side_weight(self, m: np.ndarray) -> np.ndarray:
        lb = np.float64(self.log_b)
        w = fdlibm.exp(lb) * (fdlibm.expm1(m * lb) / fdlibm.expm1(lb))
        return np.where(m == 0, 0.0, w)

    def _tem(self, streams, rows, p):
        n, radius = self.n, self.radius
        left = np.minimum(radius, p)
        right = np.minimum(radius, n - 1 - p)
        outside = (n - 1 - left - right).astype(np.int64)
        w_left = self._side_weight(left.astype(np.float64))
        w_right = self._side_weight(right.astype(np.float64))
        w_outside = outside.astype(np.float64) * fdlibm.exp(np.float64(radius * self.log_b))
        v = streams.next_uniform(rows) * (((1 + w_left) + w_right) + w_outside)
        j = p.copy()
        stay = v < 1
        v = v - 1
        go_left = ~stay & ((v < w_left) | ((outside == 0) & (right == 0)))
        v = v - w_left
        go_right = ~stay & ~go_left & ((v < w_right) | (outside == 0))
        far = ~stay & ~go_left & ~go_right
        for mask, side, sign in ((go_left, left, -1), (go_right, right, 1)):
            moving = mask & (side > 0)
            if moving.any():
                j[moving] = p[moving] + sign * self._truncated_geometric(streams, rows[moving], side[moving])
        if far.any():
            k = streams.next_int(rows[far], outside[far]).astype(np.int64)
            below = p[far] - left[far]
            j[far] = np.where(k < below, k, p[far] + right[far] + 1 + (k - below))
        return j

    def _truncated_geometric(self, streams, rows, m):
        lb = np.float64(self.log_b)
        u = streams.next_uniform(rows)
        k = 1 + np.floor(fdlibm.log1p(u * fdlibm.expm1(m.astype(np.float64) * lb)) / lb)
        return np.maximum(1, np.minimum(m, k)).astype(np.int64)


def _largest_norms(vectors: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` words of largest squared norm (summed component by component, as the JVM does);
    ties: lower rank first."""
    v = vectors.astype(np.float64)
    norm2 = np.zeros(len(v), dtype=np.float64)
    for a in range(v.shape[1]):
        norm2 += v[:, a] * v[:, a]
    return np.lexsort((np.arange(len(v)), -norm2))[:count]


def _chain(table: NeighbourTable, n: int, start: int) -> list[int]:
    """``Diffractor.chain``: from ``start``, step to the nearest unvisited word of the current word's row,
    or, when the row has none, to the lowest unvisited rank."""
    # Each word is stepped from once, so every row is read: as NumPy slices (the first unvisited entry is the
    # first minimum of the row's visited flags), not as 8.9 M Python ints (~0.6 s on the default model).
    offsets = table.offsets.astype(np.int64).tolist()
    neighbours = table.neighbours
    visited = np.zeros(n, dtype=bool)
    out = [0] * n
    lowest = 0
    current = start
    for step in range(n):
        out[step] = current
        visited[current] = True
        if step == n - 1:
            break
        row = neighbours[offsets[current] : offsets[current + 1]]
        seen = visited[row]
        j = int(seen.argmin()) if len(row) else 0
        if len(row) and not seen[j]:
            current = int(row[j])
            continue
        while visited[lowest]:
            lowest += 1
        current = lowest
    return out
