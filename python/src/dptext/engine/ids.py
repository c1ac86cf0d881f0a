"""The bytes a row's id seeds its stream with: ``Sanitizer.idBytes`` of the Java object the JVM receives.

On the JVM, ``dp_sanitize(text, id)`` and ``DpText.transform`` call a Java UDF ``(String, Object) -> String``
registered without input encoders, so Spark hands it the id converted by
``CatalystTypeConverters.createToScalaConverter`` (the partitioned path reads ``Row.get``, the same external
objects). ``Sanitizer.idBytes`` then takes ``byte[]`` as is, a ``BigDecimal`` as
``stripTrailingZeros().toPlainString()``, and anything else as the UTF-8 of its ``toString()``:

============================  ========================  ==============================================
Spark SQL type                Java object               seed bytes (UTF-8)
============================  ========================  ==============================================
BIGINT, INT, SMALLINT,        Long, Integer, Short,     decimal digits: ``-5``, ``9223372036854775807``
TINYINT                       Byte
DECIMAL(p, s)                 BigDecimal (scale s)      no trailing zeros, plain: ``5.00`` -> ``5``,
                                                        ``100`` -> ``100``, ``0.000`` -> ``0``
DOUBLE, FLOAT                 Double, Float             ``Double.toString`` / ``Float.toString``:
                                                        ``5.0``, ``1.0E20``, ``1.0E-5``, ``-0.0``, ``NaN``
STRING (any collation)        String                    the string's UTF-8
BINARY                        byte[]                    the bytes themselves
BOOLEAN                       Boolean                   ``true`` / ``false``
DATE                          java.sql.Date / LocalDate ``yyyy-MM-dd``
============================  ========================  ==============================================

Anything else is refused: intervals, arrays, maps and structs have no stable id form; TIMESTAMP ids, which
the JVM seeds by their instant in UTC (``Instant.toString``), are not seeded by this engine yet (cast them to
a string or a bigint, or use content-hash); use an integral or string id column. So are the ten DATEs
1582-10-05 to 1582-10-14, which java.sql.Date (Spark's default) prints as later days and LocalDate
(``spark.sql.datetime.java8API.enabled``) as they are.

DOUBLE and FLOAT ids depend on the JVM's Java version: ``Double.toString`` and ``Float.toString`` changed in
JDK 19. From JDK 19 they print the shortest decimal that rounds to the value (the closest if several;
Python's ``repr`` digits, except that a one-digit result yields to a closer two-digit one: ``4.9E-324``).
JDK 8 to 18 print with ``FloatingDecimal``, ported here step for step (``jdk=17``), which gives extra digits
for about one FLOAT in ten (``1.47091162E16`` for ``1.4709116E16``) and for DOUBLEs above 2**53 now and then
(``9.4247739204234112E17``, ``9.999999999999999E22`` for 1e23). ``jdk`` defaults to ``DEFAULT_JDK``; the JVM
engine on Java 17 and on Java 21 seeds such ids differently, so prefer integral or string ids.
"""

from __future__ import annotations

import datetime as _dt
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

from dptext.engine.keys import java_utf8
from dptext.errors import DpTextError

__all__ = ["DEFAULT_JDK", "id_bytes", "java_double_string", "java_float_string"]

DEFAULT_JDK = 21
"""The Java version whose Double/Float.toString DOUBLE and FLOAT ids follow unless told otherwise."""

_INTEGRAL = {"long", "bigint", "integer", "int", "short", "smallint", "byte", "tinyint"}
_STRING = {"string", "char", "varchar"}


def _kind(spark_type) -> str:
    """The type's name as pyspark's ``typeName()`` spells it ("long", "decimal", "string", ...)."""
    name = spark_type.typeName() if hasattr(spark_type, "typeName") else str(spark_type).strip().lower()
    name = name.split("(")[0].split(" ")[0]  # decimal(10,2), string collate UTF8_LCASE, varchar(5)
    if name in _INTEGRAL:
        return "integral"
    if name in _STRING:
        return "string"
    if name in ("decimal", "double", "float", "binary", "boolean", "date"):
        return name
    shown = spark_type.simpleString() if hasattr(spark_type, "simpleString") else str(spark_type)
    # Its Java string form depends on the JVM's settings (a timestamp's time zone) or is not defined (an interval).
    raise DpTextError.of("ID_TYPE_NOT_SEEDABLE", id="The id column", type=shown)


def id_bytes(values, spark_type, jdk: int = DEFAULT_JDK) -> list[bytes]:
    """The seed bytes of each id, as the JVM's ``Sanitizer.idBytes`` makes them for an id column of
    ``spark_type`` (a pyspark DataType, or its name: "bigint", "decimal(10,2)", ...).

    ``values`` are the column's Python values (ints, Decimals, floats, strs, bytes, bools, dates; numpy
    scalars too). A None id raises the JVM's null-id error (``DpTextError`` ID_NULL, a ValueError). ``jdk`` is
    the Java feature version the JVM engine runs on; it matters for DOUBLE and FLOAT ids only (their toString
    changed in JDK 19).
    """
    kind = _kind(spark_type)
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if kind == "double":
        convert = lambda v: java_double_string(v, jdk).encode("ascii")  # noqa: E731
    elif kind == "float":
        convert = lambda v: java_float_string(v, jdk).encode("ascii")  # noqa: E731
    else:
        convert = _CONVERTERS[kind]
    out = []
    for v in values:
        if v is None:
            raise DpTextError.of("ID_NULL")
        out.append(convert(v))
    return out


# ------------------------------------------------------------------------------------------- integral


def _integral(v) -> bytes:
    if isinstance(v, (bool, np.bool_)) or (isinstance(v, float) and not v.is_integer()):
        raise DpTextError.of("ID_VALUE_NOT_OF_TYPE", type="integral", valueType=type(v).__name__)
    return str(int(v)).encode("ascii")


# -------------------------------------------------------------------------------------------- decimal


def java_decimal_string(v) -> str:
    """``BigDecimal.stripTrailingZeros().toPlainString()``: no exponent, no trailing zeros, 0 as ``0``."""
    d = v if isinstance(v, Decimal) else Decimal(str(v) if isinstance(v, float) else v)
    if not d.is_finite():
        raise DpTextError.of("ID_VALUE_NOT_OF_TYPE", type="decimal", valueType=f"non-finite {type(v).__name__}")
    sign, digit_tuple, exponent = d.as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    if not digits:
        return "0"  # BigDecimal has no negative zero; a zero strips to 0 (scale 0)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    if exponent >= 0:
        text = digits + "0" * exponent
    else:
        point = len(digits) + exponent
        text = f"{digits[:point]}.{digits[point:]}" if point > 0 else "0." + "0" * -point + digits
    return "-" + text if sign else text


def _decimal(v) -> bytes:
    return java_decimal_string(v).encode("ascii")


# ------------------------------------------------------------------------------------ double and float


def _shortest(value: float, single: bool) -> tuple[str, int]:
    """The digits (no trailing zeros) and the decimal exponent e (value = d.ddd x 10**e) of the shortest
    decimal that rounds to |value| (Python's repr / numpy's shortest float32 repr)."""
    text = np.format_float_scientific(np.float32(abs(value)), unique=True, trim="-") if single else repr(abs(value))
    mantissa, _, exp = text.lower().partition("e")
    exponent = int(exp) if exp else 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # position of the first significant digit relative to the point
    if whole.strip("0"):
        exponent += len(whole.lstrip("0")) - 1
    else:
        exponent -= len(fraction) - len(fraction.lstrip("0")) + 1
    return digits.rstrip("0") or "0", exponent


def _neighbours(value: float, single: bool) -> tuple[Fraction, Fraction]:
    """The exact values halfway to the adjacent floating-point numbers of |value| (finite, non-zero)."""
    if single:
        v = np.float32(abs(value))
        below, above = np.nextafter(v, np.float32(0)), np.nextafter(v, np.float32(np.inf))
    else:
        v = abs(value)
        below, above = math.nextafter(v, 0.0), math.nextafter(v, math.inf)
    exact = Fraction(float(v))
    low = (exact + Fraction(float(below))) / 2
    high = (exact + Fraction(float(above))) / 2 if np.isfinite(above) else exact + (exact - low)
    return low, high


def _two_digit_rule(value: float, single: bool, digits: str, exponent: int) -> tuple[str, int]:
    """JDK 19+: when the shortest decimal has one digit, the closest decimal of at most two digits that
    rounds to the value is printed instead (Double.MIN_VALUE is ``4.9E-324``, not ``5.0E-324``)."""
    if len(digits) != 1:
        return digits, exponent
    exact = Fraction(float(np.float32(abs(value)))) if single else Fraction(abs(value))
    low, high = _neighbours(value, single)
    # An endpoint halfway to a neighbour rounds (to even) to the value iff its significand is even.
    bits = int(np.float32(abs(value)).view(np.uint32)) if single else int(np.float64(abs(value)).view(np.uint64))
    even = bits % 2 == 0
    best = None
    for scale in (exponent, exponent - 1, exponent - 2):
        unit = Fraction(10) ** scale
        center = int(exact / unit)
        for n in (center - 1, center, center + 1, center + 2):
            if not 10 <= n <= 99:
                continue
            candidate = n * unit
            inside = low < candidate < high or (even and candidate in (low, high))
            if not inside:
                continue
            key = (abs(candidate - exact), n % 2)  # closest; on a tie, the even last digit
            if best is None or key < best[0]:
                best = (key, n, scale)
    if best is None:
        return digits, exponent
    _, n, scale = best
    text = str(n).rstrip("0")
    return text, scale + 1


def _java_layout(negative: bool, digits: str, exponent: int) -> str:
    """Java's toString layout of d.ddd x 10**e: plain for 1e-3 <= |v| < 1e7 (at least one fraction digit),
    else computerized scientific notation with at least one fraction digit and an unpadded exponent."""
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        text = f"{whole}.{fraction}"
    else:
        text = f"{digits[0]}.{digits[1:] or '0'}E{exponent}"
    return "-" + text if negative else text


# ---- JDK 17 (and 8 to 18): jdk.internal.math.FloatingDecimal.BinaryToASCIIBuffer, ported step for step. It
# is not always the shortest decimal (1.0E23 prints 9.999999999999999E22, large floats get extra digits), so
# it cannot be derived from repr; Java's int and long arithmetic (which wraps) is emulated where it is used.

_LONG_5_POW = [5**i for i in range(27)]  # FDBigInteger.LONG_5_POW (27 entries on JDK 17)
_SMALL_5_POW = [5**i for i in range(14)]  # FDBigInteger.SMALL_5_POW
_N_5_BITS = [0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61]
_INSIGNIFICANT_FOR_POW2 = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 10,
    10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18,
    18, 19,
]  # fmt: skip


def _wrap(v: int, bits: int) -> int:
    """Java's two's-complement int (32) or long (64) value of v."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _develop_long_digits(dec_exponent: int, lvalue: int, insignificant: int) -> tuple[list[int], int]:
    """BinaryToASCIIBuffer.developLongDigits: an integral value's digits, rounded at ``insignificant``."""
    if insignificant:
        pow10 = _LONG_5_POW[insignificant] << insignificant
        residue = lvalue % pow10
        lvalue //= pow10
        dec_exponent += insignificant
        if residue >= pow10 >> 1:
            lvalue += 1
    text = str(lvalue)
    stripped = text.rstrip("0")
    return [int(c) for c in stripped], dec_exponent + len(text) - 1 + 1


def _estimate_dec_exp(fract_bits: int, bin_exp: int) -> int:
    """BinaryToASCIIBuffer.estimateDecExp: floor of an estimate of log10, in double arithmetic."""
    d2 = float(np.array(0x3FF0000000000000 | (fract_bits & ((1 << 52) - 1)), dtype=np.uint64).view(np.float64))
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _jdk17_dtoa(bin_exp: int, fract_bits: int, n_significant_bits: int) -> tuple[list[int], int]:
    """BinaryToASCIIBuffer.dtoa (isCompatibleFormat): the digits and the decimal exponent (value =
    0.d1d2... x 10**exponent) that JDK 17's toString prints."""
    tail_zeros = (fract_bits & -fract_bits).bit_length() - 1
    n_fract_bits = 53 - tail_zeros
    n_tiny_bits = max(0, n_fract_bits - bin_exp - 1)
    # The JDK's "easy case" (binExp in [-21, 62], the value scaled by 10**nTinyBits fits a long) only does
    # anything when nTinyBits == 0, where its size test always holds: an integer below 2**63, whose digits are
    # printed less those beyond the precision.
    if -21 <= bin_exp <= 62 and n_tiny_bits == 0:
        if bin_exp > n_significant_bits:
            p2 = bin_exp - n_significant_bits - 1
            insignificant = _INSIGNIFICANT_FOR_POW2[p2] if 1 < p2 < len(_INSIGNIFICANT_FOR_POW2) else 0
        else:
            insignificant = 0
        shifted = fract_bits << (bin_exp - 52) if bin_exp >= 52 else fract_bits >> (52 - bin_exp)
        return _develop_long_digits(0, shifted, insignificant)
    dec_exp = _estimate_dec_exp(fract_bits, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + n_tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + n_tiny_bits
    m5 = b5
    m2 = b2 - n_significant_bits
    fract_bits >>= tail_zeros
    b2 -= n_fract_bits - 1
    common = min(b2, s2)
    b2 -= common
    s2 -= common
    m2 -= common
    if n_fract_bits == 1:
        m2 -= 1
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0
    digits: list[int] = []
    b_bits = n_fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    if b_bits < 64 and ten_s_bits < 64:
        # int (or long) arithmetic, with its wrap-around: m * 10 may overflow, as in the JDK.
        w = 32 if b_bits < 32 and ten_s_bits < 32 else 64
        pow5 = _SMALL_5_POW if w == 32 else _LONG_5_POW

        b = _wrap(_wrap(_wrap(fract_bits, w) * pow5[b5], w) << b2, w)
        s = _wrap(pow5[s5] << s2, w)
        m = _wrap(pow5[m5] << m2, w)
        tens = _wrap(s * 10, w)
        q = b // s
        b = _wrap(10 * (b % s), w)
        m = _wrap(m * 10, w)
        low = b < m
        high = _wrap(b + m, w) > tens
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:  # E-form: at least two digits ("1.0E10")
            high = low = False
        while not low and not high:
            q = b // s
            b = _wrap(10 * (b % s), w)
            m = _wrap(m * 10, w)
            if m > 0:
                low = b < m
                high = _wrap(b + m, w) > tens
            else:  # m overflowed
                low = high = True
            digits.append(q)
        low_digit_difference = _wrap(_wrap(b << 1, w) - tens, w)
    else:
        # FDBigInteger arithmetic: exact (its normalising shift scales every term alike).
        big_s = 5**s5 << s2
        big_b = fract_bits * 5**b5 << b2
        big_m = 5 ** (m5 + 1) << (m2 + 1)
        ten_s = 5 ** (s5 + 1) << (s2 + 1)
        q, big_b = divmod(big_b, big_s)
        big_b *= 10
        low = big_b < big_m
        high = big_b + big_m >= ten_s
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            high = low = False
        while not low and not high:
            q, big_b = divmod(big_b, big_s)
            big_b *= 10
            big_m *= 10
            low = big_b < big_m
            high = big_b + big_m >= ten_s
            digits.append(q)
        low_digit_difference = ((big_b << 1) > ten_s) - ((big_b << 1) < ten_s) if high and low else 0
    dec_exponent = dec_exp + 1
    if high and (not low or low_digit_difference > 0 or (low_digit_difference == 0 and digits[-1] & 1)):
        # roundup(): add one to the last digit; a carry out of the first digit makes it "1" followed by the
        # (now zero) digits and raises the exponent.
        i = len(digits) - 1
        while digits[i] == 9 and i > 0:
            digits[i] = 0
            i -= 1
        if digits[i] == 9:
            dec_exponent += 1
            digits[0] = 1
        else:
            digits[i] += 1
    return digits, dec_exponent


def _jdk17_layout(negative: bool, digits: list[int], dec_exponent: int) -> str:
    """BinaryToASCIIBuffer.getChars."""
    text = "".join(map(str, digits))
    n = len(text)
    if 0 < dec_exponent < 8:
        whole = text[:dec_exponent]
        if n < dec_exponent:
            out = whole + "0" * (dec_exponent - n) + ".0"
        else:
            out = whole + "." + (text[dec_exponent:] or "0")
    elif -3 < dec_exponent <= 0:
        out = "0." + "0" * -dec_exponent + text
    else:
        e = dec_exponent - 1
        out = f"{text[0]}.{text[1:] or '0'}E{e}"
    return "-" + out if negative else out


def _jdk17_string(value: float, single: bool) -> str:
    """FloatingDecimal.toJavaFormatString of JDK 8 to 18 (getBinaryToASCIIConverter(double | float))."""
    if single:
        bits = int(np.float32(value).view(np.uint32))
        negative = bool(bits >> 31)
        fract = bits & 0x7FFFFF
        bin_exp = (bits >> 23) & 0xFF
        if bin_exp == 0xFF:
            return "NaN" if fract else ("-Infinity" if negative else "Infinity")
        if bin_exp == 0:
            if fract == 0:
                return "-0.0" if negative else "0.0"
            leading = 32 - fract.bit_length()
            shift = leading - 8
            fract <<= shift
            bin_exp = 1 - shift
            n_significant = 32 - leading
        else:
            fract |= 1 << 23
            n_significant = 24
        digits, exponent = _jdk17_dtoa(bin_exp - 127, fract << 29, n_significant)
    else:
        bits = int(np.float64(value).view(np.uint64))
        negative = bool(bits >> 63)
        fract = bits & ((1 << 52) - 1)
        bin_exp = (bits >> 52) & 0x7FF
        if bin_exp == 0x7FF:
            return "NaN" if fract else ("-Infinity" if negative else "Infinity")
        if bin_exp == 0:
            if fract == 0:
                return "-0.0" if negative else "0.0"
            leading = 64 - fract.bit_length()
            shift = leading - 11
            fract <<= shift
            bin_exp = 1 - shift
            n_significant = 64 - leading
        else:
            fract |= 1 << 52
            n_significant = 53
        digits, exponent = _jdk17_dtoa(bin_exp - 1023, fract, n_significant)
    return _jdk17_layout(negative, digits, exponent)


def _floating_string(value: float, single: bool, jdk: int) -> str:
    if jdk < 19:
        return _jdk17_string(value, single)
    if math.isnan(value):
        return "NaN"
    negative = math.copysign(1.0, value) < 0
    if math.isinf(value):
        return "-Infinity" if negative else "Infinity"
    if value == 0:
        return "-0.0" if negative else "0.0"
    digits, exponent = _shortest(value, single)
    digits, exponent = _two_digit_rule(value, single, digits, exponent)
    return _java_layout(negative, digits, exponent)


def java_double_string(value: float, jdk: int = DEFAULT_JDK) -> str:
    """``Double.toString`` as Java ``jdk`` prints it (the algorithm changed in JDK 19)."""
    return _floating_string(float(value), False, jdk)


def java_float_string(value: float, jdk: int = DEFAULT_JDK) -> str:
    """``Float.toString`` as Java ``jdk`` prints it (``value`` is taken as the float32 it rounds to)."""
    return _floating_string(float(np.float32(value)), True, jdk)


# ------------------------------------------------------------------------------------ other atomic types


def _string(v) -> bytes:
    if not isinstance(v, str):
        raise DpTextError.of("ID_VALUE_NOT_OF_TYPE", type="string", valueType=type(v).__name__)
    return java_utf8(v)


def _binary(v) -> bytes:
    if isinstance(v, str):
        raise DpTextError.of("ID_VALUE_NOT_OF_TYPE", type="binary", valueType=type(v).__name__)
    return bytes(v)


def _boolean(v) -> bytes:
    return b"true" if bool(v) else b"false"


_GREGORIAN_GAP = (_dt.date(1582, 10, 5), _dt.date(1582, 10, 14))


def _date(v) -> bytes:
    if isinstance(v, np.datetime64):
        v = v.astype("datetime64[D]").item()
    if isinstance(v, _dt.datetime) or not isinstance(v, _dt.date):
        raise DpTextError.of("ID_VALUE_NOT_OF_TYPE", type="date", valueType=type(v).__name__)
    if _GREGORIAN_GAP[0] <= v <= _GREGORIAN_GAP[1]:
        # java.sql.Date (Spark's default) shows these ten days, absent from the Julian-Gregorian calendar, as
        # later dates; java.time.LocalDate (spark.sql.datetime.java8API.enabled) as they are.
        raise DpTextError.of("ID_DATE_UNSTABLE")
    return v.isoformat().encode("ascii")


_CONVERTERS = {
    "integral": _integral,
    "decimal": _decimal,
    "string": _string,
    "binary": _binary,
    "boolean": _boolean,
    "date": _date,
}
