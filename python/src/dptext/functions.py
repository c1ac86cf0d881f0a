"""dptext's SQL functions as PySpark column functions.

They call the SQL function registered by the JVM (``F.call_function``), so they build the same plan
on a classic session and on Spark Connect, and all the work stays in the JVM.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F

from dptext import _registry, options
from dptext.engine import choice
from dptext.errors import DpTextError


def _column(c: Column | str) -> Column:
    return c if isinstance(c, Column) else F.col(c)


def dp_sanitize(
    text: Column | str,
    id: Column | str | None = None,  # noqa: A002 (SQL's name)
    options: dict[str, Any] | None = None,
    engine: str | None = None,
) -> Column:
    spark = _active_session()
    if spark is not None and choice.choose(spark, engine) == "python":
        from dptext.engine import spark as python_engine
        from dptext.session import engine_conf

        conf = engine_conf(spark, dict(options or {}), None, None)
        if id is not None and "idMode" not in {_name(k) for k in (options or {})}:
            conf["idMode"] = "column"
        return python_engine.column(_column(text), None if id is None else _column(id), conf)
    if engine is not None and engine.strip().lower() == "python":
        raise DpTextError.of(
            "SESSION_REQUIRED",
            what="dp_sanitize(engine='python') (it reads its dptext settings)",
            session="SparkSession",
        )
    args = [_column(text)] + ([] if id is None else [_column(id)])
    if options:
        args.append(_options_map(options))
    return F.call_function(_registry.sql_function(), *args)


def _active_session() -> Any:
    from pyspark.sql import SparkSession

    try:
        return SparkSession.getActiveSession()
    except Exception:
        return None


def _name(key: str) -> str:
    return options.setting(key).name


def _options_map(settings: dict[str, Any]) -> Column:
    """The constant MAP<STRING, STRING> argument: settings by their JVM names, checked (``None``: the default)."""
    entries = []
    for name, value in settings.items():
        s = options.setting(name)
        entries += [
            F.lit(s.name),
            F.lit(None).cast("string") if value is None else F.lit(options.checked_text(s, value)),
        ]
    return F.create_map(*entries)


dp_sanitize.__doc__ = f"""Rewrites each word of ``text`` with a differentially private mechanism over word embeddings.

``dp_sanitize(text, id)`` seeds each row's noise with the secret key and the row's stable ``id`` (any
atomic type), so re-runs give identical output; ``dp_sanitize(text)`` needs the session setting
``idMode`` = ``content-hash`` (equal texts get equal outputs) or ``fresh`` (not reproducible).
Null stays null, empty stays empty. ``engine``: ``"jvm"``, ``"python"`` or ``None`` (the JVM when the
active session has dptext's JVM, else the Python engine: docs/python-and-connect.md). The mechanism and
its parameters come from the session's ``spark.dptext.*`` settings (``dptext.set_options``), overridden
by ``options`` (a dict of settings by keyword or JVM name, checked here; ``None`` means the setting's
default); the default mechanism is ``{_registry.default_mechanism()}``.

Mechanisms and their guarantees (from the JVM registry):

{_registry.mechanisms_doc()}

Settings (keyword name, default, allowed values):

{_registry.settings_doc()}
"""
