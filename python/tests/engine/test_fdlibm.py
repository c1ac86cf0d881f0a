"""fdlibm.exp/log/log1p/expm1/tanh against the JVM's StrictMath, bit for bit, on ~200,000 arguments each.

The arguments cover every branch of each algorithm: random bit patterns (NaN payloads, subnormals, both
signs), random values inside each branch's range, every high-word threshold the algorithms test (and its
neighbours, with several low words), the overflow/underflow thresholds and their neighbouring doubles, and
the special values. One JVM answers all five functions (``oracle/Oracle.java``).
"""

from __future__ import annotations

import numpy as np
import pytest

from dptext.engine import fdlibm
from tests.engine import jvm

FUNCTIONS = ("exp", "log", "log1p", "expm1", "tanh")
LN2 = 0.6931471805599453

# Every high word (of |x|) an algorithm compares against, and their sources.
THRESHOLD_HIGH_WORDS = [
    0x00100000,  # log: subnormal
    0x7FF00000,  # non-finite
    0x40862E42,  # exp/expm1: |x| >= 709.78
    0x3FD62E42,  # exp/expm1: |x| > 0.5 ln2
    0x3FF0A2B2,  # exp/expm1: |x| < 1.5 ln2
    0x3E300000,  # exp: 2**-28
    0x4043687A,  # expm1: 56 ln2
    0x3C900000,  # expm1/log1p: 2**-54
    0x3FDA827A,  # log1p: 0.41422
    0x3FF00000,  # log1p: -1, tanh: 1, log: 1
    0x3E200000,  # log1p: 2**-29
    0x3FD2BEC3,  # log1p: -0.2929
    0x43400000,  # log1p: 2**53
    0x40360000,  # tanh: 22
    0x3C800000,  # tanh: 2**-55
    0x3FE6A09E,  # log/log1p: sqrt(2)/2 ... sqrt(2) mantissa split (0x6a09e)
    0x3FF6A09E,
    0x3FE6147A,  # log: 0x6147a / 0x6b851 (hfsq branch)
    0x3FF6147A,
    0x3FE6B851,
    0x3FF6B851,
]
SPECIAL_BITS = [
    0x0000000000000000,
    0x8000000000000000,
    0x7FF0000000000000,
    0xFFF0000000000000,
    0x7FF8000000000000,
    0xFFF8000000000000,
    0x7FF0000000000001,  # signalling NaN
    0xFFF0000000000001,
    0x7FFFFFFFFFFFFFFF,
    0xFFFFFFFFFFFFFFFF,
    0x7FF8000000000123,
    0x0000000000000001,  # smallest subnormal
    0x8000000000000001,
    0x000FFFFFFFFFFFFF,  # largest subnormal
    0x0010000000000000,  # smallest normal
    0x7FEFFFFFFFFFFFFF,  # largest finite
    0xFFEFFFFFFFFFFFFF,
]
EXACT_THRESHOLDS = [
    7.09782712893383973096e02,  # exp/expm1 overflow
    -7.45133219101941108420e02,  # exp underflow
    -7.08396418532264106224e02,  # exp's result becomes subnormal (k = -1021 boundary region)
    -56 * LN2,
    22.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -0.25,
    0.5 * LN2,
    1.5 * LN2,
    LN2,
    -LN2,
    0.41422,
    -0.2929,
    2.0**53,
    2.0**-28,
    2.0**-29,
    2.0**-54,
    2.0**-55,
    2.0**-20,
    2.0**-1022,
    np.sqrt(2.0),
    np.sqrt(0.5),
]


def _bits_to_double(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def arguments() -> np.ndarray:
    """~200,000 doubles spanning every branch of the five algorithms (deterministic)."""
    rng = np.random.default_rng(20260601)
    parts = []
    # Random bit patterns: every exponent, both signs, NaN payloads, subnormals.
    parts.append(_bits_to_double(rng.integers(0, 2**64, 48_000, dtype=np.uint64)))
    # Log-uniform magnitudes over the whole double range, random signs.
    e = rng.uniform(-1074, 1024, 30_000)
    parts.append(np.ldexp(rng.uniform(1, 2, e.size), e.astype(np.int64)) * rng.choice([-1.0, 1.0], e.size))
    # Inside each branch's range.
    for low, high, n in [
        (-800, 800, 20_000),  # exp/expm1: all k, over/underflow
        (-745.2, -708.0, 6_000),  # exp: subnormal results
        (-40, 40, 15_000),  # expm1 k ranges, tanh up to saturation
        (-2.2, 2.2, 15_000),  # reductions near ln2 multiples, tanh around 1
        (-0.35, 0.35, 8_000),  # exp/expm1 k = 0
        (-1.0, 0.5, 15_000),  # log1p direct and reduced, near -1
        (0.0, 4.0, 10_000),  # log around 1 and sqrt(2)
        (1.0, 2.0, 10_000),  # log on the mantissas nextLogUniform takes
    ]:
        parts.append(rng.uniform(low, high, n))
    # Very close to 1 (log's |f| < 2**-20 branch), to 0 (tiny branches) and to -1 (log1p).
    parts.append(1.0 + rng.uniform(-(2.0**-19), 2.0**-19, 5_000))
    parts.append(-1.0 + np.ldexp(rng.uniform(0, 1, 3_000), -rng.integers(1, 60, 3_000)))
    parts.append(np.ldexp(rng.uniform(-1, 1, 5_000), -rng.integers(15, 70, 5_000)))
    # Multiples of ln2 and halves (the reductions' rounding boundaries).
    k = rng.integers(-1100, 1100, 3_000).astype(np.float64)
    parts.append(k * LN2)
    parts.append((k + 0.5) * LN2)
    # Each threshold high word, its neighbours and several low words, both signs.
    words = []
    for h in THRESHOLD_HIGH_WORDS:
        for dh in (-2, -1, 0, 1, 2):
            for low in (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF, *rng.integers(0, 2**32, 4).tolist()):
                for sign in (0, 1 << 63):
                    words.append((((h + dh) & 0xFFFFFFFF) << 32 | low) | sign)
    parts.append(_bits_to_double(np.array(words, dtype=np.uint64)))
    # The exact thresholds and the 40 doubles around each.
    near = []
    for t in EXACT_THRESHOLDS:
        for sign in (1.0, -1.0):
            bits = np.float64(sign * t).view(np.int64)
            near.append((bits + np.arange(-20, 21, dtype=np.int64)).view(np.float64))
    parts.append(np.concatenate(near))
    parts.append(_bits_to_double(np.array(SPECIAL_BITS, dtype=np.uint64)))
    # Small integers and simple fractions.
    parts.append(np.arange(-50, 51, dtype=np.float64))
    parts.append(np.arange(-50, 51, dtype=np.float64) / 8)
    x = np.concatenate(parts)
    return x


@pytest.fixture(scope="module")
def jvm_results() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    x = arguments()
    lines = jvm.hex_lines(x)
    answers = jvm.ask([("fdlibm", [f], lines) for f in FUNCTIONS], spark=False)
    return x, {f: jvm.from_hex_lines(a) for f, a in zip(FUNCTIONS, answers, strict=True)}


def test_arguments_cover_200k():
    assert arguments().size >= 200_000


@pytest.mark.parametrize("form", ["fast", "exact"])
@pytest.mark.parametrize("function", FUNCTIONS)
def test_bits_equal_strictmath(jvm_results, function, form):
    """Both forms: the public fast path (with its fallback) and the every-branch form on every argument."""
    x, expected = jvm_results
    implementation = getattr(fdlibm, function if form == "fast" else f"_{function}_exact")
    got = np.asarray(implementation(x)).view(np.uint64)
    want = expected[function]
    assert want.shape == got.shape
    different = np.flatnonzero(got != want)
    if different.size:
        shown = ", ".join(
            f"{function}({x[i]!r} = 0x{int(x.view(np.uint64)[i]):016x}) = "
            f"{float(got.view(np.float64)[i])!r} [0x{int(got[i]):016x}], JVM 0x{int(want[i]):016x}"
            for i in different[:10]
        )
        raise AssertionError(f"{different.size} of {x.size} results differ from StrictMath.{function}: {shown}")


def test_scalars_and_shapes():
    assert isinstance(fdlibm.log(2.0), np.float64)
    assert fdlibm.exp(1.0) == 2.7182818284590455  # fdlibm's exp(1), one ulp above Math.E
    assert fdlibm.tanh(np.zeros((2, 3))).shape == (2, 3)
    x = np.linspace(0.1, 3, 7)
    before = x.copy()
    fdlibm.log(x)
    assert np.array_equal(x, before)  # arguments are never written to
    assert fdlibm.log(np.array([], dtype=np.float64)).shape == (0,)
