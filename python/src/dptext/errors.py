"""dptext's errors as Python exceptions: ``DpTextError``, with dptext's one-line message.

A dptext error raised in the JVM reaches Python as pyspark wraps it: a ``Py4JJavaError`` or a captured
exception on a classic session, a Spark Connect exception on a Connect client, with thousands of
characters of JVM stack trace around the message. Once ``dptext`` is imported, an error *thrown by
dptext's Java code* (its exception was created in a ``dev.dptext`` class) is raised as ``DpTextError``
with that exception's message; pyspark's exception is kept as ``__cause__``. So is a ``DpTextError`` the
Python engine raised in a Python worker (a null id, say), which pyspark reports as a ``PythonException``
holding the worker's traceback. Every other error is left exactly as pyspark raises it. Set the
environment variable ``DPTEXT_JVM_ERRORS=1`` to get pyspark's exceptions unchanged.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

JVM_ERRORS_ENV = "DPTEXT_JVM_ERRORS"


class DpTextError(ValueError):
    """A dptext error: a setting, an argument or the data does not fit (the message says which and the fix).

    ``java_class`` is the JVM exception's class when the error came from the JVM (``None`` when Python
    found it first); the pyspark exception is ``__cause__``.
    """

    def __init__(self, message: str, java_class: str | None = None) -> None:
        super().__init__(message)
        self.java_class = java_class


_EXCEPTION = re.compile(r"(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)(?=: |$)")
_FRAME = re.compile(r"^\s*at ")
# The last line of a Python worker's traceback when the Python engine refused a row (errors are one line).
_WORKER_ERROR = re.compile(r"^dptext\.errors\.DpTextError: (.+)$", re.MULTILINE)


def dptext_message(text: str) -> tuple[str, str] | None:
    """(class, message) of the first exception in ``text`` (a JVM stack trace, or a message holding one)
    whose first frame is dptext's code, or ``None``."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.strip().startswith("at dev.dptext.") or i == 0 or _FRAME.match(lines[i - 1]):
            continue
        for k in range(i - 1, -1, -1):  # the exception's header: the nearest line naming an exception class
            matches = list(_EXCEPTION.finditer(lines[k]))
            if matches:
                last = matches[-1]
                first = lines[k][last.end() :].removeprefix(": ")
                message = "\n".join([first, *lines[k + 1 : i]]).strip()
                return last.group(0), message
            if _FRAME.match(lines[k]):
                break
    return None


def _text_of(error: BaseException) -> str:
    """The message and JVM stack trace of a pyspark exception (classic or Connect)."""
    parts = []
    for method in ("getMessage", "getStackTrace"):
        try:
            value = getattr(error, method)() if hasattr(error, method) else None
        except Exception:
            value = None
        if isinstance(value, str):
            parts.append(value)
    stack = getattr(error, "_stackTrace", None)
    if isinstance(stack, str):
        parts.append(stack)
    with contextlib.suppress(Exception):
        parts.append(str(error))  # a Py4JJavaError's str holds the Java trace
    return "\n".join(parts)


def convert(error: BaseException) -> DpTextError | None:
    """``DpTextError`` for an exception dptext's Java code threw or the Python engine raised in a worker, else
    ``None``."""
    if isinstance(error, DpTextError) or os.environ.get(JVM_ERRORS_ENV, "").strip().lower() in ("1", "true"):
        return None
    text = _text_of(error)
    found = dptext_message(text)
    if found is None:
        worker = _WORKER_ERROR.search(text)
        return DpTextError(worker.group(1).strip()) if worker else None
    java_class, message = found
    if not message:  # a Connect server's trace names the class only: the message is the error's own
        message = text.split("\n\nJVM stacktrace:", 1)[0].strip()
    return DpTextError(message, java_class)


def _converting(f: Any) -> Any:
    def deco(*a: Any, **kw: Any) -> Any:
        try:
            return f(*a, **kw)
        except Exception as e:
            converted = convert(e)
            if converted is None:
                raise
            raise converted from e

    deco.__wrapped__ = f
    deco._dptext = True  # type: ignore[attr-defined]
    return deco


def install() -> None:
    """Converts dptext's JVM errors on classic sessions (py4j) and Spark Connect clients; idempotent."""
    from pyspark.errors.exceptions import captured

    if not getattr(captured.capture_sql_exception, "_dptext", False):
        original = captured.capture_sql_exception

        def capture(f: Any) -> Any:
            return _converting(original(f))

        capture._dptext = True  # type: ignore[attr-defined]
        captured.capture_sql_exception = capture
        try:
            import py4j.java_gateway

            if getattr(py4j.java_gateway.get_return_value, "__name__", "") == "deco":
                captured.install_exception_handler()  # a SparkContext exists already: re-patch py4j now
        except ImportError:
            pass
    try:
        from pyspark.sql.connect.client.core import SparkConnectClient
    except ImportError:  # pyspark without the Connect extras
        return
    if not getattr(SparkConnectClient._handle_error, "_dptext", False):
        SparkConnectClient._handle_error = _converting(SparkConnectClient._handle_error)
