"""BRR in the Python engine against the JVM's classes (``oracle/Oracle.java``): fdlibm's sin/cos, the binary codes,
the flip probability, and whole rows' outputs and streams, on a small synthetic model and on the default model;
and the exact Hamming search against a plain scan, without a JVM."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dptext.engine import brr, fdlibm, keys
from dptext.engine.model import Model
from dptext.engine.xoshiro import RowStreams
from tests.engine import jvm, model_files

KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"


def _hex_double(x: float) -> str:
    return jvm.hex_lines(np.array([x], dtype=np.float64))[0]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Model:
    # 240 words of 10 dimensions: 256-bit codes of 10-d vectors repeat patterns, so Hamming ties are common.
    words, vectors = model_files.synthetic()
    path = tmp_path_factory.mktemp("brr") / "synthetic.dptext-model"
    return Model(str(model_files.write(path, words, vectors, {0: 8})))


def trig_arguments() -> np.ndarray:
    rng = np.random.default_rng(54)
    u = (rng.integers(0, 2**53, 40_000, dtype=np.int64)).astype(np.float64) * 2.0**-53
    parts = [(2.0 * math.pi) * u, np.array([0.0, -0.0, 2.0**-30, 1e-300, 5e-324, np.inf, -np.inf, np.nan])]
    parts.append(rng.uniform(-(2.0**19) * math.pi / 2, 2.0**19 * math.pi / 2, 20_000))
    parts.append(rng.uniform(-10, 10, 20_000))
    # Around k*pi/2 (the reduction's cancellations) and every threshold high word.
    k = np.arange(-40, 41, dtype=np.float64)
    centres = k * (math.pi / 2)
    near = [(centres.view(np.int64)[:, None] + np.arange(-30, 31, dtype=np.int64)[None, :]).view(np.float64).ravel()]
    for h in [0x3FE921FB, 0x4002D97C, 0x3FF921FB, 0x3E400000, 0x3FD33333, 0x3FE90000, *brr_hw()]:
        for dh in (-1, 0, 1):
            lows = np.array([0, 1, 0x54442D18, 0x7FFFFFFF, 0xFFFFFFFF], dtype=np.int64)
            bits = (np.int64(h + dh) << 32) | lows
            near.append(bits.view(np.float64))
            near.append(-bits.view(np.float64))
    parts.extend(near)
    return np.concatenate(parts)


def brr_hw() -> list[int]:
    return [int(h) for h in fdlibm._NPIO2_HW]


def test_sin_and_cos_are_strictmath_bit_for_bit():
    x = trig_arguments()
    lines = jvm.hex_lines(x)
    sin, cos = jvm.ask([("fdlibm", ["sin"], lines), ("fdlibm", ["cos"], lines)], spark=False)
    for name, answer in (("sin", sin), ("cos", cos)):
        expected = jvm.from_hex_lines(answer)
        got = getattr(fdlibm, name)(x).view(np.uint64)
        bad = np.flatnonzero(expected != got)
        assert bad.size == 0, f"{name}: {bad.size} differ, e.g. x={x[bad[:5]]!r}"


def _codes_request(model_path: str, bits: int, eps: float, words) -> tuple:
    return ("brr-codes", [model_path, str(bits), _hex_double(eps)], [str(w) for w in words])


def _check_codes(model: Model, path: str, cases: list[tuple[int, float]], spark: bool = False) -> None:
    words = list(range(model.size))
    answers = jvm.ask([_codes_request(path, bits, eps, words) for bits, eps in cases], spark=spark)
    for (bits, eps), answer in zip(cases, answers, strict=True):
        p_hex, first = answer[0].split(" : ")
        rows = [first, *answer[1:]]
        expected = np.array([[int(h, 16) for h in line.split()] for line in rows], dtype=np.uint64)
        codes = brr.codes_for(model, bits)
        mismatched = np.flatnonzero((codes.codes != expected).any(axis=1))
        assert mismatched.size == 0, f"{bits} bits: words {mismatched[:10]} have other codes"
        mechanism = brr.Brr(model, eps, bits)
        assert _hex_double(mechanism.flip_probability) == p_hex


CASES = [(256, 3.0), (64, 1.0), (100, 0.7), (1, 2.0), (130, 12.0)]


def test_codes_and_flip_probability_match_the_jvm(synthetic):
    _check_codes(synthetic, str(synthetic.name), CASES)


def _rows(size: int, count: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    rows = [[] for _ in range(3)]  # empty rows too
    for _ in range(count):
        n = int(rng.integers(1, 40))
        if rng.random() < 0.1:
            n = int(rng.integers(100, 400))  # a long row: the others finish first
        rows.append(rng.integers(0, size, n).tolist())
    return rows


def _check_rows(model: Model, path: str, bits: int, eps: float, rows: list[list[int]], spark: bool = False) -> None:
    ids = [f"{i:08x}".encode() for i in range(len(rows))]
    purpose = "text"
    lines = [" ".join([i.hex(), *map(str, r)]) for i, r in zip(ids, rows, strict=True)]
    (answer,) = jvm.ask([("brr", [path, str(bits), _hex_double(eps), KEY, purpose.encode().hex()], lines)], spark=spark)
    seeder = keys.RowSeeder(keys.SecretKey.parse(KEY, "test"), purpose)
    streams = seeder.streams(ids)
    counts = np.array([len(r) for r in rows], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(counts)])
    ranks = np.array([w for r in rows for w in r], dtype=np.int64)
    out = brr.Brr(model, eps, bits).sanitize_rows(streams, ranks, first)
    state = streams.state()
    for r, line in enumerate(answer):
        outputs, jstate = line.split("|")
        expected = [int(t) for t in outputs.split()]
        assert out[first[r] : first[r + 1]].tolist() == expected, f"row {r} ({bits} bits, ε={eps})"
        assert jvm.hex_lines(state[r]) == jstate.split(), f"row {r}'s stream ({bits} bits, ε={eps})"


@pytest.mark.parametrize("bits,eps", [*CASES, (256, 0.05), (64, 40.0), (64, 800.0), (4096, 1.0)])
def test_rows_match_the_jvm(synthetic, bits, eps):
    """Defaults (256 bits, ε = 3), the registry example (64 bits, ε = 1), bits not a multiple of 64, an ε so small
    every query is scanned, one so large p has many leading zero digits, and one where p = 0 (no draws)."""
    rows = _rows(synthetic.size, 60 if bits < 4096 else 8, seed=bits + int(eps * 100))
    _check_rows(synthetic, str(synthetic.name), bits, eps, rows)


def test_default_model_codes_and_rows_match_the_jvm():
    from dptext.engine import model

    try:
        path = model.default_path()
    except model.ModelError as e:
        pytest.skip(str(e))
    m = model.load("default")
    # Spark's jars: the default model stores a covariance, which the JVM reads with netlib's LAPACK (issue 54 §3).
    _check_codes(m, path, [(256, 3.0), (64, 1.0)], spark=True)
    rng = np.random.default_rng(1)
    rows = [rng.integers(0, m.size, int(rng.integers(1, 200))).tolist() for _ in range(40)]
    _check_rows(m, path, 256, 3.0, rows, spark=True)
    _check_rows(m, path, 64, 1.0, rows, spark=True)
    _check_rows(m, path, 256, 0.5, rows[:10], spark=True)


# --------------------------------------------------------------------------------- without a JVM


def plain_scan(codes: np.ndarray, queries: np.ndarray) -> np.ndarray:
    d = np.array(
        [[sum(bin(int(a) ^ int(b)).count("1") for a, b in zip(q, c, strict=True)) for c in codes] for q in queries]
    )
    return np.argmin(d, axis=1)  # the first least: ties to the lower rank


@pytest.mark.parametrize("bits", [7, 64, 100, 256])
def test_nearest_is_the_plain_scan_with_ties_to_the_lower_rank(bits, monkeypatch):
    monkeypatch.setattr(brr, "_PROBE_BLOCK", 37)  # several blocks
    rng = np.random.default_rng(bits)
    n = 300
    longs = (bits + 63) // 64
    raw = rng.integers(0, 2**63, (n // 3, longs), dtype=np.int64).astype(np.uint64)
    raw = np.concatenate([raw, raw, raw ^ np.uint64(1)])  # duplicate codes: exact ties
    if bits % 64:
        raw[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
    codes = brr.Codes(raw, bits)
    hints = rng.integers(0, n, 400)
    flips = rng.random((400, bits)) < rng.choice([0.02, 0.1, 0.3, 0.5], (400, 1))
    queries = raw[hints] ^ brr.pack(flips)
    assert codes.nearest(queries, hints).tolist() == plain_scan(raw, queries).tolist()


def test_flip_masks_follow_the_digit_comparison():
    """The masks are the JVM's loop: each lane's bit is 1 iff its uniform's digits fall below p's first."""
    model_rows = np.array([0, 3, 5], dtype=np.int64)
    mechanism = brr.Brr.__new__(brr.Brr)
    mechanism.digit_masks = np.where(brr.binary_digits(0.3), brr._ALL, np.uint64(0)).astype(np.uint64)
    mechanism.codes = brr.Codes(np.zeros((1, 1), dtype=np.uint64), 64)
    mechanism.last_lane = brr._ALL
    streams = RowStreams.from_seed(np.arange(2))
    reference = RowStreams.from_seed(np.arange(2))
    masks = mechanism.flip_masks(streams, model_rows)
    digits = brr.binary_digits(0.3)
    for row, (a, b) in enumerate([(0, 3), (3, 5)]):
        for t in range(a, b):
            undecided, ones = (1 << 64) - 1, 0
            for d in digits:
                if undecided == 0:
                    break
                u = int(reference.next_long(np.array([row]))[0])
                if d:
                    ones |= undecided & ~u & ((1 << 64) - 1)
                    undecided &= u
                else:
                    undecided &= ~u & ((1 << 64) - 1)
            assert int(masks[t, 0]) == ones
    assert (streams.state() == reference.state()).all()


@pytest.mark.parametrize("bits", [7, 64, 100, 256])
def test_floors_are_the_distance_to_the_nearest_other_word_capped(bits):
    """``Codes.floors``: min(d(x, y) over y != x, 3c), c the 16-bit chunks; duplicates have floor 0."""
    rng = np.random.default_rng(bits + 1)
    longs = (bits + 63) // 64
    raw = rng.integers(0, 2**63, (150, longs), dtype=np.int64).astype(np.uint64)
    near = raw[:50] ^ brr.pack(rng.random((50, bits)) < 0.03)  # words a few bits from others
    raw = np.concatenate([raw, near, raw[:5]])  # and exact duplicates
    if bits % 64:
        raw[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
    codes = brr.Codes(raw, bits)
    d = np.array([[sum(bin(int(a) ^ int(b)).count("1") for a, b in zip(p, q, strict=True)) for q in raw] for p in raw])
    np.fill_diagonal(d, 1 << 20)
    expected = np.minimum(d.min(axis=1), codes.floor_cap)
    ranks = rng.permutation(len(raw))
    assert codes.floors(ranks[:100]).tolist() == expected[ranks[:100]].tolist()  # in two calls: the cache
    assert codes.floors(ranks).tolist() == expected[ranks].tolist()


@pytest.mark.parametrize("bits", [7, 64, 256])
def test_floors_decide_what_they_are_asked_at_the_lower_cap_first(bits, monkeypatch):
    """``Codes.floors(ranks, need)``: computed at the 2c cap where that decides floor > need, at 3c where it
    does not; floors(ranks, need) > need is min(floor, 3c) > need for every need, whatever was computed
    before."""
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")  # (with a machine cache every word's floor is at 3c)
    rng = np.random.default_rng(bits + 5)
    longs = (bits + 63) // 64
    raw = rng.integers(0, 2**63, (150, longs), dtype=np.int64).astype(np.uint64)
    near = raw[:50] ^ brr.pack(rng.random((50, bits)) < 0.03)
    raw = np.concatenate([raw, near, raw[:5]])
    if bits % 64:
        raw[:, -1] &= np.uint64((1 << (bits % 64)) - 1)
    d = np.array([[sum(bin(int(a) ^ int(b)).count("1") for a, b in zip(p, q, strict=True)) for q in raw] for p in raw])
    np.fill_diagonal(d, 1 << 20)
    codes = brr.Codes(raw, bits)
    exact = np.minimum(d.min(axis=1), codes.floor_cap)
    for _ in range(4):  # calls in sequence: the values computed by earlier calls serve later ones
        ranks = rng.permutation(len(raw))[:120]
        need = rng.integers(0, codes.floor_cap + 2, len(ranks))
        got = codes.floors(ranks, need)
        assert ((got > need) == (exact[ranks] > need)).all()
        low = exact[ranks] < 2 * codes.chunks
        assert (got[low] == exact[ranks][low]).all()  # below the lower cap: exact
    fresh = brr.Codes(raw, bits)
    fresh.floors(np.arange(len(raw)), np.zeros(len(raw), dtype=np.int64))  # every word at the lower cap only
    assert (fresh._floor_caps[exact >= 2 * fresh.chunks] == 2 * fresh.chunks).all()
    assert fresh.floors(np.arange(len(raw))).tolist() == exact.tolist()  # then asked in full: 3c


def test_nearest_certifies_the_input_word_only_beyond_twice_the_distance():
    """The input word x wins outright only when its floor exceeds 2b; at exactly 2b a lower word y can tie
    (d(q, y) = b) and must win."""
    bits = 256
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**63, 4, dtype=np.int64).astype(np.uint64)
    # y = x with bits 0..9 flipped (d(x, y) = 10); q = x with bits 0..4 flipped: d(q, x) = d(q, y) = 5.
    y = x.copy()
    y[0] ^= np.uint64((1 << 10) - 1)
    q = x.copy()
    q[0] ^= np.uint64((1 << 5) - 1)
    others = rng.integers(0, 2**63, (50, 4), dtype=np.int64).astype(np.uint64)
    raw = np.concatenate([others, y[None, :], x[None, :]])  # y has the lower rank
    codes = brr.Codes(raw, bits)
    assert codes.floors(np.array([51])).tolist() == [10]
    assert codes.nearest(q[None, :], np.array([51])).tolist() == [50]
    assert plain_scan(raw, q[None, :]).tolist() == [50]
    # One bit fewer flipped: b = 4, the floor 10 > 8, x certified (and right).
    q[0] ^= np.uint64(1 << 4)
    assert codes.nearest(q[None, :], np.array([51])).tolist() == [51] == plain_scan(raw, q[None, :]).tolist()


def _reference_masks(digits: np.ndarray, streams: RowStreams, counts: list[int]) -> list[list[int]]:
    """``BrrMechanism.bernoulliMask`` call by call, row by row, on Python ints."""
    masks = []
    for row, count in enumerate(counts):
        mine = []
        for _ in range(count):
            undecided, ones = (1 << 64) - 1, 0
            for d in digits:
                if undecided == 0:
                    break
                u = int(streams.next_long(np.array([row]))[0])
                if d:
                    ones |= undecided & ~u & ((1 << 64) - 1)
                    undecided &= u
                else:
                    undecided &= ~u & ((1 << 64) - 1)
            mine.append(ones)
        masks.append(mine)
    return masks


@pytest.mark.parametrize(
    "p", [0.5, 0.3, 0.0474258731775668, 2.0**-20 + 2.0**-62, 2.0**-20 + 2.0**-63, 2.0**-20 + 2.0**-64, 1e-9]
)
def test_flip_masks_equal_the_call_by_call_draws_and_final_streams(p):
    """Every digit count: below 63 (the shift register), 63 (its last), 64 and more (the digit gather); rows of
    many lengths, so that the NumPy loop drops rows and hands the last ones to the Python tail."""
    digits = brr.binary_digits(p)
    mechanism = brr.Brr.__new__(brr.Brr)
    mechanism.digit_masks = np.where(digits, brr._ALL, np.uint64(0)).astype(np.uint64)
    mechanism.codes = brr.Codes(np.zeros((1, 2), dtype=np.uint64), 128)
    mechanism.last_lane = brr._ALL
    rng = np.random.default_rng(len(digits))
    tokens = [int(t) for t in rng.choice([0, 1, 2, 5, 30, 80], size=40)]
    first = np.concatenate([[0], np.cumsum(tokens)])
    seeds = rng.integers(0, 2**62, len(tokens))
    streams = RowStreams.from_seed(seeds)
    reference = RowStreams.from_seed(seeds)
    masks = mechanism.flip_masks(streams, first)
    expected = _reference_masks(digits, reference, [2 * t for t in tokens])
    for row in range(len(tokens)):
        got = masks[first[row] : first[row + 1]].reshape(-1).tolist()
        assert got == expected[row], f"row {row}"
    assert (streams.state() == reference.state()).all()


def test_floors_come_from_the_machine_cache_written_once_and_checked(tmp_path, monkeypatch):
    """Every word's floor at 3c is computed by the first process on a machine and read by the later ones; a file
    whose values are not the codes' (with a valid checksum) is recomputed and replaced."""
    from dptext.engine import distances as machine_cache

    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    rng = np.random.default_rng(11)
    raw = rng.integers(0, 2**63, (300, 1), dtype=np.int64).astype(np.uint64)
    raw[150:200] = raw[:50] ^ brr.pack(rng.random((50, 64)) < 0.05)
    d = np.array([[bin(int(a) ^ int(b)).count("1") for b in raw[:, 0]] for a in raw[:, 0]])
    np.fill_diagonal(d, 1 << 20)
    codes = brr.Codes(raw, 64)
    expected = np.minimum(d.min(axis=1), codes.floor_cap)
    assert codes.floors(np.arange(300), np.zeros(300, dtype=np.int64)).tolist() == expected.tolist()
    (f,) = tmp_path.glob("floors-*.f64")
    assert (codes._floor_caps == codes.floor_cap).all()  # every word from the file's computation
    scanned = []
    scan = brr.Codes._scanned_floors
    monkeypatch.setattr(brr.Codes, "_scanned_floors", lambda self, ys: scanned.append(len(ys)) or scan(self, ys))
    assert brr.Codes(raw, 64).floors(np.arange(300)).tolist() == expected.tolist()
    assert scanned and max(scanned) <= 16  # a later process: read, only a sample recomputed to check the file
    # A file with a valid checksum over other values is not used: recomputed, and rewritten.
    header = f.read_bytes()[: machine_cache._HEADER]
    digest = header[24:56]
    tmp = machine_cache.writable(tmp_path, "floors")
    assert machine_cache.write(tmp, f, digest, (expected + 1).astype(np.float64))
    assert brr.Codes(raw, 64).floors(np.arange(300)).tolist() == expected.tolist()
    assert np.frombuffer(f.read_bytes()[machine_cache._HEADER :], dtype="<f8").tolist() == expected.tolist()


def test_shipped_floors_are_read_before_the_machine_cache_and_checked(tmp_path, monkeypatch):
    """Floors the wheel ships (``engine.prebuilt``, ``distances.SHIPPED``) are used even with the machine's cache
    off, and nothing is scanned but the check's sample; a shipped file whose values are not the codes' is not used."""
    from dptext.engine import distances as machine_cache

    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    monkeypatch.setattr(machine_cache, "SHIPPED", tmp_path)
    rng = np.random.default_rng(12)
    raw = rng.integers(0, 2**63, (300, 1), dtype=np.int64).astype(np.uint64)
    codes = brr.Codes(raw, 64)
    expected = codes.all_floors()
    shipped = machine_cache.store(tmp_path, "floors", codes.floors_key(), expected)
    assert shipped.stat().st_mode & 0o777 == 0o644  # readable by every user of an installed package
    scanned = []
    scan = brr.Codes._scanned_floors
    monkeypatch.setattr(brr.Codes, "_scanned_floors", lambda self, ys: scanned.append(len(ys)) or scan(self, ys))
    later = brr.Codes(raw, 64)
    assert later.floors(np.arange(300)).tolist() == expected.astype(np.int64).tolist()
    assert scanned and max(scanned) <= 16 and (later._floor_caps == later.floor_cap).all()
    machine_cache.store(tmp_path, "floors", codes.floors_key(), expected + 1)  # a valid checksum, other values
    scanned.clear()
    assert brr.Codes(raw, 64).floors(np.arange(300)).tolist() == expected.astype(np.int64).tolist()
    assert max(scanned) > 16  # computed here


def test_the_package_ships_the_default_models_floors_at_the_default_bits(monkeypatch):
    """The wheel's prebuilt/ holds the floors of the default model at the registry's default bits: a machine's
    first BRR worker computes none (build_support/maven.py runs ``dptext.engine.prebuilt``)."""
    from dptext.engine import distances as machine_cache
    from dptext.engine import model
    from dptext.engine.sanitizer import EngineSettings

    try:
        model.default_path()
    except model.ModelError as e:
        pytest.skip(str(e))
    if not machine_cache.SHIPPED.is_dir():
        pytest.skip("a source checkout: the build stages prebuilt/ into the package")
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    settings = EngineSettings.resolve({"mechanism": "brr"})
    codes = settings.build_mechanism(model.load(settings.model)).codes
    monkeypatch.setattr(brr.Codes, "all_floors", lambda self: pytest.fail("computed, not shipped"))
    assert codes._machine_floors() is not None
