"""The DataFrame API: ``dptext.sanitize(df, "body", "body_dp", id_col="ticket_id", epsilon=3)``.

On a classic session this is the Java DataFrame API itself (``DpText.sanitizer(spark)...transform``),
called through py4j. On Spark Connect, where there is no JVM in this process, it is the server's SQL
function ``dp_sanitize(text[, id], options)`` with every setting in its options map: the session's
``spark.dptext.*`` when ``sanitize`` is called, overridden by the keywords. Either way the settings are
fixed when ``sanitize`` returns, so later ``set_options`` calls do not change what the DataFrame computes,
and the key is resolved the same way (the session's ``secretKey``, ``databricksSecret``, ``keyFile``,
then ``keyEnv``: on Connect, the server's).
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

from dptext import options, session
from dptext.engine import choice
from dptext.errors import DpTextError


def sanitize(
    df: DataFrame,
    input_col: str,
    output_col: str | None = None,
    *,
    id_col: str | None = None,
    id_mode: str | None = None,
    engine: str | None = None,
    **settings: Any,
) -> DataFrame:
    """Adds (or replaces) ``output_col`` (default: ``input_col``) with the sanitized ``input_col``.

    Every other column and every row is kept; null stays null, empty stays empty. Settings start from
    the session's ``spark.dptext.*`` and are overridden by keyword settings (``mechanism="santext+"``,
    ``epsilon=3``, ``key_file="/path"``; see ``help(dptext.functions.dp_sanitize)`` for every setting and
    each mechanism's guarantee). Rows are seeded by ``id_col`` (recommended); without it, choose
    ``id_mode="content-hash"`` (equal texts get equal outputs) or ``id_mode="fresh"`` (not reproducible).
    The key is never a Python value: name it with ``key_file``, ``key_env`` or ``databricks_secret``.

    Settings are fixed when this returns (a later ``set_options`` does not change the DataFrame), on a
    classic session as on Spark Connect. A value that does not fit raises ``dptext.DpTextError`` here, with
    the message the command line gives.
    """
    conf = options.to_conf(settings)
    spark = df.sparkSession
    _require_columns(df, input_col, id_col)
    if choice.choose(spark, engine) == "python":
        return _sanitize_python(df, input_col, output_col, id_col, id_mode, settings)
    if session.is_connect(spark):
        return _sanitize_connect(df, input_col, output_col, id_col, id_mode, settings)
    jvm = spark._jvm
    builder = jvm.dev.dptext.spark.DpText.sanitizer(spark._jsparkSession)
    for key, value in conf.items():
        builder = builder.option(key, value)
    mode = (id_mode or "").strip().lower()
    if id_col is not None:
        if mode not in ("", "column"):
            raise DpTextError.of("ID_COL_WITH_ID_MODE", idCol=repr(id_col), idMode=repr(id_mode))
        builder = builder.idColumn(id_col)
    elif mode in ("content-hash", "content_hash"):
        builder = builder.seedByContent()
    elif mode == "fresh":
        builder = builder.freshRandomness()
    elif mode:
        builder = builder.option("idMode", id_mode)
    from pyspark.sql.classic.dataframe import DataFrame as ClassicDataFrame

    return ClassicDataFrame(builder.transform(df._jdf, input_col, output_col or input_col), spark)


def _sanitize_connect(
    df: DataFrame,
    input_col: str,
    output_col: str | None,
    id_col: str | None,
    id_mode: str | None,
    settings: dict[str, Any],
) -> DataFrame:
    from dptext.functions import dp_sanitize

    conf = session.engine_conf(df.sparkSession, settings, id_col, id_mode)
    text = dp_sanitize(input_col, id_col, options=conf) if id_col is not None else dp_sanitize(input_col, options=conf)
    return df.withColumn(output_col or input_col, text)


def _require_columns(df: DataFrame, input_col: str, id_col: str | None) -> None:
    """A missing column fails here, in one line (Spark Connect would answer with a long server trace)."""
    columns = df.columns
    for role, name in (("text", input_col), ("id", id_col)):
        if name is not None and name not in columns and "." not in name and "`" not in name:
            # DpText.field's error, so that every engine and session says the same.
            raise DpTextError.of(
                "COLUMN_NOT_IN_INPUT", role=f"{role} column", column=name, columns=f"[{', '.join(columns)}]"
            )


def _sanitize_python(
    df: DataFrame,
    input_col: str,
    output_col: str | None,
    id_col: str | None,
    id_mode: str | None,
    settings: dict[str, Any],
) -> DataFrame:
    """The Python engine: the session's dptext settings, overridden by the keywords, computed by a pandas UDF."""
    from pyspark.sql import functions as F

    from dptext.engine import spark as engine

    conf = session.engine_conf(df.sparkSession, settings, id_col, id_mode)
    engine.check_input(df, input_col, id_col, conf.get("idMode", "column"))
    column = engine.column(F.col(input_col), None if id_col is None else F.col(id_col), conf)
    return df.withColumn(output_col or input_col, column)
