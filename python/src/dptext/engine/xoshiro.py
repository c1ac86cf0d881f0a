"""Many rows' xoshiro256++ streams advanced together: ``dev.dptext.random.RandomStream``, draw for draw.

Each row of a batch has its own stream, seeded from the key and the row's id (``keys.RowSeeder``). The JVM
draws from one row's stream at a time; here the streams of many rows live in four uint64 arrays (the state
words s0..s3 of every row) and each call advances a chosen set of rows by one draw, vectorised across
them. Because every row's stream only ever sees its own draws, in the order the JVM would make them, the
values are the JVM's exactly, whatever order the rows are processed in.

Arithmetic is on uint64 numpy arrays, whose additions, multiplications and shifts wrap modulo 2**64 like
Java's long (numpy does not warn on array integer overflow). Java's signed views are recovered where they
matter: ``random.nextLong() < 0`` in the JVM (1-Diffractor's direction) is ``next_long(rows) >= 2**63`` here,
i.e. ``streams.next_long(rows) >= np.uint64(1 << 63)``.

Row index arrays (``rows``) must hold distinct indices: each row advances at most once per call (numpy's
fancy assignment would otherwise keep one of the duplicates' updates). ``rows=None`` means every row, in
order, and avoids the gather/scatter of the state.
"""

from __future__ import annotations

import numpy as np

from dptext.engine import fdlibm

__all__ = ["RowStreams"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment; also RandomStream's all-zero replacement
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U = np.uint64
_MASK32 = np.uint64(0xFFFFFFFF)
_MANTISSA = np.uint64((1 << 52) - 1)
_TWO_POW_MINUS_53 = 2.0**-53
_TWO_POW_MINUS_512 = 2.0**-512
_LN_2 = float(fdlibm.log(2.0))  # RandomStream.LN_2 = StrictMath.log(2.0)

# Leading zeros of a 12-bit value, minus the 52 of its zero-extension: RandomStream.leadingExponent's
# Long.numberOfLeadingZeros(bits >>> 52) - 52 for every possible top; index 0 is unused (more words are drawn).
_TOP_ZEROS = np.array([12] + [11 - int(v).bit_length() + 1 for v in range(1, 4096)], dtype=np.int64)
# For each top of 12 bits (not 0): 2^-(e + 1), nextUniform's scale, and (e + 1)·LN_2, nextLogUniform's, with e its
# leading zeros; a table look-up in place of computing them from the exponent.
_POWERS_OF_TWO = ((1023 - (_TOP_ZEROS + 1)) << 52).view(np.float64)
_LOG_SCALES = (_TOP_ZEROS + 1).astype(np.float64) * _LN_2
_ONE = np.uint64(0x3FF0000000000000)  # the bits of 1.0


def _splitmix(z: np.ndarray) -> np.ndarray:
    """RandomStream.splitMix: SplitMix64's output function (Stafford's Mix13)."""
    z = (z ^ (z >> _U(30))) * _MIX1
    z = (z ^ (z >> _U(27))) * _MIX2
    return z ^ (z >> _U(31))


def _leading_zeros(v: np.ndarray) -> np.ndarray:
    """Long.numberOfLeadingZeros of each uint64 (64 for 0), exactly: each 32-bit half converts to a double
    without rounding, and frexp's exponent is its bit length."""
    high = (v >> _U(32)).astype(np.float64)
    low = (v & _MASK32).astype(np.float64)
    high_bits = np.frexp(high)[1].astype(np.int64)
    low_bits = np.frexp(low)[1].astype(np.int64)
    return np.where(high_bits > 0, 32 - high_bits, 64 - low_bits)


def _scalb_down(d: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Java's Math.scalb(d, -n) for 0 < n <= 2098, as the JDK computes it: one multiplication by
    2**-(n mod 512 in (-512, 0]) then by 2**-512 as often as needed. Its intermediate products stay normal
    until the last, so the result is d*2**-n correctly rounded, as here."""
    scale = -n
    # Java: exp_adjust = ((scaleFactor + t) & 511) - t with t = 511 for negative scaleFactor.
    adjust = ((scale + 511) & 511) - 511
    out = d * np.ldexp(1.0, adjust)  # 2**adjust with adjust in (-512, 0]: exact, normal
    remaining = scale - adjust  # a multiple of -512
    while True:
        more = remaining != 0
        if not more.any():
            return out
        out = np.where(more, out * _TWO_POW_MINUS_512, out)
        remaining = np.where(more, remaining + 512, remaining)


class RowStreams:
    """n independent xoshiro256++ streams (RandomStream), advanced together for any subset of rows.

    ``rows`` arguments are int64 index arrays of distinct rows (or ``None`` for all rows in order); each
    call advances exactly those rows by the draws RandomStream's method makes, and returns one value per
    row in ``rows``' order.
    """

    __slots__ = ("s0", "s1", "s2", "s3")

    def __init__(self, state: np.ndarray) -> None:
        state = np.asarray(state)
        if state.ndim != 2 or state.shape[1] != 4:  # the seeder and jump make (rows, 4) states: a bug otherwise
            raise AssertionError(f"a stream state has 4 words per row; got an array of shape {state.shape}")
        words = state.astype(np.uint64, copy=False)
        # Own copies (the caller's array is never advanced), each contiguous.
        self.s0 = np.array(words[:, 0], dtype=np.uint64, order="C")
        self.s1 = np.array(words[:, 1], dtype=np.uint64, order="C")
        self.s2 = np.array(words[:, 2], dtype=np.uint64, order="C")
        self.s3 = np.array(words[:, 3], dtype=np.uint64, order="C")
        # RandomStream.reseed: an all-zero state (xoshiro's one fixed point) starts from s0 = golden gamma.
        zero = (self.s0 | self.s1 | self.s2 | self.s3) == 0
        if zero.any():
            self.s0[zero] = _GOLDEN

    @classmethod
    def from_seed(cls, seeds) -> RowStreams:
        """RandomStream.fromSeed for each seed (int64, as Java's long): SplitMix64 expansion to 256 bits."""
        seed = np.ascontiguousarray(np.atleast_1d(np.asarray(seeds, dtype=np.int64))).view(np.uint64)
        words = [_splitmix(seed + _U(0x9E3779B97F4A7C15 * i % (1 << 64))) for i in range(1, 5)]
        return cls(np.stack(words, axis=1))

    def __len__(self) -> int:
        return len(self.s0)

    def resume(self, rows: np.ndarray, states: np.ndarray) -> None:
        """Moves ``rows`` to the given positions (``state()`` rows), e.g. past outputs read in bulk (``jump``)."""
        states = np.asarray(states, dtype=np.uint64)
        self.s0[rows], self.s1[rows], self.s2[rows], self.s3[rows] = (
            states[:, 0],
            states[:, 1],
            states[:, 2],
            states[:, 3],
        )

    def state(self) -> np.ndarray:
        """Every row's current position, shape (n, 4) uint64 (RandomStream.state): resumable exactly."""
        return np.stack([self.s0, self.s1, self.s2, self.s3], axis=1)

    # ----------------------------------------------------------------------------------------- raw bits

    def next_long(self, rows=None) -> np.ndarray:
        """RandomStream.nextLong: the next 64 bits of each row, as uint64 (Java's signed long is the
        two's-complement view: ``.view(np.int64)``; ``nextLong() < 0`` is ``>= 2**63`` here)."""
        if rows is None:
            s0, s1, s2, s3 = self.s0, self.s1, self.s2, self.s3
        else:  # (take: ~20 % less than fancy indexing)
            s0, s1, s2, s3 = self.s0.take(rows), self.s1.take(rows), self.s2.take(rows), self.s3.take(rows)
        # result = rotl(s0 + s3, 23) + s0; the new words in place where an array is this call's own (fewer temporaries)
        result = s0 + s3
        t = result >> _U(41)
        result <<= _U(23)
        result |= t
        result += s0
        t = s1 << _U(17)
        s2 = s2 ^ s0
        s3 = s3 ^ s1
        s1 = s1 ^ s2
        s0 = s0 ^ s3
        s2 ^= t
        t = s3 >> _U(19)
        s3 <<= _U(45)
        s3 |= t
        if rows is None:
            self.s0, self.s1, self.s2, self.s3 = s0, s1, s2, s3
        else:
            self.s0[rows] = s0
            self.s1[rows] = s1
            self.s2[rows] = s2
            self.s3[rows] = s3
        return result

    # ----------------------------------------------------------------------------------------- uniforms

    def next_double(self, rows=None) -> np.ndarray:
        """RandomStream.nextDouble: uniform on [0, 1) from the top 53 bits."""
        return (self.next_long(rows) >> _U(11)).astype(np.float64) * _TWO_POW_MINUS_53

    def next_int(self, rows, bound) -> np.ndarray:
        """RandomStream.nextInt(bound): uniform on [0, bound) by Lemire's multiply-and-reject, as int64.

        ``bound`` is an int or an int64 array with one bound per row of ``rows`` (1 <= bound <= 2**31-1).
        m = (next >>> 32) * bound; its low 32 bits below (2**32 - bound) mod bound reject the draw, and only
        the rejecting rows draw again (with probability < bound/2**32 each), as the JVM's loop does.
        """
        rows_all = np.arange(len(self.s0), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        # The engine's bounds are vocabulary sizes and list counts (>= 1, < 2**31), one per row: anything else
        # is a bug in its caller, not something a setting or a row can cause (settings are checked before).
        scalar_bound = np.ndim(bound) == 0
        bounds = np.asarray(bound, dtype=np.int64)
        if scalar_bound:
            if not 1 <= int(bounds) <= 0x7FFFFFFF:
                raise AssertionError(f"bound must be in [1, 2**31 - 1], got {int(bounds)}")
        elif bounds.shape != rows_all.shape:
            raise AssertionError(f"one bound per row: got {bounds.shape[0]} bounds for {rows_all.shape[0]} rows")
        elif len(bounds) and (bounds.min() < 1 or bounds.max() > 0x7FFFFFFF):
            raise AssertionError(f"bound must be in [1, 2**31 - 1], got {int(bounds.min())}..{int(bounds.max())}")
        b = bounds.astype(np.uint64)
        m = (self.next_long(rows) >> _U(32)) * b
        threshold = (_U(1 << 32) - b) % b
        rejected = np.flatnonzero((m & _MASK32) < threshold)
        while rejected.size:
            rb = b if scalar_bound else b[rejected]
            again = (self.next_long(rows_all[rejected]) >> _U(32)) * rb
            m[rejected] = again
            still = (again & _MASK32) < (threshold if scalar_bound else threshold[rejected])
            rejected = rejected[still]
        return (m >> _U(32)).astype(np.int64)

    def _leading_exponent(self, rows, bits: np.ndarray) -> np.ndarray:
        """RandomStream.leadingExponent: leading zero bits of an endless random bit string starting with the
        top 12 bits of ``bits``; rows whose 12 are all zero (probability 2**-12) draw more words, 64 zero
        bits at a time, up to an exponent of 1100."""
        exponent = _TOP_ZEROS.take((bits >> _U(52)).astype(np.intp))
        empty = np.flatnonzero(exponent == 12)
        if empty.size:
            rows_all = np.arange(len(self.s0), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
            pending = empty  # positions (in ``rows``) still drawing
            while pending.size:
                more = self.next_long(rows_all[pending])
                again = (more == 0) & (exponent[pending] < 1100)
                done = pending[~again]
                exponent[done] += _leading_zeros(more[~again])
                exponent[pending[again]] += 64
                pending = pending[again]
        return exponent

    @staticmethod
    def _mantissa(bits: np.ndarray) -> np.ndarray:
        """1.f in [1, 2) from the low 52 bits: 1.0's exponent bits over them (the value of 1.0 + f·2^-52, exactly)."""
        return ((bits & _MANTISSA) | _ONE).view(np.float64)

    def next_uniform(self, rows=None) -> np.ndarray:
        """RandomStream.nextUniform: uniform on (0, 1) with full precision, Math.scalb(1.f, -(e+1))."""
        bits = self.next_long(rows)
        top = (bits >> _U(52)).astype(np.intp)
        if top.all():  # (as a rule: no row draws more words, and 2^-(e+1) is the table's)
            return self._mantissa(bits) * _POWERS_OF_TWO.take(top)
        exponent = self._leading_exponent(rows, bits)
        mantissa = self._mantissa(bits)
        # The common case needs no scalb emulation: 2**-(e+1) with e < 1022 is a normal power of two.
        n = exponent + 1
        if n.max(initial=0) < 1022:
            return mantissa * ((1023 - n) << 52).view(np.float64)  # 2**-n, built from its exponent bits
        return _scalb_down(mantissa, n)

    def next_log_uniform_parts(self, rows=None) -> tuple[np.ndarray, np.ndarray]:
        """The draws of ``next_log_uniform``, not yet combined: its value is ``fdlibm.log(mantissa) - scale``, bit
        for bit, for callers that decide most rows from a cheaper logarithm and compute that one for the rest."""
        bits = self.next_long(rows)
        top = (bits >> _U(52)).astype(np.intp)
        if top.all():
            return self._mantissa(bits), _LOG_SCALES.take(top)
        exponent = self._leading_exponent(rows, bits)
        return self._mantissa(bits), (exponent + 1).astype(np.float64) * _LN_2

    def next_log_uniform(self, rows=None) -> np.ndarray:
        """RandomStream.nextLogUniform: StrictMath.log(1.f) - (e+1)*LN_2, log of a uniform on (0, 1)."""
        bits = self.next_long(rows)
        exponent = self._leading_exponent(rows, bits)
        return fdlibm.log(self._mantissa(bits)) - (exponent + 1).astype(np.float64) * _LN_2
