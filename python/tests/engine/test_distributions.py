"""χ² tests of each Python-engine sampler against its exact conditional distribution, without a JVM.

For each mechanism and a few input words, 40,000 draws (one per row, rows seeded 0, 1, 2, … by SplitMix64)
are compared with P(y | x) computed by brute force over the vocabulary, in plain NumPy (not the sampler's
tables or fdlibm). Cells expected below 5 are pooled. Each test rejects when the χ² statistic exceeds the
quantile of 1 - 1e-6 (Wilson-Hilferty), so with the fixed seeds a correct sampler fails a given test with
probability 1e-6; the seeds are fixed, so a pass is reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dptext.engine import mechanisms
from dptext.engine.model import Model
from dptext.engine.xoshiro import RowStreams
from tests.engine import model_files

DRAWS = 40_000
Z = 4.753424  # the standard normal quantile of 1 - 1e-6


def chi2_bound(df: int) -> float:
    """The χ² quantile of 1 - 1e-6 with ``df`` degrees of freedom (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + Z * math.sqrt(2 / (9 * df))) ** 3


def assert_fits(draws: np.ndarray, p: np.ndarray) -> None:
    assert abs(p.sum() - 1) < 1e-9
    counts = np.bincount(draws, minlength=len(p)).astype(float)
    assert counts[p == 0].sum() == 0, "drew a word of probability 0"
    expected = p * len(draws)
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    keep = exp > 0
    obs, exp = obs[keep], exp[keep]
    stat = float(((obs - exp) ** 2 / exp).sum())
    df = len(obs) - 1
    assert df >= 3, "too few cells to test"
    assert stat < chi2_bound(df), f"χ² = {stat:.1f} over {df} degrees of freedom (bound {chi2_bound(df):.1f})"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Model:
    words, vectors = model_files.synthetic()
    path = tmp_path_factory.mktemp("models") / "synthetic.dptext-model"
    # k = 12 of 240 words: most rows leave targets outside, so both branches of the envelope are drawn.
    return Model(str(model_files.write(path, words, vectors, {0: 12, 24: 12})))


def draw(mechanism, x: int, seed: int = 0) -> np.ndarray:
    streams = RowStreams.from_seed(np.arange(seed, seed + DRAWS, dtype=np.int64))
    return mechanism.sample(streams, np.arange(DRAWS, dtype=np.int64), np.full(DRAWS, x, dtype=np.int64))


def all_distances(model: Model, x: int) -> np.ndarray:
    v = model.vectors.astype(np.float64)
    return np.sqrt(((v - v[x]) ** 2).sum(axis=1))


def exponential(model: Model, x: int, eps: float, start: int = 0, cap: float = math.inf) -> np.ndarray:
    logits = -eps * np.minimum(all_distances(model, x), cap) / 2
    logits[:start] = -np.inf
    w = np.exp(logits - logits.max())
    return w / w.sum()


@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0])
@pytest.mark.parametrize("x", [0, 117, 239])
def test_santext(model, eps, x):
    assert_fits(draw(mechanisms.SanText(model, eps), x), exponential(model, x, eps))


@pytest.mark.parametrize("cap", [None, "median"])
def test_the_screened_thresholds_decide_as_the_exact_ones(model, cap, monkeypatch):
    # The samplers compare a threshold from NumPy's log, and float32 distances, and compute fdlibm's log and the
    # ordered double sums only near the limits: forced to compute them everywhere, the draws must not change.
    x = 117
    gamma = float(np.median(all_distances(model, x)))
    make = (lambda: mechanisms.SanText(model, 2.0)) if cap is None else (lambda: mechanisms.Tem(model, 2.0, gamma, 0.1))
    screened = draw(make(), x)
    monkeypatch.setattr(mechanisms, "_THRESHOLD_MARGIN", math.inf)
    monkeypatch.setattr(mechanisms, "_SCREEN_SMALLEST", math.inf)
    assert np.array_equal(draw(make(), x), screened)


@pytest.mark.parametrize("x", [3, 200])
def test_tem_caps_the_distance(model, x):
    gamma = float(np.median(all_distances(model, x)))  # half the words lie beyond gamma: the cap decides
    tem = mechanisms.Tem(model, 2.0, gamma, 0.001)
    assert_fits(draw(tem, x), exponential(model, x, 2.0, cap=gamma))


def test_tem_default_gamma_follows_beta(model):
    tem = mechanisms.Tem(model, 3.0, 0.0, 0.001)
    assert tem.gamma == pytest.approx(2 / 3.0 * math.log((1 - 0.001) * 239 / 0.001))


@pytest.mark.parametrize("x", [5, 150])
def test_santext_plus(model, x):
    mechanism = mechanisms.SanTextPlus(model, 2.0, 0.9, 0.3)
    start = mechanism.output_start
    assert start == 240 - 216
    p = exponential(model, x, 2.0, start=start)
    if x < start:
        p = 0.3 * p
        p[x] += 0.7
    assert_fits(draw(mechanism, x), p)


@pytest.mark.parametrize("x", [0, 77])
def test_custext(model, x):
    mechanism = mechanisms.CusText(model, 2.0, 8, None, plus=False)
    members, start = mechanisms._groups(model, model.table(0, "custext"), 8)
    g = _group_of(members, start)[x]
    group = members[start[g] : start[g + 1]]
    d = all_distances(model, x)[group]
    w = np.exp(-0.5 * 2.0 * d / d.max())
    p = np.zeros(model.size)
    p[group] = w / w.sum()
    assert_fits(draw(mechanism, x), p)


def _group_of(members: np.ndarray, start: np.ndarray) -> np.ndarray:
    group_of = np.empty(len(members), dtype=np.int64)
    group_of[members] = np.repeat(np.arange(len(start) - 1), np.diff(start))
    return group_of


def test_custext_groups_partition_the_vocabulary(model):
    members, start = mechanisms._groups(model, model.table(0, "custext"), 8)
    assert sorted(members.tolist()) == list(range(model.size))
    sizes = np.diff(start)
    assert (sizes[:-1] == 8).all() and 8 <= sizes[-1] < 16
    assert (np.diff(members[start[:-1]]) > 0).all()  # each group led by the first word the ones before leave free


def diffractor_conditional(mechanism: mechanisms.Diffractor, x: int) -> np.ndarray:
    n, eps = mechanism.n, mechanism.epsilon
    f = np.zeros(n)
    for li in range(len(mechanism.order)):
        p = int(mechanism.position[li, x])
        j = np.arange(n)
        if mechanism.noise == "geometric":
            q = np.exp(-eps * np.abs(j - p)) * math.tanh(eps / 2)
            q[0] = math.exp(-eps * p) / (1 + math.exp(-eps))
            q[n - 1] = math.exp(-eps * (n - 1 - p)) / (1 + math.exp(-eps))
        else:
            q = np.exp(-eps * np.minimum(np.abs(j - p), mechanism.radius) / 2)
            q /= q.sum()
        f[mechanism.order[li]] += q / len(mechanism.order)
    return f


@pytest.mark.parametrize("noise,lists,x", [("geometric", 1, 10), ("geometric", 3, 200), ("tem", 1, 0), ("tem", 2, 90)])
def test_diffractor(model, noise, lists, x):
    mechanism = mechanisms.Diffractor(model, 0.8, noise, 5, lists)
    assert_fits(draw(mechanism, x), diffractor_conditional(mechanism, x))


def _by_rounds(mechanism, streams, ranks, first):
    """The reference: each row's tokens in order, one ``step`` per token position over the rows that have one."""
    out = np.empty(len(ranks), dtype=np.int64)
    position, end = first[:-1].copy(), first[1:]
    active = np.flatnonzero(end > position)
    while active.size:
        done, y = mechanism.step(streams, active, ranks[position[active]], np.ones(active.size, dtype=bool))
        assert done.all()
        out[position[active]] = y
        position[active] += 1
        active = active[position[active] < end[active]]
    return out


@pytest.mark.parametrize("lists", [1, 3])
def test_diffractor_whole_batches_are_its_rounds(model, lists):
    """``sanitize_rows`` (the rounds' draws, then every token's arithmetic at once) gives ``step``'s outputs round by
    round and leaves every row's stream where they do: ~60,000 tokens, ~20 of whose draws take the longer path (a
    leading exponent past the first word, probability 2^-12 a draw)."""
    mechanism = mechanisms.Diffractor(model, 0.3, "geometric", 5, lists)
    rng = np.random.default_rng(lists)
    counts = rng.integers(0, 800, 150)
    first = np.concatenate([[0], np.cumsum(counts)])
    ranks = rng.integers(0, model.size, int(first[-1]))
    seeds = rng.integers(0, 2**62, len(counts))
    expected_streams = RowStreams.from_seed(seeds)
    expected = _by_rounds(mechanism, expected_streams, ranks, first)
    streams = RowStreams.from_seed(seeds)
    assert np.array_equal(mechanism.sanitize_rows(streams, ranks, first), expected)
    assert (streams.state() == expected_streams.state()).all()


def test_diffractor_chains_are_the_plain_walk():
    """``_chain`` against the walk written plainly (``Diffractor.chain``): rows of every length, empty ones
    included, so the walk both steps to a row's first unvisited word and falls back to the lowest unvisited rank."""
    rng = np.random.default_rng(5)
    n = 300
    lengths = rng.integers(0, 6, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    neighbours = np.concatenate([rng.choice(n, k, replace=False) for k in lengths]).astype(np.int32)
    table = mechanisms.NeighbourTable(0, offsets, neighbours, np.zeros(n))
    for start in (0, 17, n - 1):
        visited, walk, current = set(), [], start
        while True:
            walk.append(current)
            visited.add(current)
            if len(walk) == n:
                break
            row = neighbours[offsets[current] : offsets[current + 1]].tolist()
            current = next((y for y in row if y not in visited), min(set(range(n)) - visited))
        assert mechanisms._chain(table, n, start) == walk


@pytest.mark.parametrize("eps", [0.8, 0.05])
def test_diffractor_geometric_floors_do_not_depend_on_the_log(model, monkeypatch, eps):
    # The geometric step takes floor(log u / -ε) from NumPy's log except within a margin of an integer, where it
    # takes fdlibm's: forced to take fdlibm's everywhere, the draws must not change.
    make = lambda: mechanisms.Diffractor(model, eps, "geometric", 5, 3)  # noqa: E731
    screened = draw(make(), 200)
    monkeypatch.setattr(mechanisms, "_THRESHOLD_MARGIN", math.inf)
    assert np.array_equal(draw(make(), 200), screened)


def test_the_test_rejects_a_wrong_distribution(model):
    """The same check fails a sampler off by a little: ε 3.0 drawn, ε 3.3 claimed."""
    with pytest.raises(AssertionError):
        assert_fits(draw(mechanisms.SanText(model, 3.0), 117), exponential(model, 117, 3.3))


def _pick_excess(cumulative: np.ndarray, row: int, length: int, u: float) -> int:
    """``ExponentialNeighbourSampler.pickExcess`` as the JVM writes it."""
    lo, hi = row, row + length - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo - row


@pytest.mark.parametrize("rows", [1, 40, 300])
def test_pick_row_is_the_jvms_binary_search(rows):
    """Both of ``pick_row``'s ways (one search per row for a few rows, all rows at once for more) give the JVM's
    index: rows of 1 to 700 entries with runs of equal values (zero excess), u at, between, below and above them."""
    rng = np.random.default_rng(rows)
    lengths = rng.integers(1, 700, size=rows)
    lengths[0] = 1
    pieces = []
    for n in lengths:
        w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n))
        c = np.cumsum(w)
        pieces.append(c / c[-1] if c[-1] > 0 else c)
    cumulative = np.concatenate(pieces)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for trial in range(20):
        at = starts + (rng.random(rows) * lengths).astype(np.int64)
        u = np.where(trial % 2 == 0, cumulative[at], rng.random(rows))  # exactly an entry, or anywhere
        u[: rows // 4] = rng.choice([0.0, 1.0 - 2.0**-53, 0.5], size=rows // 4)
        want = [_pick_excess(cumulative, int(s), int(n), float(x)) for s, n, x in zip(starts, lengths, u, strict=True)]
        assert mechanisms.pick_row(cumulative, starts, lengths, u).tolist() == want
