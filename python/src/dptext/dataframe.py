"""The DataFrame API: ``dptext.sanitize(df, "body", "body_dp", id_col="ticket_id", epsilon=3)``.

On a classic session this is the Java DataFrame API itself (``DpText.sanitizer(spark)...transform``),
called through py4j. On Spark Connect, where there is no JVM in this process, it applies the ML stage
twin, which the Connect server runs with the same Java code.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

from dptext import options, session


def sanitize(
    df: DataFrame,
    input_col: str,
    output_col: str | None = None,
    *,
    id_col: str | None = None,
    id_mode: str | None = None,
    **settings: Any,
) -> DataFrame:
    """Adds (or replaces) ``output_col`` (default: ``input_col``) with the sanitized ``input_col``.

    Every other column and every row is kept; null stays null, empty stays empty. Settings start from
    the session's ``spark.dptext.*`` and are overridden by keyword settings (``mechanism="santext+"``,
    ``epsilon=3``, ``key_file="/path"``; see ``help(dptext.functions.dp_sanitize)`` for every setting and
    each mechanism's guarantee). Rows are seeded by ``id_col`` (recommended); without it, choose
    ``id_mode="content-hash"`` (equal texts get equal outputs) or ``id_mode="fresh"`` (not reproducible).
    The key is never a Python value: name it with ``key_file``, ``key_env`` or ``databricks_secret``.

    On Spark Connect this runs the ML stage on the server: its settings start from their defaults (not the
    session's ``spark.dptext.*``, except the session's key and ``databricksSecret``), so pass them as
    keywords, and ``output_col`` must be a new column.
    """
    conf = options.to_conf(settings)
    spark = df.sparkSession
    if session.is_connect(spark):
        return _sanitize_connect(df, input_col, output_col, id_col, id_mode, settings)
    jvm = spark._jvm
    builder = jvm.dev.dptext.spark.DpText.sanitizer(spark._jsparkSession)
    for key, value in conf.items():
        builder = builder.option(key, value)
    mode = (id_mode or "").strip().lower()
    if id_col is not None:
        if mode not in ("", "column"):
            raise ValueError(
                f"id_col={id_col!r} was given with id_mode={id_mode!r}; the id column needs id_mode column"
            )
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
    from dptext.ml import DpTextSanitizer

    params: dict[str, Any] = {options.setting(k).name: v for k, v in settings.items() if v is not None}
    out = output_col or input_col
    if out in df.columns:
        raise ValueError(
            f"On Spark Connect dptext.sanitize adds a new column; {out!r} exists: give another output_col "
            "(or use dp_sanitize in a select to replace it)"
        )
    stage = DpTextSanitizer(inputCol=input_col, outputCol=out, idCol=id_col, idMode=id_mode, **params)
    return stage.transform(df)
