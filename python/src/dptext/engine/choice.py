"""Which engine runs a Python surface: the dptext JVM where the session has it, the Python engine where not.

A classic session has dptext's JVM when its classes are on the driver's classpath; a Spark Connect session
when the server registered dptext's SQL function (the server was started with dptext's extension). On
Databricks serverless notebooks, jobs and SQL warehouses neither holds, and the Python engine runs.
"""

from __future__ import annotations

import weakref
from typing import Any

from dptext import _registry, options
from dptext.errors import DpTextError

ENGINES = ("auto", "jvm", "python")
_CONNECT_ANSWERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jvm_available(spark: Any) -> bool:
    """Whether ``spark`` can run dptext's JVM engine."""
    from dptext.session import is_connect

    if is_connect(spark):
        known = _CONNECT_ANSWERS.get(spark)
        if known is None:
            known = bool(spark.catalog.functionExists(_registry.sql_function()))
            _CONNECT_ANSWERS[spark] = known
        return known
    try:
        from py4j.java_gateway import JavaClass

        return isinstance(spark._jvm.dev.dptext.spark.DpText, JavaClass)
    except Exception:
        return False


def choose(spark: Any, engine: str | None) -> str:
    """``"jvm"`` or ``"python"`` for ``engine`` (``None``/``"auto"``: by what the session has)."""
    wanted = (engine or "auto").strip().lower()
    if wanted not in ENGINES:
        raise options._failure("engine", f"one of {', '.join(ENGINES)}", engine, None)
    if wanted == "python":
        return "python"
    has_jvm = jvm_available(spark)
    if wanted == "jvm" and not has_jvm:
        raise DpTextError.of("ENGINE_JVM_MISSING")
    return "jvm" if has_jvm else "python"
