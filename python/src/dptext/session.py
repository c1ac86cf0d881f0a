"""Putting dptext into a SparkSession: the jar, the SQL extension, and session settings.

The shape follows delta-spark's ``configure_spark_with_delta_pip`` and Sedona's config helpers: you
hand us your ``SparkSession.builder`` and get it back configured.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dptext import options
from dptext.errors import DpTextError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

EXTENSION = "dev.dptext.spark.DpTextExtensions"
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
JAR_ENV = "DPTEXT_JAR"
WHEEL_COMMAND = "./mvnw -B -ntp -DskipTests -Ppython-wheel package"


def jar_path() -> str:
    """The dptext jar: ``$DPTEXT_JAR`` when set, else the jar bundled in this package by the build."""
    override = os.environ.get(JAR_ENV)
    if override:
        if not Path(override).is_file():
            raise DpTextError.of("JAR_NOT_A_FILE", variable=JAR_ENV, path=override)
        return override
    jars = sorted(p for p in resources.files("dptext").joinpath("jars").iterdir() if p.name.endswith(".jar"))
    if len(jars) != 1:
        raise DpTextError.of("JAR_NOT_BUNDLED", variable=JAR_ENV)
    return str(jars[0])


def delta_jars() -> list[str]:
    """The Delta Lake jars bundled in this package by the build (delta-spark and delta-storage of the pom's
    Delta version), or ``[]``."""
    folder = resources.files("dptext").joinpath("jars", "delta")
    if not folder.is_dir():
        return []
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".jar"))


def job_jars() -> list[str]:
    """The job's jar and its command-line library, bundled by the build (``[]`` when absent)."""
    folder = resources.files("dptext").joinpath("jars", "job")
    if not folder.is_dir():
        return []
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".jar"))


def _has_delta(current: dict[str, str]) -> bool:
    packages = current.get("spark.jars.packages", "")
    jars = current.get("spark.jars", "")
    return "io.delta:" in packages or any(
        Path(j.strip()).name.startswith("delta-spark") for j in jars.split(",") if j.strip()
    )


def _append(existing: str | None, value: str) -> str:
    parts = [p.strip() for p in (existing or "").split(",") if p.strip()]
    return ",".join(parts if value in parts else [*parts, value])


def configure(
    builder: SparkSession.Builder,
    *,
    jar: str | None = None,
    delta: bool = False,
    **settings: Any,
) -> SparkSession.Builder:
    """Configures ``builder`` for dptext and returns it.

    Adds the dptext jar (and the job's, for ``dptext.stream``) to ``spark.jars`` and
    ``dev.dptext.spark.DpTextExtensions`` to ``spark.sql.extensions`` (keeping what the builder already
    has), so ``dp_sanitize`` exists in every session. ``delta=True`` also adds Delta Lake's extension and
    catalog, and Delta's jars (delta-spark and delta-storage of the version this dptext was built with,
    bundled in the wheel: nothing is downloaded) unless the builder brings Delta already
    (``spark.jars.packages`` with ``io.delta:``, or a delta-spark jar in ``spark.jars``, as
    ``delta.pip_utils.configure_spark_with_delta_pip`` does). Keyword settings become ``spark.dptext.*``
    start-up conf (``mechanism="santext+"``, ``epsilon=3``, ``key_file=...``), checked first; the key itself
    is refused: name it (``key_file``, ``key_env``, ``databricks_secret``).

    >>> spark = dptext.configure(SparkSession.builder.master("local[2]"), key_env="DPTEXT_KEY").getOrCreate()
    """
    current: dict[str, str] = getattr(builder, "_options", {})
    conf = options.to_conf(settings)  # checked before the builder is touched
    jars = _append(current.get("spark.jars"), jar or jar_path())
    for j in job_jars():  # dptext.stream runs the job in this JVM
        jars = _append(jars, j)
    if delta and not _has_delta(current):
        bundled = delta_jars()
        if not bundled:
            raise DpTextError.of("DELTA_JARS_NOT_BUNDLED")
        for j in bundled:
            jars = _append(jars, j)
    builder = builder.config("spark.jars", jars)
    extensions = _append(current.get("spark.sql.extensions"), EXTENSION)
    if delta:
        extensions = _append(extensions, DELTA_EXTENSION)
        builder = builder.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG)
    builder = builder.config("spark.sql.extensions", extensions)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder


def set_options(spark: SparkSession, **settings: Any) -> None:
    """Sets ``spark.dptext.*`` settings on a running session (classic or Spark Connect).

    ``dp_sanitize`` reads them when a query is analysed. ``None`` unsets a setting. Every value is checked
    first, with the JVM's message (``DpTextError``), and nothing is set when one fails. The key itself is
    refused (Spark would write a key set on a running session into the event log, unredacted).
    """
    checked = {}
    for name, value in settings.items():
        s = options.setting(name)
        checked[s.conf_key] = None if value is None else options.checked_text(s, value)
    for key, text in checked.items():
        if text is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, text)


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect session (no JVM in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def register(spark: SparkSession) -> None:
    """Registers ``dp_sanitize`` in a running classic session whose jar was attached after start-up.

    On Databricks, a jar installed on a running cluster is loaded after Spark started, so
    ``spark.sql.extensions`` cannot apply; this is the Python form of ``DpText.register(spark)``. A Spark
    Connect session has no JVM here: start the Connect server with the extension instead.
    """
    if is_connect(spark):
        raise DpTextError.of("REGISTER_NEEDS_JVM", extension=EXTENSION)
    spark._jvm.dev.dptext.spark.DpText.register(spark._jsparkSession)


def snapshot(spark: Any) -> dict[str, str]:
    """The session's dptext settings now, by name: each asked for by its key, never the key itself (a
    Connect server answers a request for every conf in clear, its start-up secretKey included)."""
    named = [s for s in options._registry.settings() if not s.secret]
    client = spark.client if is_connect(spark) else None
    if client is not None and hasattr(client, "get_config_with_defaults"):
        values = client.get_config_with_defaults(*[(s.conf_key, None) for s in named])  # one round trip
    else:
        values = tuple(spark.conf.get(s.conf_key, None) for s in named)
    return {s.name: v for s, v in zip(named, values, strict=True) if v is not None}


def engine_conf(spark: Any, settings: dict[str, Any], id_col: str | None, id_mode: str | None) -> dict[str, str]:
    """The settings by JVM name, as the Connect path's options map and the Python engine take them: the
    session's ``spark.dptext.*`` now, overridden by ``settings`` (``None``: the default) and the id mode."""
    mode = (id_mode or "").strip().lower()
    if id_col is not None and mode not in ("", "column"):
        raise DpTextError.of("ID_COL_WITH_ID_MODE", idCol=repr(id_col), idMode=repr(id_mode))
    conf = snapshot(spark)
    for key, value in settings.items():
        s = options.setting(key)
        if value is None:  # the setting's default, whatever the session says
            conf.pop(s.name, None)
        else:
            conf[s.name] = options.checked_text(s, value)
    if id_col is not None:
        conf["idMode"] = "column"
    elif mode:
        conf["idMode"] = options.checked_text(options.setting("idMode"), id_mode)
    return conf
