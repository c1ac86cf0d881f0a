"""The embedding-noise mechanisms of the Python engine (laplace, mahalanobis, vickrey, vickrey-topk), draw for
draw and bit for bit the JVM's (``NoisyEmbeddingMechanism`` and its subclasses), as docs/engine-spec.md
writes them down.

Per row, the JVM draws the noise of every vocabulary token in text order (a Gamma radius, then a direction on the
unit sphere from normals), adds it to the token's embedding, finds the exact nearest word(s) of each noisy point
(ties to the lower rank), and only then makes any selection draws (Vickrey), in text order. Here the rows of a
batch advance in lockstep, token position by token position, each row drawing from its own stream exactly the
calls the JVM makes for it; the arithmetic after the draws (normalising, the Mahalanobis transform, the search)
works on every token of the batch at once.

The nearest-word search needs no bit-for-bit kernel: a float32 matrix product screens the vocabulary, every word
whose screened score lies within a proven rounding margin of the k-th best is re-ranked with the JVM's exact
double distance (``mechanisms.squared_distances``' order), and ties go to the lower rank. That is what brute
force in double returns, which is what the JVM's ``NearestWords`` returns whatever kernel it ran.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from dptext.engine import fdlibm, jump, xoshiro
from dptext.engine.mechanisms import Mechanism, _summed_squares, exceeds_vocabulary
from dptext.engine.model import Model
from dptext.errors import DpTextError

MAX_SWEEPS = 64  # EmbeddingCovariance.MAX_SWEEPS


# ----------------------------------------------------------------------------------------- the covariance


def _round_pairs(round_: int, players: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """EmbeddingCovariance.roundPairs: the circle method's disjoint pairs (p < q) of one round."""
    last = players - 1
    ps, qs = [], []
    for i in range(players // 2):
        x = round_ if i == 0 else (round_ + i) % last
        y = last if i == 0 else (round_ - i) % last
        if x >= m or y >= m:
            continue
        ps.append(min(x, y))
        qs.append(max(x, y))
    return np.array(ps, dtype=np.intp), np.array(qs, dtype=np.intp)


def jacobi(sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """EmbeddingCovariance.jacobi and its ordering: (eigenvalues ascending, eigenvectors as rows), the same bits.

    A round's rotations touch disjoint columns (rows), so a round is a handful of array operations, each
    element computed by the JVM's expression from the same operands."""
    m = sigma.shape[0]
    a = np.array(sigma, dtype=np.float64, copy=True)
    v = np.eye(m, dtype=np.float64)
    players = m + (m & 1)
    rounds = [_round_pairs(r, players, m) for r in range(players - 1)]
    tolerance = 2.0**-52 * m
    for _ in range(MAX_SWEEPS):
        rotated = False
        for p, q in rounds:
            if not len(p):
                continue
            apq = a[p, q]
            app = a[p, p]
            aqq = a[q, q]
            skip = np.abs(apq) <= tolerance * np.sqrt(np.abs(app * aqq))
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                theta = (aqq - app) / (2 * apq)
                t = np.where(theta >= 0, 1.0, -1.0) / (np.abs(theta) + np.sqrt(theta * theta + 1))
                c = 1 / np.sqrt(t * t + 1)
                s = t * c
            c = np.where(skip, 1.0, c)
            s = np.where(skip, 0.0, s)
            rotated = rotated or not skip.all()
            xp, xq = a[:, p].copy(), a[:, q].copy()
            a[:, p] = c * xp - s * xq
            a[:, q] = s * xp + c * xq
            cr, sr = c[:, None], s[:, None]
            xp, xq = a[p, :].copy(), a[q, :].copy()
            a[p, :] = cr * xp - sr * xq
            a[q, :] = sr * xp + cr * xq
            xp, xq = v[:, p].copy(), v[:, q].copy()
            v[:, p] = c * xp - s * xq
            v[:, q] = s * xp + c * xq
        if not rotated:
            break
    diagonal = np.diagonal(a).copy()
    order = np.argsort(diagonal, kind="stable")  # by (value, index), as the JVM's comparator
    return diagonal[order], np.ascontiguousarray(v[:, order].T)


def regularized_square_root(eigenvalues: np.ndarray, eigenvectors: np.ndarray, lam: float) -> np.ndarray:
    """EmbeddingCovariance.regularizedSquareRoot: Σ_i (q_ia·g_i)·q_ib over i ascending, g_i = √(λ·max(ξ_i, 0)
    + (1 - λ)); exactly the identity at λ = 0."""
    m = len(eigenvalues)
    if lam == 0:
        return np.eye(m, dtype=np.float64)
    root = np.zeros((m, m), dtype=np.float64)
    for i in range(m):
        g = math.sqrt(lam * max(float(eigenvalues[i]), 0.0) + (1 - lam))
        q = eigenvectors[i]
        root += np.multiply.outer(q * g, q)
    return root


_ROOTS: dict[tuple[str, str, float], np.ndarray] = {}
_ROOTS_LOCK = threading.Lock()


def noise_transform(model: Model, lam: float) -> np.ndarray:
    """(λΣ + (1 - λ)I)^½ of the model's stored covariance, computed once per process, model and λ."""
    slot = (model.name, model.embeddings_sha256, float(lam))
    with _ROOTS_LOCK:
        root = _ROOTS.get(slot)
        if root is None:
            sigma = model.covariance()
            if sigma is None:
                raise DpTextError.of("MODEL_NO_COVARIANCE", model=model.name)
            values, vectors = jacobi(sigma)
            root = regularized_square_root(values, vectors, float(lam))
            _ROOTS[slot] = root
    return root


# ----------------------------------------------------------------------------------------------- the draws


def _polar(streams, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One accepted pair of Marsaglia's polar method per row (NoiseSampling: u, v = 2·nextDouble - 1, redrawn
    while s = u² + v² is ≥ 1 or 0): (u, v, f) with f = √(-2·log(s)/s), log StrictMath's."""
    n = len(rows)
    u_out = np.empty(n)
    v_out = np.empty(n)
    s_out = np.empty(n)
    pending = np.arange(n)
    while pending.size:
        at = rows[pending]
        u = 2 * streams.next_double(at) - 1
        v = 2 * streams.next_double(at) - 1
        s = u * u + v * v
        ok = (s < 1) & (s != 0)
        took = pending[ok]
        u_out[took], v_out[took], s_out[took] = u[ok], v[ok], s[ok]
        pending = pending[~ok]
    f = np.sqrt(-2 * fdlibm.log(s_out) / s_out)
    return u_out, v_out, f


def _gamma(streams, rows: np.ndarray, shape: float) -> np.ndarray:
    """NoiseSampling.gamma (Marsaglia and Tsang), one variate per row."""
    d = shape - 1.0 / 3
    c = 1 / math.sqrt(9 * d)
    out = np.empty(len(rows))
    pending = np.arange(len(rows))
    while pending.size:
        u, _, f = _polar(streams, rows[pending])
        x = u * f
        v = 1 + c * x
        positive = v > 0
        trying = pending[positive]  # the others draw a normal again (the inner do-while)
        x, v = x[positive], v[positive]
        v = v * v * v
        uniform = streams.next_uniform(rows[trying])
        with np.errstate(divide="ignore", invalid="ignore"):
            accept = (uniform < 1 - 0.0331 * x * x * x * x) | (
                fdlibm.log(uniform) < 0.5 * x * x + d * (1 - v + fdlibm.log(v))
            )
        out[trying[accept]] = d * v[accept]
        pending = np.concatenate([pending[~positive], trying[~accept]])
    return out


def _normals(streams, rows: np.ndarray, m: int) -> np.ndarray:
    """NoiseSampling.gaussians: m normals per row, two per accepted polar pair (the last pair's second
    discarded when m is odd)."""
    out = np.empty((len(rows), m))
    for slot in range(0, m, 2):  # each row's pairs in order; a rejected pair is drawn again before the next slot
        u, v, f = _polar(streams, rows)
        out[:, slot] = u * f
        if slot + 1 < m:
            out[:, slot + 1] = v * f
    return out


def _unit_sphere(streams, rows: np.ndarray, m: int) -> np.ndarray:
    """NoiseSampling.unitSphere before its normalisation: normals, drawn again while all are zero (m = 1 only:
    a nonzero normal's square never underflows)."""
    g = _normals(streams, rows, m)
    zero = np.flatnonzero(~g.any(axis=1))
    while zero.size:
        g[zero] = _normals(streams, rows[zero], m)
        zero = zero[~g[zero].any(axis=1)]
    return g


def _reference_draws(streams, m: int, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(radius before ÷ε, normals) of every token, drawn call by call from ``streams`` (the reference the fast
    path below is tested against; also the path for m = 1, where all-zero normals can happen)."""
    total = int(first[-1])
    counts = np.diff(first)
    radius = np.empty(total)
    normals = np.empty((total, m))
    for t in range(int(counts.max(initial=0))):
        rows = np.flatnonzero(counts > t)
        tokens = first[rows] + t
        radius[tokens] = _gamma(streams, rows, float(m))
        normals[tokens] = _unit_sphere(streams, rows, m)
    return radius, normals


# Per token, the draws take ~131 outputs (a Gamma variate: ~3.6; m = 100 normals: 50 accepted polar pairs of
# 4/π·2 outputs each), with a standard deviation of ~9: the per-row estimate of a block leaves 8 of those.
_MEAN_OUTPUTS_PER_NORMAL_PAIR = 2 * 4 / math.pi
_GROUP_TOKENS = 40_000


class _Block:
    """A group of rows' upcoming outputs (``jump.Outputs``) and how far each row has read them."""

    def __init__(self, streams, rows: np.ndarray, tokens_left: np.ndarray, m: int) -> None:
        self.streams = streams
        self.rows = rows
        self.start = streams.state()[rows]
        self.read = np.zeros(len(rows), dtype=np.int64)  # outputs read before the current block
        self.ptr = np.zeros(len(rows), dtype=np.int64)  # outputs read in it
        self.m = m
        self.left = tokens_left
        self._fill()

    def _fill(self) -> None:
        left = np.maximum(self.left, 1)
        per_token = (self.m + 1) // 2 * _MEAN_OUTPUTS_PER_NORMAL_PAIR + 4
        need = per_token * left + 8 * 9 * np.sqrt(left) + 4 * self.m + 64
        self.out = jump.Outputs(jump.jump(self.start, self.read), int(need.max(initial=1)))

    def ensure(self, at: np.ndarray, reach: int) -> None:
        """Makes ``reach`` more outputs readable for rows ``at`` (block-local indices): when one of them would run
        out, a new block starts where every row of the group stands (``tokens_left`` sizes it)."""
        if at.size and (self.ptr[at] + reach >= self.out.n).any():
            self.read += self.ptr
            self.ptr[:] = 0
            self._fill()

    def doubles(self, at, positions) -> np.ndarray:
        return (self.out.at(at, positions) >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def finish(self) -> None:
        """Moves each row's stream past what it read (as the call-by-call draws would have)."""
        self.streams.resume(self.rows, jump.jump(self.start, self.read + self.ptr))


def _block_gamma(block: _Block, at: np.ndarray, shape: float) -> np.ndarray:
    """NoiseSampling.gamma for rows ``at`` of the block, reading its outputs as the stream calls would."""
    d = shape - 1.0 / 3
    c = 1 / math.sqrt(9 * d)
    out = np.empty(len(at))
    pending = np.arange(len(at))
    while pending.size:
        rows = at[pending]
        block.ensure(rows, 3)
        p = block.ptr[rows]
        u = 2 * block.doubles(rows, p) - 1
        v = 2 * block.doubles(rows, p + 1) - 1
        block.ptr[rows] += 2
        s = u * u + v * v
        ok = (s < 1) & (s != 0)
        normal_ok = pending[ok]
        so = s[ok]
        x = u[ok] * np.sqrt(-2 * fdlibm.log(so) / so)
        w = 1 + c * x
        positive = w > 0
        trying = normal_ok[positive]
        x, w = x[positive], w[positive]
        w = w * w * w
        uniform = _block_uniform(block, at[trying])
        accept = uniform < 1 - 0.0331 * x * x * x * x
        slow = np.flatnonzero(~accept)  # the squeeze fails for ~1 %: only they need the logarithms
        if slow.size:
            xs, ws = x[slow], w[slow]
            accept[slow] = fdlibm.log(uniform[slow]) < 0.5 * xs * xs + d * (1 - ws + fdlibm.log(ws))
        out[trying[accept]] = d * w[accept]
        pending = np.concatenate([pending[~ok], normal_ok[~positive], trying[~accept]])
    return out


def _block_uniform(block: _Block, rows: np.ndarray) -> np.ndarray:
    """RandomStream.nextUniform from the block: one output, more while the leading bits are all zero."""
    block.ensure(rows, 1)
    bits = block.out.at(rows, block.ptr[rows])
    block.ptr[rows] += 1
    exponent = xoshiro._TOP_ZEROS.take((bits >> np.uint64(52)).astype(np.intp))
    pending = np.flatnonzero(exponent == 12)
    while pending.size:  # probability 2^-12 per draw: the JVM reads words until one is nonzero
        block.ensure(rows[pending], 1)
        more = block.out.at(rows[pending], block.ptr[rows[pending]])
        block.ptr[rows[pending]] += 1
        again = (more == 0) & (exponent[pending] < 1100)
        done = pending[~again]
        exponent[done] += xoshiro._leading_zeros(more[~again])
        exponent[pending[again]] += 64
        pending = pending[again]
    mantissa = 1.0 + (bits & xoshiro._MANTISSA).astype(np.float64) * 2.0**-52
    n = exponent + 1
    if n.max(initial=0) < 1022:
        return mantissa * ((1023 - n) << 52).view(np.float64)
    return xoshiro._scalb_down(mantissa, n)


def _block_normal_pairs(block: _Block, at: np.ndarray, pairs: int, u_out, v_out, s_out, tokens) -> None:
    """The accepted polar pairs (u, v, s) of m normals for rows ``at``, into row ``tokens`` of the outputs."""
    window = int(pairs / (math.pi / 4) + 8 * math.sqrt(pairs) + 8)
    steps = 2 * np.arange(window)
    got = np.zeros(len(at), dtype=np.int64)
    pending = np.arange(len(at))
    while pending.size:
        rows = at[pending]
        block.ensure(rows, 2 * window)
        p = block.ptr[rows][:, None] + steps[None, :]
        u = 2 * block.doubles(rows[:, None], p) - 1
        v = 2 * block.doubles(rows[:, None], p + 1) - 1
        s = u * u + v * v
        ok = (s < 1) & (s != 0)
        count = np.cumsum(ok, axis=1) + got[pending][:, None]
        take = ok & (count <= pairs)
        i, j = np.nonzero(take)
        slot = count[i, j] - 1
        where = tokens[pending[i]]
        u_out[where, slot], v_out[where, slot], s_out[where, slot] = u[i, j], v[i, j], s[i, j]
        done = count[:, -1] >= pairs
        last = np.argmax(count >= pairs, axis=1)
        block.ptr[rows[done]] += 2 * (last[done] + 1)
        block.ptr[rows[~done]] += 2 * window
        got[pending[~done]] = count[~done, -1]
        pending = pending[~done]


def _block_draws(streams, m: int, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_reference_draws``, reading each row's outputs from blocks made by jumping ahead (``jump``): the same
    values, with the cost in bulk array work rather than in one step per output of the longest row."""
    total = int(first[-1])
    counts = np.diff(first)
    pairs = (m + 1) // 2
    radius = np.empty(total)
    u_out = np.empty((total, pairs))
    v_out = np.empty((total, pairs))
    s_out = np.empty((total, pairs))
    order = np.argsort(counts, kind="stable")
    order = order[counts[order] > 0]
    bounds = np.searchsorted(np.cumsum(counts[order]), np.arange(_GROUP_TOKENS, total + _GROUP_TOKENS, _GROUP_TOKENS))
    start = 0
    for end in np.unique(np.append(bounds + 1, len(order))):
        group = order[start : int(end)]
        start = int(end)
        if not group.size:
            continue
        length = counts[group]
        block = _Block(streams, group, length, m)
        local = np.arange(len(group))
        for t in range(int(length.max())):
            at = local[length > t]
            block.left = length - t
            tokens = first[group[at]] + t
            radius[tokens] = _block_gamma(block, at, float(m))
            _block_normal_pairs(block, at, pairs, u_out, v_out, s_out, tokens)
        block.finish()
    f = np.sqrt(-2 * fdlibm.log(s_out) / s_out) if total else s_out
    normals = np.empty((total, 2 * pairs))
    normals[:, 0::2] = u_out * f
    normals[:, 1::2] = v_out * f
    return radius, normals[:, :m]


def noisy_points(streams, model: Model, ranks: np.ndarray, first: np.ndarray, epsilon: float, transform) -> np.ndarray:
    """φ(x) + Z for every token of the batch (T x m, double), Z = R·T·U as EmbeddingNoise.addTo draws and adds it:
    per row, token after token, R ~ Gamma(m)/ε then the m normals of U."""
    m = model.dim
    total = len(ranks)
    draws = _block_draws if m >= 2 else _reference_draws
    gamma, normals = draws(streams, m, first)
    radius = gamma / epsilon
    points = model.vectors64[ranks]
    if not total:
        return points
    norm2 = np.zeros(total)
    for i in range(m):  # one running sum, i ascending
        norm2 += normals[:, i] * normals[:, i]
    normals *= (1 / np.sqrt(norm2))[:, None]
    if transform is None:
        points += radius[:, None] * normals
        return points
    step = max(1, (1 << 18) // m)
    for start in range(0, total, step):  # s_a = Σ_b T_ab·u_b, b ascending, one running sum per a
        u = normals[start : start + step]
        s = np.zeros_like(u)
        for b in range(m):
            s += u[:, b : b + 1] * transform[:, b]
        points[start : start + step] += radius[start : start + step, None] * s
    return points


# -------------------------------------------------------------------------------------------- the search


def rounding_margin(dim: int, query_norm: np.ndarray, max_norm: float) -> np.ndarray:
    """NeighbourSearch.roundingMargin: how far a float32 score's squared distance can be from the exact one,
    for any summation order, with or without fused multiply-adds."""
    u = 2.0**-24
    nu = (dim + 1) * u
    if not nu < 0.5:
        return np.full(np.shape(query_norm), np.inf)
    gamma = nu / (1 - nu)
    total = query_norm + max_norm
    return (
        2 * gamma * (query_norm * max_norm + (1 + u) * 0.5 * max_norm * max_norm)
        + 1.01 * u * max_norm * max_norm
        + 4 * u * total * total
        + 1e-9
    )


_QUERY_BLOCK = 256  # sgemm's best on a 25,000-word vocabulary (69 GFLOP/s, against 50 at 64 queries)


class NearestWords:
    """The exact k nearest words of noisy points: what brute force in double returns, ties to the lower rank."""

    def __init__(self, model: Model) -> None:
        self.vectors64 = model.vectors64
        self.size, self.dim = self.vectors64.shape
        self.mean = self.vectors64.mean(axis=0)
        centred = (self.vectors64 - self.mean).astype(np.float32)
        c64 = centred.astype(np.float64)
        norms2 = np.einsum("ij,ij->i", c64, c64)
        # (m + 1) x |V|: the centred words and, as an extra coordinate against the query's 1, -‖φ'(y)‖²/2; one
        # product gives q'·φ'(y) - ‖φ'(y)‖²/2 = (‖q'‖² - d²)/2, the largest scores being the nearest words.
        self.words_t = np.ascontiguousarray(np.vstack([centred.T, (-0.5 * norms2).astype(np.float32)[None, :]]))
        self.max_norm = float(np.sqrt(norms2.max(initial=0.0)))

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(words, distances), each T x k, nearest first; distances √ of the JVM's exact d²."""
        total = len(queries)
        words = np.empty((total, k), dtype=np.int64)
        dists = np.empty((total, k))
        block = max(16, min(_QUERY_BLOCK, (1 << 23) // max(1, self.size)))
        for start in range(0, total, block):
            end = min(total, start + block)
            w, d = self._block(queries[start:end], k)
            words[start:end], dists[start:end] = w, d
        return words, dists

    def _block(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        n = len(q)
        qc = np.empty((n, self.dim + 1), dtype=np.float32)
        qc[:, : self.dim] = q - self.mean
        qc[:, self.dim] = 1
        qc64 = qc[:, : self.dim].astype(np.float64)
        q_norm = np.sqrt(np.einsum("ij,ij->i", qc64, qc64))
        scores = qc @ self.words_t
        # The k best screened scores, by taking the best out k times; then the best of the rest.
        every = np.arange(n)
        best = np.empty((n, k), dtype=np.int64)
        for r in range(k):
            best[:, r] = scores.argmax(axis=1)
            if r == k - 1:
                kth = scores[every, best[:, r]].astype(np.float64)
            scores[every, best[:, r]] = -np.inf
        rest = scores.max(axis=1).astype(np.float64) if self.size > k else np.full(n, -np.inf)
        # A word whose screened d² is more than 2·margin beyond the k-th screened one has an exact d² above
        # those of the k kept words: it is neither among the k nearest nor tied with them. (x2 to spare.)
        floor = kth - 2 * rounding_margin(self.dim, q_norm, self.max_norm)
        wide = np.flatnonzero(rest >= floor)  # a close call: every word within the margin is a candidate
        narrow = np.flatnonzero(rest < floor)
        qi = [np.repeat(narrow, k)]
        yi = [best[narrow].reshape(-1)]
        if wide.size:
            for r in range(k):
                scores[wide, best[wide, r]] = np.inf
            wq, wy = np.nonzero(scores[wide] >= floor[wide, None])
            qi.append(wide[wq])
            yi.append(wy)
        qi = np.concatenate(qi)
        yi = np.concatenate(yi)
        exact = _summed_squares(q[qi] - self.vectors64[yi])
        order = np.lexsort((yi, exact, qi))
        qi, yi, exact = qi[order], yi[order], exact[order]
        starts = np.searchsorted(qi, every)
        take = starts[:, None] + np.arange(k)[None, :]
        return yi[take], np.sqrt(exact[take])


_INDEXES: dict[tuple[str, str], NearestWords] = {}
_INDEXES_LOCK = threading.Lock()


def nearest_words(model: Model) -> NearestWords:
    with _INDEXES_LOCK:
        slot = (model.name, model.embeddings_sha256)
        index = _INDEXES.get(slot)
        if index is None:
            index = _INDEXES[slot] = NearestWords(model)
    return index


# ------------------------------------------------------------------------------------------ the mechanisms


class NoisyEmbedding(Mechanism):
    """Laplace (λ = 0) or Mahalanobis noise, the exact k nearest words, then ``choose`` (NoisyEmbeddingMechanism)."""

    k = 1

    def __init__(self, model: Model, epsilon: float, lam: float = 0.0) -> None:
        self.model = model
        self.epsilon = float(epsilon)
        self.transform = None if lam == 0 else noise_transform(model, lam)
        self.index = nearest_words(model)

    def sanitize_rows(self, streams, ranks, first):
        points = noisy_points(streams, self.model, ranks, first, self.epsilon, self.transform)
        words, dists = self.index.search(points, self.k)
        return self.choose(streams, first, words, dists)

    def choose(self, streams, first, words, dists) -> np.ndarray:
        return words[:, 0].copy()


class Laplace(NoisyEmbedding):
    name = "laplace"

    def __init__(self, model: Model, epsilon: float) -> None:
        super().__init__(model, epsilon, 0.0)


class Mahalanobis(NoisyEmbedding):
    name = "mahalanobis"


class Vickrey(NoisyEmbedding):
    """VickreyMechanism.choose: one nextDouble per token, in text order, after the row's search."""

    def __init__(self, model: Model, epsilon: float, lam: float, t: list[float]) -> None:
        self.t = np.array([float(x) for x in t])
        self.k = 2 if len(self.t) == 1 else len(self.t)
        self.name = "vickrey" if len(self.t) == 1 else "vickrey-topk"
        if len(self.t) > model.size:  # VickreyMechanism's validate(spec, model), before any row
            raise exceeds_vocabulary(self.name, "k (the number of thresholds in t)", len(self.t), model.size)
        super().__init__(model, epsilon, lam)

    def choose(self, streams, first, words, dists):
        total = len(words)
        u = np.empty(total)
        counts = np.diff(first)
        for t in range(int(counts.max(initial=0))):
            rows = np.flatnonzero(counts > t)
            u[first[rows] + t] = streams.next_double(rows)
        if len(self.t) == 1:
            t0 = float(self.t[0])
            d1, d2 = dists[:, 0], dists[:, 1]
            den = t0 * d1 + (1 - t0) * d2
            with np.errstate(divide="ignore", invalid="ignore"):
                p_first = np.where(den > 0, (1 - t0) * d2 / den, 1.0)
            return np.where(u < p_first, words[:, 0], words[:, 1])
        logs = -self.t[None, :] * dists
        top = logs.max(axis=1)
        cumulative = np.empty_like(dists)
        running = np.zeros(total)
        for r in range(self.k):  # the JVM's running total, r ascending
            running = running + fdlibm.exp(logs[:, r] - top)
            cumulative[:, r] = running
        target = u * running
        below = target[:, None] < cumulative
        pick = np.where(below.any(axis=1), below.argmax(axis=1), self.k - 1)
        return words[np.arange(total), pick]
