"""dptext's errors as Python exceptions: ``DpTextError``, with dptext's one-line message.

A dptext error raised in the JVM reaches Python as pyspark wraps it: a ``Py4JJavaError`` or a captured
exception on a classic session, a Spark Connect exception on a Connect client, with thousands of
characters of JVM stack trace around the message. Once ``dptext`` is imported, an error *thrown by
dptext's Java code* (its exception was created in a ``dev.dptext`` class) is raised as ``DpTextError``
with that exception's message; pyspark's exception is kept as ``__cause__``. So is a ``DpTextError`` the
Python engine raised in a Python worker (a null id, say), which pyspark reports as a ``PythonException``
holding the worker's traceback. Every other error is left exactly as pyspark raises it. Set the
environment variable ``DPTEXT_JVM_ERRORS=1`` to get pyspark's exceptions unchanged.

dptext's errors are named in one catalogue, ``error-classes.json`` (the JVM's
``dev/dptext/errors/error-classes.json``, copied into the package by the build; docs/errors.md lists it):
``DpTextError.of("NAME", param=value)`` renders the entry's one line, ``[NAME] message fix``, exactly as the
JVM does, and an error that crossed from the JVM or a worker keeps its ``name`` (read back from that text).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import json
import os
import re
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

JVM_ERRORS_ENV = "DPTEXT_JVM_ERRORS"


CATALOGUE = "error-classes.json"
_PARAMETER = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)>")
_NAMED = re.compile(r"\[([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\] ")


# Where the catalogue is written, for a source checkout (python/src on the path) that has no built copy.
_SOURCE = ("udfs", "src", "main", "resources", "dev", "dptext", "errors", CATALOGUE)


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, str]]:
    """The error catalogue: NAME -> {"exit", "message", "fix"}, as the package carries it (the build copies
    the JVM's file into the package; a source checkout reads the JVM's file itself)."""
    packaged = resources.files("dptext").joinpath(CATALOGUE)
    if not packaged.is_file():
        packaged = Path(__file__).resolve().parents[3].joinpath(*_SOURCE)
        if not packaged.is_file():  # neither: errors keep their text, unnamed (DpTextError.of cannot render)
            return {}
    return json.loads(packaged.read_text(encoding="utf-8"))


def render(name: str, parameters: dict[str, Any]) -> str:
    """The one line of entry ``name``: ``[NAME] message fix``, as the JVM renders it (values as ``str``).

    Parameters are names, paths, numbers and settings: never a row's text or key material. An unknown name,
    a missing parameter or one the entry does not name is a bug in dptext's code: ``AssertionError`` (the JVM's
    ``IllegalStateException``), never a half-rendered message.
    """
    entry = catalogue().get(name)
    if entry is None:
        raise AssertionError(f"no error class {name} in {CATALOGUE}")
    named = {p for t in (entry["message"], entry["fix"]) for p in _PARAMETER.findall(t)}
    if named != set(parameters):
        raise AssertionError(f"error {name} rendered with {sorted(parameters)}, its template names {sorted(named)}")

    def fill(template: str) -> str:
        return _PARAMETER.sub(lambda m: _text(parameters[m.group(1)]), template)

    return f"[{name}] {fill(entry['message'])} {fill(entry['fix'])}"


def _text(value: Any) -> str:
    """A parameter as Java's String.valueOf writes it (booleans lower case, None as null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def name_of(message: str) -> str | None:
    """The name of the first catalogued error quoted in ``message`` (``[NAME] ...``), or ``None``."""
    for m in _NAMED.finditer(message or ""):
        if m.group(1) in catalogue():
            return m.group(1)
    return None


# What may follow a rendered line: the job's exit-code mark on a Spark Connect server, then the line's end.
_SERVER_SUFFIX = r"(?: \[dptext exit \d\])?[ \t]*$"


def parameters_of(name: str, text: str) -> dict[str, str]:
    """The parameters of entry ``name`` as rendered in ``text``, read back by matching the entry's template
    (``[NAME] message fix``, to the end of its line), as ``DpTextErrors.parametersOf`` does on the JVM: for an
    error that crossed from the JVM or a worker as its line only. Exact or nothing: empty when ``text`` does not
    hold the entry's line whole, or when a value holds the words that follow it in the template so that the line
    reads two ways (its shortest and longest readings differ)."""
    entry = catalogue().get(name)
    if entry is None or not text:
        return {}
    order: list[str] = []
    shortest = _reading(name, entry, text, "*?", order)
    longest = _reading(name, entry, text, "*", [])
    if shortest is None or shortest != longest:
        return {}
    return dict(zip(order, shortest, strict=True))


def _reading(name: str, entry: dict[str, str], text: str, quantifier: str, order: list[str]) -> list[str] | None:
    template = f"{entry['message']} {entry['fix']}"
    regex, at = [re.escape(f"[{name}] ")], 0
    for m in _PARAMETER.finditer(template):
        regex.append(re.escape(template[at : m.start()]))
        if m.group(1) in order:
            regex.append(f"(?P=p{order.index(m.group(1))})")
        else:
            regex.append(f"(?P<p{len(order)}>.{quantifier})")
            order.append(m.group(1))
        at = m.end()
    regex.append(re.escape(template[at:]) + _SERVER_SUFFIX)
    found = re.search("".join(regex), text, re.MULTILINE)
    return None if found is None else [found.group(f"p{i}") for i in range(len(order))]


class DpTextError(ValueError):
    """A dptext error: a setting, an argument or the data does not fit (the message says which and the fix).

    ``name`` is the error's entry in the catalogue (``None`` for an error not catalogued yet) and
    ``parameters`` what its message was rendered with (for an error that crossed from the JVM or a worker as its
    line, read back from it: ``parameters_of``, all values as text). ``java_class`` is the JVM exception's class
    when the error came from the JVM (``None`` when Python found it first); the pyspark exception is ``__cause__``.
    """

    def __init__(
        self,
        message: str,
        java_class: str | None = None,
        name: str | None = None,
        parameters: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.java_class = java_class
        self.name = name if name is not None else name_of(message)
        if parameters is None and self.name is not None:
            parameters = parameters_of(self.name, message)
        self.parameters = dict(parameters or {})

    @classmethod
    def of(cls, name: str, **parameters: Any) -> DpTextError:
        """The catalogue's entry ``name`` with ``parameters``: the same line the JVM writes for it."""
        return cls(render(name, parameters), name=name, parameters=parameters)

    def __reduce__(self) -> tuple[Any, ...]:
        # Picklable with its name and parameters (a worker's error travels to the driver pickled).
        return (_rebuild, (type(self), str(self), self.java_class, self.name, self.parameters))


def _rebuild(cls: type, message: str, java_class: str | None, name: str | None, parameters: dict) -> DpTextError:
    e = cls.__new__(cls)
    DpTextError.__init__(e, message, java_class, name, parameters)
    return e


_EXCEPTION = re.compile(r"(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)(?=: |$)")
_FRAME = re.compile(r"^\s*at ")
# The last line of a Python worker's traceback when the Python engine refused a row or could not start (errors
# are one line): a DpTextError, or a subclass of it (dptext.engine.model.ModelError).
_WORKER_ERROR = re.compile(r"^dptext\.(?:errors\.DpTextError|[\w.]+\.ModelError): (.+)$", re.MULTILINE)


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
    # Spark Connect's client: patched now if it is loaded, else when it is (importing it costs ~0.4 s, paid by
    # every Python worker that runs the engine, where no Connect client is ever used).
    client = sys.modules.get(_CONNECT_CLIENT)
    if client is not None:
        _patch_connect_client(client)
    elif not any(isinstance(f, _ConnectClientHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _ConnectClientHook())


_CONNECT_CLIENT = "pyspark.sql.connect.client.core"


def _patch_connect_client(module: Any) -> None:
    client = module.SparkConnectClient
    if not getattr(client._handle_error, "_dptext", False):
        client._handle_error = _converting(client._handle_error)


class _ConnectClientHook(importlib.abc.MetaPathFinder):
    """Patches Spark Connect's client module right after it is first imported (once, then leaves the path)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != _CONNECT_CLIENT:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)  # the finders after it find the module; this runs once
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    """The module's own loader, then ``_patch_connect_client`` on what it loaded."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _patch_connect_client(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, is_package…: the real loader's
        return getattr(self._loader, name)
