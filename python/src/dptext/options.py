"""Python keyword arguments to dptext settings, checked against the JVM's settings table.

Values are checked when they are given (``set_options``, ``configure``, ``sanitize``, the ML stage's
Params), with the JVM's own message ("epsilon must be a positive finite number, got -1.0", as the
command line says it): the checks are the registry's (``check``, ``choices``: exported from the Java
declarations by the build, never written here), and a test compares every verdict and message with
the JVM's. What only Java can check (an unknown spelling of a choice, which may be an alias) is asked
of the JVM on a classic session and left to the query on Spark Connect.

The RNG key itself is never accepted here: a Python value handed to Spark ends up in a plan, a conf
listing or a log. Name the key instead (``key_file``, ``key_env``, ``databricks_secret``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from dptext import _registry
from dptext.errors import DpTextError

_KEY_REFUSAL = (
    "dptext never takes the RNG key as a Python value: it would end up in a query plan, the session's "
    "conf or a log. Name it instead: key_file='/path/to/key' (a file of mode 600), key_env='VARIABLE' "
    "(an environment variable of the driver), or databricks_secret='scope/key' on Databricks; or set "
    "spark.dptext.secretKey at application start (spark-submit --conf, the cluster's Spark config)."
)


def setting(name: str) -> _registry.Setting:
    """The setting of a keyword (``oov_placeholder``) or JVM name (``oovPlaceholder``)."""
    for s in _registry.settings():
        if name in (s.python_name, s.name, s.conf_key):
            if s.secret:
                raise DpTextError(_KEY_REFUSAL)
            return s
    known = sorted(s.python_name for s in _registry.settings() if not s.secret)
    raise DpTextError.of("SETTING_UNKNOWN", unknown=name, known=known)


def as_text(value: Any) -> str:
    """A value as the JVM's settings parse it from a Spark conf: lists comma-separated, booleans lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(as_text(v) for v in value)
    return str(value)


def to_conf(settings: dict[str, Any]) -> dict[str, str]:
    """Keyword settings as ``spark.dptext.*`` conf entries (unknown names and the key refused, values checked)."""
    out = {}
    for k, v in settings.items():
        if v is not None:
            s = setting(k)
            out[s.conf_key] = checked_text(s, v)
    return out


def checked_text(s: _registry.Setting, value: Any) -> str:
    """``value`` as conf text, after the setting's check (``DpTextError`` with the JVM's message)."""
    text = as_text(value)
    check(s, text)
    return text


# --- The JVM's parsing and checks (dev.dptext.config.ValueType and Check), driven by the registry. ---

_JAVA_DOUBLE = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)")
_JAVA_INT = re.compile(r"[+-]?\d+")
_TYPE_EXPECTED = {
    "INT": "an integer",
    "DOUBLE": "a number",
    "BOOLEAN": "true or false",
    "DOUBLE_LIST": "a number or a list of numbers separated by ',' or ';'",
    "STRING": "a string",
}


class _UnparsableError(Exception):
    pass


class _AskTheJvmError(Exception):
    pass


def _double(text: str) -> float:
    t = text.strip()
    if re.match(r"[+-]?0[xX]", t):
        raise _AskTheJvmError  # a hexadecimal floating-point literal
    if not _JAVA_DOUBLE.fullmatch(t):
        raise _UnparsableError
    t = t.rstrip("fFdD") if not t.endswith("Infinity") else t
    return float(t.replace("Infinity", "inf"))


def java_double(x: float) -> str:
    """``Double.toString(x)``: how the JVM's messages write a number (``-1.0``, ``1.0E-5``)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    d = Decimal(repr(abs(x))).normalize()
    if 1e-3 <= abs(x) < 1e7:
        s = format(d, "f")
        return sign + (s if "." in s else s + ".0")
    digits = "".join(map(str, d.as_tuple().digits))
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{d.adjusted()}"


def _render(value: Any) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, list):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    return str(value)


def _failure(name: str, expected: str, value: Any, hint: str | None) -> DpTextError:
    """The catalogue's ``SETTING_INVALID`` with the parameters the JVM's ``Check.failure`` gives it."""
    advice = hint[0].upper() + hint[1:] if hint else f"Change {name}"  # a sentence, as Check.failure makes it
    return DpTextError.of("SETTING_INVALID", setting=name, expected=expected, value=_render(value), hint=advice)


def _parse(s: _registry.Setting, text: str) -> Any:
    t = text.strip()
    if s.kind == "INT":
        if not _JAVA_INT.fullmatch(t) or not -(2**31) <= int(t) < 2**31:
            raise _UnparsableError
        return int(t)
    if s.kind == "DOUBLE":
        return _double(t)
    if s.kind == "BOOLEAN":
        if t.lower() not in ("true", "false"):
            raise _UnparsableError
        return t.lower() == "true"
    if s.kind == "DOUBLE_LIST":
        parts = re.split(r"[,;]", t)
        while t and parts and parts[-1] == "":  # String.split drops trailing empty strings (not of "")
            parts.pop()
        return [_double(p) for p in parts]
    if s.choices:
        normal = t.lower().replace("_", "-")
        if s.name == "mechanism":
            for m in _registry.mechanisms():
                if normal == m.name or normal in m.aliases:
                    return m.name
            raise _UnparsableError
        if normal in s.choices:
            return normal
        raise _AskTheJvmError  # another spelling (an alias?): only the JVM knows
    return t


def _ok(rule: dict, value: Any) -> bool:
    if rule.get("each"):
        return (bool(value) or not rule.get("nonEmpty")) and all(_ok({**rule, "each": False}, v) for v in value)
    if rule.get("nonBlank") and not value.strip():
        return False
    if "pattern" in rule and not re.fullmatch(rule["pattern"], value):
        return False
    if "min" in rule and not (value > rule["min"] if rule.get("minOpen") else value >= rule["min"]):
        return False
    if "max" in rule and not (value < rule["max"] if rule.get("maxOpen") else value <= rule["max"]):
        return False
    return not (rule.get("finite") and math.isinf(value))


def verdict(s: _registry.Setting, text: str) -> str | None:
    """The JVM's message for ``text`` as a value of ``s`` (``None``: valid), or raises ``LookupError`` when
    only the JVM can tell (a check declared in Java code only, or an unknown spelling of a choice)."""
    refusal = _refusal(s, text)
    return None if refusal is None else str(refusal)


def _refusal(s: _registry.Setting, text: str) -> DpTextError | None:
    try:
        value = _parse(s, text)
    except _UnparsableError:
        expected = s.expected if s.choices else _TYPE_EXPECTED[s.kind]
        return _failure(s.name, expected, text, None)
    except _AskTheJvmError:
        raise LookupError(s.name) from None
    if s.check is None:
        raise LookupError(s.name)
    if s.check and not _ok(s.check, value):
        return _failure(s.name, s.expected, value, s.hint)
    return None


def check(s: _registry.Setting, text: str) -> None:
    """Raises ``DpTextError`` (``SETTING_INVALID``, as the JVM) when ``text`` is not a valid value of ``s``."""
    try:
        refusal = _refusal(s, text)
    except LookupError:
        _jvm_check(s, text)
        return
    if refusal is not None:
        raise refusal


def _jvm_check(s: _registry.Setting, text: str) -> None:
    """The JVM's own check, on a classic session; without one (Spark Connect, no session) the query checks."""
    from pyspark import SparkContext

    sc = SparkContext._active_spark_context
    if sc is None or sc._jvm is None:
        return
    from dptext import errors

    try:
        sc._jvm.dev.dptext.settings.Settings.byName(s.name).get().parse(text)
    except Exception as e:
        converted = errors.convert(e)
        if converted is None:
            raise
        raise DpTextError(str(converted)) from None
