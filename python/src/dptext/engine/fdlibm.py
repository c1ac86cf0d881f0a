"""fdlibm 5.3's exp, log, log1p, expm1, tanh, sin and cos on numpy arrays, bit for bit Java's ``StrictMath``.

Java's ``StrictMath`` is specified as fdlibm 5.3 ("the results must be bit-for-bit those of fdlibm"), which is
what makes the JVM's samplers reproducible everywhere; the Python engine must make the same decisions, so it
needs the same bits, not merely correctly-rounded-ish values (numpy's ``np.log`` differs from fdlibm in the
last bit now and then, and one bit decides a rejection test).

How this is exact: fdlibm is written with IEEE double +, -, *, / (each correctly rounded, the same on every
conforming machine) and integer operations on the high and low 32-bit words of a double. numpy's ufuncs are
single correctly rounded IEEE operations too and never fuse a multiply and an add, so writing each expression
with exactly fdlibm's operands and parenthesisation reproduces its bits. The words are read and written through
``view(np.int64)``: the high word is ``bits >> 32`` (arithmetic shift: fdlibm's signed ``int hx``), the low
word ``bits & 0xffffffff``; "add k to the exponent" (``__HI(y) += k << 20``) is ``bits + (k << 52)``.

Vectorisation: fdlibm branches per argument. Each function has two forms. ``_<name>_exact`` evaluates every
branch for every element (under ``np.errstate(all="ignore")``: lanes a branch does not apply to may overflow or
divide by zero harmlessly) and selects the one each element takes with ``np.where``, in fdlibm's order. The
public function runs a fast path for the common arguments (one formula for all elements where fdlibm's
branches provably give the same bits, patches for the less common branches) and recomputes the rare
elements (specials, subnormals, tiny or huge arguments) with the exact form. Arrays of any shape and
scalars (a 0-d argument gives an ``np.float64``) work.

The algorithms and constants are fdlibm's (e_exp.c, e_log.c, s_log1p.c, s_expm1.c, s_tanh.c); the
comments explain each step. Tested against the JVM on hundreds of thousands of arguments per function
(tests/engine/test_fdlibm.py).
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["cos", "exp", "expm1", "log", "log1p", "sin", "tanh"]

_LOW = np.int64(0xFFFFFFFF)


def _hex(bits: int) -> float:
    """The double with these IEEE bits (fdlibm gives its constants' intended bits in hex comments)."""
    return float(np.array(bits, dtype=np.uint64).view(np.float64))


# Constants shared by several functions. ln2 is split so that k*LN2_HI is exact for |k| < 2000: the
# reduction x - k*ln2 then loses nothing in its first, large term.
_LN2_HI = _hex(0x3FE62E42FEE00000)  # 6.93147180369123816490e-01
_LN2_LO = _hex(0x3DEA39EF35793C76)  # 1.90821492927058770002e-10
_TWO54 = _hex(0x4350000000000000)  # 2**54, scales subnormals into the normal range
_INVLN2 = _hex(0x3FF71547652B82FE)  # 1/ln2
_O_THRESHOLD = _hex(0x40862E42FEFA39EF)  # 7.09782712893383973096e+02: exp(x) overflows above
_U_THRESHOLD = _hex(0xC0874910D52D3051)  # -7.45133219101941108420e+02: exp(x) underflows to 0 below
_TWOM1000 = _hex(0x0170000000000000)  # 2**-1000
_HUGE = 1.0e300
_TINY = 1.0e-300

# log and log1p: log(1+f) = 2s + s*R(s*s), s = f/(2+f), R a degree-14 (7 terms in z = s*s) Remez polynomial.
_LG1 = _hex(0x3FE5555555555593)
_LG2 = _hex(0x3FD999999997FA04)
_LG3 = _hex(0x3FD2492494229359)
_LG4 = _hex(0x3FCC71C51D8E78AF)
_LG5 = _hex(0x3FC7466496CB03DE)
_LG6 = _hex(0x3FC39A09D078C69F)
_LG7 = _hex(0x3FC2F112DF3E5244)

# exp: r*(exp(r)+1)/(exp(r)-1) ~ 2 + P1*z + ... + P5*z**5 on |r| <= 0.5*ln2, z = r*r.
_P1 = _hex(0x3FC555555555553E)
_P2 = _hex(0xBF66C16C16BEBD93)
_P3 = _hex(0x3F11566AAF25DE2C)
_P4 = _hex(0xBEBBBD41C5D26BF1)
_P5 = _hex(0x3E66376972BEA4D0)

# expm1: the same kind of rational approximation, coefficients scaled by 2**i (z = x*x/2 saves a multiply).
_Q1 = _hex(0xBFA11111111110F4)
_Q2 = _hex(0x3F5A01A019FE5585)
_Q3 = _hex(0xBF14CE199EAADBB7)
_Q4 = _hex(0x3ED0CFCA86E65239)
_Q5 = _hex(0xBE8AFDB76E09C32D)


_BLOCK = 1 << 15  # elements per pass: each function's ~30 temporaries stay in the core's cache


def _blockwise(f):
    """``f`` (elementwise) over an array of any size, ``_BLOCK`` elements at a time: the results are the same
    bits (each element is computed alone), but a million-element argument whole passes its temporaries
    through main memory ~30 times over, 5-10x slower per element than in blocks (the embedding-noise
    mechanisms' normals take a million logarithms in one call)."""

    @functools.wraps(f)
    def blockwise(x):
        a = np.asarray(x, dtype=np.float64)
        if a.size <= _BLOCK:
            return f(a)
        flat = np.ascontiguousarray(a).reshape(-1)
        out = np.empty_like(flat)
        for start in range(0, flat.size, _BLOCK):
            out[start : start + _BLOCK] = f(flat[start : start + _BLOCK])
        return out.reshape(a.shape)

    return blockwise


def _prepare(x) -> tuple[np.ndarray, tuple]:
    """x as a flat contiguous float64 array (never written to), and its shape."""
    a = np.asarray(x, dtype=np.float64)
    return np.ascontiguousarray(a).reshape(-1), a.shape


def _result(out: np.ndarray, shape: tuple):
    return np.float64(out[0]) if shape == () else out.reshape(shape)


def _fallback(out: np.ndarray, rare: np.ndarray, exact, x: np.ndarray) -> np.ndarray:
    """Recomputes the elements ``rare`` selects with the every-branch version ``exact``: the fast paths
    below cover the common arguments with few operations, and hand zeros, infinities, NaNs, subnormals,
    tiny and huge arguments (rare in practice) to the version that evaluates all of fdlibm's cases."""
    if rare.any():
        idx = np.flatnonzero(rare)
        out[idx] = exact(x[idx])
    return out


def _words(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fdlibm's (signed) high word and (unsigned) low word of each double, as int64."""
    bits = x.view(np.int64)
    return bits >> 32, bits & _LOW


def _with_high(x: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``__HI(x) = high``: x with its high word replaced."""
    return ((high << 32) | (x.view(np.int64) & _LOW)).view(np.float64)


def _from_high(high: np.ndarray) -> np.ndarray:
    """The double whose high word is ``high`` and low word 0."""
    return (high << 32).view(np.float64)


def _add_exponent(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``__HI(y) += k << 20``: adds k to y's biased exponent field (fdlibm's scaling by 2**k without a
    multiply; y is positive and the field stays in range wherever the result is used)."""
    return (y.view(np.int64) + (k << 52)).view(np.float64)


# --------------------------------------------------------------------------------------------- exp


def _exp_exact(x0: np.ndarray) -> np.ndarray:
    """fdlibm's __ieee754_exp (e_exp.c), every branch evaluated for every element and selected (all cases)."""
    with np.errstate(all="ignore"):
        high, lx = _words(x0)
        negative = high < 0
        hx = high & 0x7FFFFFFF  # high word of |x|
        non_finite = hx >= 0x7FF00000
        nan = non_finite & (((hx & 0x000FFFFF) | lx) != 0)
        # |x| >= 709.78...: beyond the thresholds exp overflows to +inf (fdlibm: huge*huge) or underflows to
        # +0 (twom1000*twom1000); between 709.78 and the thresholds the general path still applies.
        large = ~non_finite & (hx >= 0x40862E42)
        overflow = large & (x0 > _O_THRESHOLD)
        underflow = large & (x0 < _U_THRESHOLD)
        # |x| < 2**-28: exp(x) rounds to 1+x.
        tiny = hx < 0x3E300000

        # Argument reduction x = k*ln2 + r, |r| <= 0.5*ln2, with r = hi - lo kept in two parts. For
        # 0.5*ln2 < |x| < 1.5*ln2, k is +-1 without a multiply; above, k = (int)(x/ln2 +- 0.5), truncated
        # toward zero as C's (int) does, and k*ln2_hi is exact.
        reduce = (hx > 0x3FD62E42) & ~non_finite & ~overflow & ~underflow
        near = reduce & (hx < 0x3FF0A2B2)
        far = reduce & ~near
        kf = np.trunc(np.where(far, _INVLN2 * x0 + np.where(negative, -0.5, 0.5), 0.0))
        hi = np.where(near, x0 - np.where(negative, -_LN2_HI, _LN2_HI), x0 - kf * _LN2_HI)
        lo = np.where(near, np.where(negative, -_LN2_LO, _LN2_LO), kf * _LN2_LO)
        k = np.where(near, np.where(negative, -1, 1), kf.astype(np.int64)).astype(np.int64)
        r = np.where(reduce, hi - lo, x0)

        # exp(r) = 1 + r + r*c/(2-c), c = r - z*(P1 + ... ) the Remez approximation of r*(exp(r)+1)/(exp(r)-1)
        # minus 2 (written so that it loses the least accuracy); for k = 0 the equivalent 1 - (r*c/(c-2) - r).
        t = r * r
        c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
        out_k0 = 1.0 - ((r * c) / (c - 2.0) - r)
        y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
        # Scale back by 2**k through the exponent field; results below 2**-1021 are built 1000 binades
        # higher and multiplied by 2**-1000, so that the one rounding into the subnormals is IEEE's.
        scaled = np.where(
            k >= -1021,
            _add_exponent(y, k),
            _add_exponent(y, k + 1000) * _TWOM1000,
        )
        out = np.where(k == 0, out_k0, scaled)
        out = np.where(tiny, 1.0 + x0, out)
        out = np.where(underflow, 0.0, out)
        out = np.where(overflow, np.inf, out)
        # exp(NaN) = NaN (x+x), exp(+inf) = +inf, exp(-inf) = +0.
        out = np.where(non_finite, np.where(nan, x0 + x0, np.where(negative, 0.0, x0)), out)
    return out


# --------------------------------------------------------------------------------------------- log


def _log_exact(x0: np.ndarray) -> np.ndarray:
    """fdlibm's __ieee754_log (e_log.c), every branch evaluated for every element and selected (all cases)."""
    with np.errstate(all="ignore"):
        hx, lx = _words(x0)
        # Zeros, negative numbers and subnormals have a (signed) high word below 2**-1022's.
        below = hx < 0x00100000
        zero = below & (((hx & 0x7FFFFFFF) | lx) == 0)  # log(+-0) = -inf (fdlibm: -two54/zero)
        negative = below & ~zero & (hx < 0)  # log(x < 0) = NaN (fdlibm: (x-x)/zero)
        subnormal = below & ~zero & ~negative
        k = np.zeros(x0.shape, dtype=np.int64)
        x = x0
        if subnormal.any():  # scale subnormals by 2**54 into the normal range; k remembers it
            x = np.where(subnormal, x0 * _TWO54, x0)
            k = np.where(subnormal, np.int64(-54), k)
            hx = np.where(subnormal, x.view(np.int64) >> 32, hx)
        non_finite = hx >= 0x7FF00000  # log(+inf) = +inf, log(NaN) = NaN: x+x

        # Argument reduction x = 2**k * (1+f), sqrt(2)/2 < 1+f < sqrt(2): the exponent goes to k and the
        # mantissa gets exponent 0 (value in [1, 2)) or, when its bits are above sqrt(2)'s (0x6a09e; adding
        # 0x95f64 carries into bit 20 exactly then), exponent -1 (value in [0.5, 1)) with k one larger.
        k = k + (hx >> 20) - 1023
        hx = hx & 0x000FFFFF
        i = (hx + 0x95F64) & 0x100000
        x = _with_high(x, hx | (i ^ 0x3FF00000))
        k = k + (i >> 20)
        f = x - 1.0
        dk = k.astype(np.float64)

        # |f| < 2**-20: log(1+f) ~ f - f*f*(1/2 - f/3), and exactly k*ln2 when f = 0 (+0 for x = 1).
        tiny_f = ((2 + hx) & 0x000FFFFF) < 3
        r_tiny = f * f * (0.5 - 0.33333333333333333 * f)
        out_tiny = np.where(
            f == 0.0,
            np.where(k == 0, 0.0, dk * _LN2_HI + dk * _LN2_LO),
            np.where(k == 0, f - r_tiny, dk * _LN2_HI - ((r_tiny - dk * _LN2_LO) - f)),
        )

        # General case: s = f/(2+f), R = the Remez polynomial in z = s*s, its even and odd halves summed as
        # fdlibm does (t2 + t1). When 1+f is far enough from 1 (i > 0: mantissa bits outside
        # [0x6147a, 0x6b851]) the more accurate f - (hfsq - s*(hfsq+R)) is used, else f - s*(f-R).
        s = f / (2.0 + f)
        z = s * s
        w = z * z
        i = (hx - 0x6147A) | (0x6B851 - hx)
        t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
        t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
        r = t2 + t1
        hfsq = 0.5 * f * f
        out_far = np.where(
            k == 0,
            f - (hfsq - s * (hfsq + r)),
            dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f),
        )
        out_near = np.where(k == 0, f - s * (f - r), dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f))
        out = np.where(tiny_f, out_tiny, np.where(i > 0, out_far, out_near))

        out = np.where(non_finite, x0 + x0, out)
        out = np.where(negative, (x0 - x0) / 0.0, out)
        out = np.where(zero, -np.inf, out)
    return out


# --------------------------------------------------------------------------------------------- log1p


def _log1p_exact(x0: np.ndarray) -> np.ndarray:
    """fdlibm's log1p (s_log1p.c), every branch evaluated for every element and selected (all cases)."""
    with np.errstate(all="ignore"):
        hx, _ = _words(x0)
        ax = hx & 0x7FFFFFFF
        below = hx < 0x3FDA827A  # x < 0.41422 (every negative x: the word is signed)
        at_most_minus_one = below & (ax >= 0x3FF00000)  # x <= -1, -inf, or a NaN with the sign bit
        minus_one = at_most_minus_one & (x0 == -1.0)  # log1p(-1) = -inf (fdlibm: -two54/zero)
        invalid = at_most_minus_one & ~minus_one  # NaN (fdlibm: (x-x)/(x-x))
        tiny = below & ~at_most_minus_one & (ax < 0x3E200000)  # |x| < 2**-29
        # -0.2929 < x < 0.41422: 1+x needs no reduction, f = x exactly (k = 0); hu = 1 marks "not tiny f".
        direct = below & ~at_most_minus_one & ~tiny & ((hx > 0) | (hx <= np.int64(0xBFD2BEC3 - (1 << 32))))
        non_finite = hx >= 0x7FF00000  # +inf, NaN: x+x

        # Otherwise reduce u = 1+x = 2**k * (1+f), sqrt(2)/2 < 1+f < sqrt(2), like log. 1+x is rounded, so a
        # correction c = ((1+x) - u)/u is carried (log(1+x) - log(u) ~ c/u); beyond 2**53, u = x and c = 0.
        moderate = hx < 0x43400000
        u = np.where(moderate, 1.0 + x0, x0)
        hu = u.view(np.int64) >> 32
        k = (hu >> 20) - 1023
        c = np.where(moderate, np.where(k > 0, 1.0 - (u - x0), x0 - (u - 1.0)) / u, 0.0)
        hu = hu & 0x000FFFFF
        low = hu < 0x6A09E  # mantissa below sqrt(2): keep exponent 0, else take exponent -1 and k+1
        u = _with_high(u, np.where(low, hu | 0x3FF00000, hu | 0x3FE00000))
        k = np.where(low, k, k + 1)
        hu = np.where(low, hu, (0x00100000 - hu) >> 2)  # hu == 0 now means |f| < 2**-20
        f = np.where(direct, x0, u - 1.0)
        k = np.where(direct, 0, k)
        hu = np.where(direct, 1, hu)
        c = np.where(direct, 0.0, c)
        dk = k.astype(np.float64)
        hfsq = 0.5 * f * f

        # |f| < 2**-20: log1p(f) ~ f - hfsq*(1 - 2f/3); exactly k*ln2 (+c) when f = 0.
        r_tiny = hfsq * (1.0 - 0.66666666666666666 * f)
        out_tiny = np.where(
            f == 0.0,
            np.where(k == 0, 0.0, dk * _LN2_HI + (c + dk * _LN2_LO)),
            np.where(k == 0, f - r_tiny, dk * _LN2_HI - ((r_tiny - (dk * _LN2_LO + c)) - f)),
        )
        # General case: log(1+f) = f - (hfsq - s*(hfsq+R)), s = f/(2+f), R the Remez polynomial in z = s*s.
        s = f / (2.0 + f)
        z = s * s
        r = z * (_LG1 + z * (_LG2 + z * (_LG3 + z * (_LG4 + z * (_LG5 + z * (_LG6 + z * _LG7))))))
        out_general = np.where(
            k == 0,
            f - (hfsq - s * (hfsq + r)),
            dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * _LN2_LO + c))) - f),
        )
        out = np.where(hu == 0, out_tiny, out_general)

        out = np.where(non_finite, x0 + x0, out)
        # |x| < 2**-54: log1p(x) rounds to x; |x| < 2**-29: x - x*x/2.
        out = np.where(tiny, np.where(ax < 0x3C900000, x0, x0 - x0 * x0 * 0.5), out)
        out = np.where(invalid, (x0 - x0) / (x0 - x0), out)
        out = np.where(minus_one, -np.inf, out)
    return out


# --------------------------------------------------------------------------------------------- expm1


def _expm1_exact(x0: np.ndarray) -> np.ndarray:
    """fdlibm's expm1 (s_expm1.c), every branch evaluated for every element and selected (all cases)."""
    with np.errstate(all="ignore"):
        high, lx = _words(x0)
        negative = high < 0
        hx = high & 0x7FFFFFFF  # high word of |x|
        non_finite = hx >= 0x7FF00000
        nan = non_finite & (((hx & 0x000FFFFF) | lx) != 0)
        overflow = ~non_finite & (hx >= 0x40862E42) & (x0 > _O_THRESHOLD)  # +inf (fdlibm: huge*huge)
        # x < -56*ln2: exp(x) is below half an ulp of 1, the result rounds to -1 (fdlibm: tiny - one).
        minus_one = ~non_finite & (hx >= 0x4043687A) & negative
        tiny = hx < 0x3C900000  # |x| < 2**-54: x itself

        # Argument reduction as in exp, x = k*ln2 + r with r = hi - lo, plus the rounding error of that
        # subtraction, c = (hi - r) - lo, which is added back below as a correction.
        reduce = (hx > 0x3FD62E42) & ~non_finite & ~overflow & ~minus_one
        near = reduce & (hx < 0x3FF0A2B2)
        far = reduce & ~near
        kf = np.trunc(np.where(far, _INVLN2 * x0 + np.where(negative, -0.5, 0.5), 0.0))
        hi = np.where(near, np.where(negative, x0 + _LN2_HI, x0 - _LN2_HI), x0 - kf * _LN2_HI)
        lo = np.where(near, np.where(negative, -_LN2_LO, _LN2_LO), kf * _LN2_LO)
        k = np.where(near, np.where(negative, -1, 1), kf.astype(np.int64)).astype(np.int64)
        r = np.where(reduce, hi - lo, x0)
        c = np.where(reduce, (hi - r) - lo, 0.0)

        # expm1(r) = r - E with E from the scaled rational approximation r1 of R1(r*r) (hfx = r/2,
        # hxs = r*r/2); the correction c enters as expm1(r+c) ~ expm1(r) + c + r*c.
        hfx = 0.5 * r
        hxs = r * hfx
        r1 = 1.0 + hxs * (_Q1 + hxs * (_Q2 + hxs * (_Q3 + hxs * (_Q4 + hxs * _Q5))))
        t = 3.0 - r1 * hfx
        e = hxs * ((r1 - t) / (6.0 - r * t))
        out_k0 = r - (r * e - hxs)
        e = r * (e - c) - c
        e = e - hxs
        # Scale back, each range of k the way that loses least: k = -1 and k = 1 directly; k < -2 or
        # k > 56, 2**k * (1 - (E - r)) - 1; otherwise 2**k * ((1 - 2**-k) - (E - r)) for k < 20, else
        # 2**k * ((r - (E + 2**-k)) + 1), with 2**k applied through the exponent field.
        out_m1 = 0.5 * (r - e) - 0.5
        out_p1 = np.where(r < -0.25, -2.0 * (e - (r + 0.5)), 1.0 + 2.0 * (r - e))
        out_wide = _add_exponent(1.0 - (e - r), k) - 1.0
        shift = np.clip(k, 0, 63)
        one_minus = _from_high(0x3FF00000 - (np.int64(0x200000) >> shift))  # 1 - 2**-k
        out_mid = _add_exponent(one_minus - (e - r), k)
        two_minus_k = _from_high((0x3FF - k) << 20)  # 2**-k
        out_high = _add_exponent((r - (e + two_minus_k)) + 1.0, k)
        out = np.where(
            k == 0,
            out_k0,
            np.where(
                k == -1,
                out_m1,
                np.where(
                    k == 1,
                    out_p1,
                    np.where((k <= -2) | (k > 56), out_wide, np.where(k < 20, out_mid, out_high)),
                ),
            ),
        )
        # fdlibm returns x - ((huge+x) - (huge+x)) for tiny x: x itself, with the inexact flag.
        out = np.where(tiny, x0 - ((_HUGE + x0) - (_HUGE + x0)), out)
        out = np.where(minus_one, _TINY - 1.0, out)
        out = np.where(overflow, np.inf, out)
        # expm1(NaN) = NaN (x+x), expm1(+inf) = +inf, expm1(-inf) = -1.
        out = np.where(non_finite, np.where(nan, x0 + x0, np.where(negative, -1.0, x0)), out)
    return out


# --------------------------------------------------------------------------------------------- tanh


def _tanh_exact(x0: np.ndarray) -> np.ndarray:
    """fdlibm's tanh (s_tanh.c), every branch evaluated for every element and selected (all cases)."""
    with np.errstate(all="ignore"):
        jx, _ = _words(x0)
        ix = jx & 0x7FFFFFFF
        positive = jx >= 0
        non_finite = ix >= 0x7FF00000  # tanh(+-inf) = +-1 (1/x +- 1), tanh(NaN) = NaN
        small = ix < 0x3C800000  # |x| < 2**-55: x*(1+x), i.e. x
        at_least_one = ix >= 0x3FF00000
        saturated = ix >= 0x40360000  # |x| >= 22: +-1 (fdlibm: one - tiny, inexact)
        ax = np.abs(x0)
        # |x| >= 1: 1 - 2/(expm1(2|x|) + 2); below: -t/(t+2) with t = expm1(-2|x|), both accurate there.
        t = _expm1_exact(np.where(at_least_one, 2.0 * ax, -2.0 * ax))
        z = np.where(at_least_one, 1.0 - 2.0 / (t + 2.0), (-t) / (t + 2.0))
        z = np.where(saturated, 1.0 - _TINY, z)
        out = np.where(positive, z, -z)
        out = np.where(small, x0 * (1.0 + x0), out)
        out = np.where(non_finite, np.where(positive, 1.0 / x0 + 1.0, 1.0 / x0 - 1.0), out)
    return out


# ------------------------------------------------------------------------------------- fast paths

_ABS = np.int64(0x7FFFFFFF)


def _reduce(x, hx):
    """exp's and expm1's argument reduction x = k*ln2 + (hi - lo), k = (int)(x/ln2 +- 0.5) where |x| > 0.5*ln2
    (high word above 0x3FD62E42), else 0: returns (reduced, k as a float, hi, lo, r = hi - lo)."""
    reduced = hx > 0x3FD62E42
    kf = np.trunc(_INVLN2 * x + np.copysign(0.5, x))
    kf *= reduced
    hi = x - kf * _LN2_HI
    lo = kf * _LN2_LO
    return reduced, kf, hi, lo, hi - lo


@_blockwise
def exp(x):
    """``StrictMath.exp``: fdlibm's __ieee754_exp (e_exp.c), bit for bit."""
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        hx = (x.view(np.int64) >> 32) & _ABS
        # Common case: 2**-28 <= |x| < 709.78 with a normal result. Reduction x = k*ln2 + (hi - lo):
        # k = (int)(x/ln2 +- 0.5) where |x| > 0.5*ln2, else 0. fdlibm takes k = +-1 without the multiply
        # for |x| < 1.5*ln2; the formula gives exactly +-1 there too (the high-word tests keep |x| at least
        # 2**-30 away from 0.5*ln2 and 1.5*ln2, far beyond the rounding of x/ln2), hence the same hi and lo.
        reduced, kf, hi, lo, r = _reduce(x, hx)  # r is x itself where k = 0 (x - 0 - 0, x non-zero)
        t = r * r
        c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
        k = kf.astype(np.int64)
        scaled = _add_exponent(1.0 - ((lo - (r * c) / (2.0 - c)) - hi), k)
        out = np.where(reduced, scaled, 1.0 - ((r * c) / (c - 2.0) - r))
        rare = ((hx - 0x3E300000) >= (0x40862E42 - 0x3E300000)) | (hx < 0x3E300000) | (k < -1021)
        return _result(_fallback(out, rare, _exp_exact, x), shape)


@_blockwise
def log(x):
    """``StrictMath.log``: fdlibm's __ieee754_log (e_log.c), bit for bit."""
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        hx = x.view(np.int64) >> 32
        # Common case: normal positive x with |f| >= 2**-20. Reduction as in _log_exact.
        m = hx & 0x000FFFFF
        i = (m + 0x95F64) & 0x100000
        k = (hx >> 20) + ((i >> 20) - 1023)
        f = _with_high(x, m | (i ^ 0x3FF00000)) - 1.0
        dk = k.astype(np.float64)
        s = f / (2.0 + f)
        z = s * s
        w = z * z
        r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
        hfsq = 0.5 * f * f
        # fdlibm's k != 0 formula serves k = 0 as well, bit for bit: with dk = 0 it is 0 - ((... - 0) - f),
        # and 0 - (a - f) equals f - a exactly (round-to-nearest is symmetric; equal operands give +0 both
        # ways), which is the k = 0 formula.
        lo = dk * _LN2_LO
        out = dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + lo)) - f)
        near = ((m - 0x6147A) | (0x6B851 - m)) <= 0  # 1+f close to 1: f - s*(f-R) (4% of mantissas)
        if near.any():
            j = np.flatnonzero(near)
            sj, fj = s[j], f[j]
            out[j] = dk[j] * _LN2_HI - ((sj * (fj - r[j]) - lo[j]) - fj)
        # Zeros, negatives, subnormals, infinities and NaNs (high word outside [2**-1022, inf)), and
        # |f| < 2**-20, to the exact form.
        rare = ((hx - 0x00100000) < 0) | (hx >= 0x7FF00000) | (((2 + m) & 0x000FFFFF) < 3)
        return _result(_fallback(out, rare, _log_exact, x), shape)


@_blockwise
def log1p(x):
    """``StrictMath.log1p``: fdlibm's log1p (s_log1p.c), bit for bit."""
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        hx = x.view(np.int64) >> 32
        ax = hx & _ABS
        # -0.2929 < x < 0.41422: f = x, k = 0. Else u = 1+x reduced as in _log1p_exact, with its correction c.
        direct = (hx < 0x3FDA827A) & ((hx > 0) | (hx <= 0xBFD2BEC3 - (1 << 32)))
        u = 1.0 + x
        hu = u.view(np.int64) >> 32
        k = (hu >> 20) - 1023
        c = np.where(k > 0, 1.0 - (u - x), x - (u - 1.0)) / u
        hu &= 0x000FFFFF
        low = hu < 0x6A09E
        f = np.where(direct, x, _with_high(u, (hu | 0x3FE00000) + low * 0x00100000) - 1.0)
        k += ~low
        k *= ~direct
        dk = k.astype(np.float64)
        hfsq = 0.5 * f * f
        s = f / (2.0 + f)
        z = s * s
        r = z * (_LG1 + z * (_LG2 + z * (_LG3 + z * (_LG4 + z * (_LG5 + z * (_LG6 + z * _LG7))))))
        a = s * (hfsq + r)
        # Here k = 0 cannot share the k != 0 formula: a reduced u can have k = 0 with c != 0, which fdlibm's
        # k = 0 formula ignores.
        out = np.where(k == 0, f - (hfsq - a), dk * _LN2_HI - ((hfsq - (a + (dk * _LN2_LO + c))) - f))
        # x <= -1, NaN, x >= 2**53 (and inf), |x| < 2**-29, and a reduced |f| < 2**-20: the exact form.
        rare = (
            (hx >= 0x43400000)
            | (ax < 0x3E200000)
            | ((hx < 0) & (ax >= 0x3FF00000))
            | (~direct & ((hu == 0) | (hu > 0xFFFFC)))
        )
        return _result(_fallback(out, rare, _log1p_exact, x), shape)


@_blockwise
def expm1(x):
    """``StrictMath.expm1``: fdlibm's expm1 (s_expm1.c), bit for bit."""
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        hx = (x.view(np.int64) >> 32) & _ABS
        # Common case: 2**-54 <= |x| < 56*ln2 (so -56 <= k <= 56). Reduction as in exp (k = +-1 likewise
        # identical to fdlibm's shortcut), with the correction c of the rounded r.
        _, kf, hi, lo, r = _reduce(x, hx)
        c = (hi - r) - lo
        hfx = 0.5 * r
        hxs = r * hfx
        r1 = 1.0 + hxs * (_Q1 + hxs * (_Q2 + hxs * (_Q3 + hxs * (_Q4 + hxs * _Q5))))
        t = 3.0 - r1 * hfx
        e = hxs * ((r1 - t) / (6.0 - r * t))
        k = kf.astype(np.int64)
        out = r - (r * e - hxs)  # k = 0 (c is 0 there)
        e = (r * (e - c) - c) - hxs
        # The other ranges of k, each on its elements only (see _expm1_exact for the formulas).
        for select, formula in (
            (k == -1, lambda j: 0.5 * (r[j] - e[j]) - 0.5),
            (
                k == 1,
                lambda j: np.where(r[j] < -0.25, -2.0 * (e[j] - (r[j] + 0.5)), 1.0 + 2.0 * (r[j] - e[j])),
            ),
            (k <= -2, lambda j: _add_exponent(1.0 - (e[j] - r[j]), k[j]) - 1.0),
            (
                (k >= 2) & (k < 20),
                lambda j: _add_exponent(_from_high(0x3FF00000 - (np.int64(0x200000) >> k[j])) - (e[j] - r[j]), k[j]),
            ),
            (
                k >= 20,
                lambda j: _add_exponent((r[j] - (e[j] + _from_high((0x3FF - k[j]) << 20))) + 1.0, k[j]),
            ),
        ):
            if select.any():
                j = np.flatnonzero(select)
                out[j] = formula(j)
        rare = (hx >= 0x4043687A) | (hx < 0x3C900000)
        return _result(_fallback(out, rare, _expm1_exact, x), shape)


@_blockwise
def tanh(x):
    """``StrictMath.tanh``: fdlibm's tanh (s_tanh.c, on fdlibm's expm1), bit for bit."""
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        ix = (x.view(np.int64) >> 32) & _ABS
        # Common case: 2**-55 <= |x| < 22. 1 - 2/(expm1(2|x|) + 2) for |x| >= 1, else -t/(t+2) with
        # t = expm1(-2|x|); z > 0 in both, and tanh(-x) = -z, so the sign is x's.
        at_least_one = ix >= 0x3FF00000
        ax = np.abs(x)
        t = expm1(np.where(at_least_one, 2.0 * ax, -2.0 * ax))
        z = np.where(at_least_one, 1.0 - 2.0 / (t + 2.0), (-t) / (t + 2.0))
        out = np.copysign(z, x)
        rare = (ix < 0x3C800000) | (ix >= 0x40360000)
        return _result(_fallback(out, rare, _tanh_exact, x), shape)


# ------------------------------------------------------------------------------------- sin and cos
# fdlibm's s_sin.c and s_cos.c on its kernels k_sin.c and k_cos.c, after e_rem_pio2.c's reduction of x to
# y0 + y1 = x - n*pi/2 with |y0 + y1| <= pi/4. Only arguments up to 2**19*pi/2 in magnitude are handled
# (e_rem_pio2.c's "medium" case; BRR's Box-Muller takes them in [0, 2*pi)): larger ones, whose reduction
# needs __kernel_rem_pio2's multi-precision 2/pi, raise ValueError.

_S1 = _hex(0xBFC5555555555549)
_S2 = _hex(0x3F8111111110F8A6)
_S3 = _hex(0xBF2A01A019C161D5)
_S4 = _hex(0x3EC71DE357B1FE7D)
_S5 = _hex(0xBE5AE5E68A2B9CEB)
_S6 = _hex(0x3DE5D93A5ACFD57C)
_C1 = _hex(0x3FA555555555554C)
_C2 = _hex(0xBF56C16C16C15177)
_C3 = _hex(0x3EFA01A019CB1590)
_C4 = _hex(0xBE927E4F809C52AD)
_C5 = _hex(0x3E21EE9EBDB4B1C4)
_C6 = _hex(0xBDA8FAE9BE8838D4)
_INVPIO2 = _hex(0x3FE45F306DC9C883)  # 53 bits of 2/pi
_PIO2_1 = _hex(0x3FF921FB54400000)  # first 33 bits of pi/2
_PIO2_1T = _hex(0x3DD0B4611A626331)  # pi/2 - pio2_1
_PIO2_2 = _hex(0x3DD0B4611A600000)  # second 33 bits of pi/2
_PIO2_2T = _hex(0x3BA3198A2E037073)  # pi/2 - (pio2_1 + pio2_2)
_PIO2_3 = _hex(0x3BA3198A2E000000)  # third 33 bits of pi/2
_PIO2_3T = _hex(0x397B839A252049C1)  # pi/2 - (pio2_1 + pio2_2 + pio2_3)
# High words of n*pi/2 for n = 1..32: an argument with one of these may cancel in the first reduction.
_NPIO2_HW = np.array(
    [
        0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB, 0x401F6A7A, 0x4022D97C, 0x4025FDBB, 0x402921FB,
        0x402C463A, 0x402F6A7A, 0x4031475C, 0x4032D97C, 0x40346B9C, 0x4035FDBB, 0x40378FDB, 0x403921FB,
        0x403AB41B, 0x403C463A, 0x403DD85A, 0x403F6A7A, 0x40407E4C, 0x4041475C, 0x4042106C, 0x4042D97C,
        0x4043A28C, 0x40446B9C, 0x404534AC, 0x4045FDBB, 0x4046C6CB, 0x40478FDB, 0x404858EB, 0x404921FB,
    ],
    dtype=np.int64,
)  # fmt: skip


def _kernel_sin(x: np.ndarray, y: np.ndarray, iy: bool) -> np.ndarray:
    """__kernel_sin(x, y, iy) on |x| <= pi/4 (y the tail of x; iy: whether y is used)."""
    ix = (x.view(np.int64) >> 32) & _ABS
    z = x * x
    v = z * x
    r = _S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))
    out = x - ((z * (0.5 * y - v * r) - y) - v * _S1) if iy else x + v * (_S1 + z * r)
    return np.where(ix < 0x3E400000, x, out)  # |x| < 2**-27: x itself


def _kernel_cos(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """__kernel_cos(x, y) on |x| <= pi/4 (y the tail of x)."""
    ix = (x.view(np.int64) >> 32) & _ABS
    z = x * x
    r = z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    small = 1.0 - (0.5 * z - (z * r - x * y))  # |x| < 0.3
    # qx = |x|/4 with its low word cleared (its high word less 2 in the exponent), 0.28125 above 0.78125.
    qx = np.where(ix > 0x3FE90000, 0.28125, _from_high(np.maximum(ix - 0x00200000, 0)))
    large = (1.0 - qx) - ((0.5 * z - qx) - (z * r - x * y))
    out = np.where(ix < 0x3FD33333, small, large)
    return np.where(ix < 0x3E400000, 1.0, out)  # |x| < 2**-27: 1


def _rem_pio2(x: np.ndarray, hx: np.ndarray, ix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """__ieee754_rem_pio2 for pi/4 < |x| <= 2**19*pi/2: (n, y0, y1) with y0 + y1 = x - n*pi/2."""
    positive = hx > 0
    # 3pi/4 > |x|: n = +-1, with 33+53 bits of pi/2 (33+33+53 when |x| is near pi/2).
    sign = np.where(positive, 1.0, -1.0)
    near = ix == 0x3FF921FB
    z = x - sign * _PIO2_1
    z2 = z - sign * _PIO2_2
    za = np.where(near, z2, z)
    ta = np.where(near, _PIO2_2T, _PIO2_1T) * sign
    y0a = za - ta
    y1a = (za - y0a) - ta
    na = np.where(positive, 1, -1)
    # Medium: n = (int)(|x|*2/pi + 1/2), up to three rounds of 33 bits of pi/2 as cancellation requires.
    t = np.abs(x)
    n = np.trunc(t * _INVPIO2 + 0.5).astype(np.int64)
    fn = n.astype(np.float64)
    r = t - fn * _PIO2_1
    w = fn * _PIO2_1T
    y0 = r - w
    quick = (n < 32) & (ix != _NPIO2_HW[np.clip(n - 1, 0, 31)])
    j = ix >> 20
    second = ~quick & ((j - ((y0.view(np.int64) >> 52) & 0x7FF)) > 16)
    t2 = r
    w2 = fn * _PIO2_2
    r2 = t2 - w2
    w2 = fn * _PIO2_2T - ((t2 - r2) - w2)
    y02 = r2 - w2
    third = second & ((j - ((y02.view(np.int64) >> 52) & 0x7FF)) > 49)
    t3 = r2
    w3 = fn * _PIO2_3
    r3 = t3 - w3
    w3 = fn * _PIO2_3T - ((t3 - r3) - w3)
    y03 = r3 - w3
    r = np.where(third, r3, np.where(second, r2, r))
    w = np.where(third, w3, np.where(second, w2, w))
    y0 = np.where(third, y03, np.where(second, y02, y0))
    y1 = (r - y0) - w
    y0 = np.where(positive, y0, -y0)
    y1 = np.where(positive, y1, -y1)
    n = np.where(positive, n, -n)
    small = ix < 0x4002D97C
    return np.where(small, na, n), np.where(small, y0a, y0), np.where(small, y1a, y1)


def _trig(x, cosine: bool):
    x, shape = _prepare(x)
    with np.errstate(all="ignore"):
        hx = x.view(np.int64) >> 32
        ix = hx & _ABS
        if ((ix > 0x413921FB) & (ix < 0x7FF00000)).any():
            # A bug check: the engine's only angles are 2*pi*u with u in [0, 1) (BRR's planes), far inside.
            raise AssertionError("fdlibm sin/cos: arguments beyond 2**19*pi/2 in magnitude are not implemented")
        zero = np.zeros_like(x)
        direct = _kernel_cos(x, zero) if cosine else _kernel_sin(x, zero, False)
        n, y0, y1 = _rem_pio2(x, hx, ix)
        s = _kernel_sin(y0, y1, True)
        c = _kernel_cos(y0, y1)
        q = n & 3
        if cosine:  # n mod 4: cos, -sin, -cos, sin
            reduced = np.select([q == 0, q == 1, q == 2], [c, -s, -c], s)
        else:  # sin, cos, -sin, -cos
            reduced = np.select([q == 0, q == 1, q == 2], [s, c, -s], -c)
        out = np.where(ix <= 0x3FE921FB, direct, reduced)
        out = np.where(ix >= 0x7FF00000, x - x, out)  # inf, NaN: NaN
        return _result(out, shape)


@_blockwise
def sin(x):
    """``StrictMath.sin``: fdlibm's sin (s_sin.c), bit for bit, for |x| <= 2**19*pi/2 (and inf, NaN)."""
    return _trig(x, False)


@_blockwise
def cos(x):
    """``StrictMath.cos``: fdlibm's cos (s_cos.c), bit for bit, for |x| <= 2**19*pi/2 (and inf, NaN)."""
    return _trig(x, True)
