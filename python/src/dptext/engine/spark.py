"""The Python engine in Spark: a pandas UDF that runs ``PythonSanitizer`` on each Arrow batch.

What travels with the UDF (pickled into the plan) is the resolved settings and the key's fingerprint,
never the key: each executor reads the key from the file or variable the driver named and refuses to run
when its fingerprint differs. The model travels by path (the wheel's default model, or a file every node
can read: a Unity Catalog volume on Databricks).

The id reaches Python as the JVM would seed it: the UDF gets ``typeof(id)`` and ``CAST(id AS STRING)``
(computed by Spark, so a double id is written by the server's own ``Double.toString``, as the JVM engine
writes it) and the id itself for binary ids, whose raw bytes are the seed.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pandas as pd  # at module level: pandas_udf reads the functions' type hints ("pd.Series") from here

from dptext.engine import ids
from dptext.engine import model as model_files
from dptext.engine.sanitizer import EngineSettings, cached, driver_key
from dptext.errors import DpTextError

if TYPE_CHECKING:
    from pyspark.sql import Column

# Types whose CAST(… AS STRING) is the JVM engine's id.toString(); decimals are normalised below, binary
# ids are taken raw.
_CAST_TYPES = ("bigint", "int", "smallint", "tinyint", "string", "double", "float", "boolean", "date")


def id_seeds(id_type: Any, id_text: Any, id_raw: Any) -> list[bytes | None]:
    """The seed bytes of a batch's ids, as ``Sanitizer.idBytes`` makes them (docs/keys-and-randomness.md)."""
    texts = list(id_text)
    kind = next((str(t) for t in id_type if t is not None), "string").lower()
    if kind == "binary":
        return [None if v is None else bytes(v) for v in id_raw]
    if kind.startswith("decimal"):  # CAST keeps the column's scale (5.00); the JVM strips the zeros (5)
        return [None if v is None else ids.java_decimal_string(Decimal(v)).encode("ascii") for v in texts]
    if kind in _CAST_TYPES or kind.startswith(("varchar", "char")):
        return [None if v is None else str(v).encode("utf-8") for v in texts]
    raise DpTextError(
        f"The Python engine does not seed rows by an id of type {kind}: use an integral, string, decimal or binary "
        "id column (a timestamp's text form differs between Spark's CAST and the JVM engine)"
    )


def _make_udf(settings: EngineSettings, fingerprint: str | None, with_id: bool):
    from pyspark.sql.functions import pandas_udf

    if with_id:

        def dp_sanitize_python(
            texts: pd.Series, id_type: pd.Series, id_text: pd.Series, id_raw: pd.Series
        ) -> pd.Series:
            sanitizer = cached(settings, fingerprint)
            return pd.Series(sanitizer.sanitize(_texts(texts), id_seeds(id_type, id_text, id_raw)), dtype=object)

    else:

        def dp_sanitize_python(texts: pd.Series) -> pd.Series:  # type: ignore[misc]
            sanitizer = cached(settings, fingerprint)
            return pd.Series(sanitizer.sanitize(_texts(texts), None), dtype=object)

    return pandas_udf(dp_sanitize_python, "string")  # type: ignore[call-overload]


def _texts(series: Any) -> list[str | None]:
    return [v if isinstance(v, str) else None for v in series.tolist()]


def prepare(conf: dict[str, str]) -> tuple[EngineSettings, str | None]:
    """Resolves and checks the settings, reads the key on the driver (for its fingerprint only) and opens
    the model's header, so that a wrong setting, key or model fails here, with its message, not in a task."""
    settings = EngineSettings.resolve(conf)
    _key, fingerprint = driver_key(settings)
    m = model_files.load(settings.model)
    if settings.mechanism == "santext+":
        from dptext.engine.mechanisms import sensitive_start

        m.table(sensitive_start(m.size, float(dict(settings.parameters)["w"])), "santext+")
    else:
        m.table(0, settings.mechanism)
    return settings, fingerprint


def column(text: Column, id_col: Column | None, conf: dict[str, str]) -> Column:
    """The sanitized ``text`` as a Column computed by the Python engine."""
    from pyspark.sql import functions as F

    settings, fingerprint = prepare(conf)
    if settings.id_mode == "column" and id_col is None:
        raise DpTextError(
            "idMode column needs an id: give id_col (recommended), or choose id_mode='content-hash' (equal texts get "
            "equal outputs) or id_mode='fresh' (not reproducible)"
        )
    udf = _make_udf(settings, fingerprint, id_col is not None and settings.id_mode == "column")
    if id_col is None or settings.id_mode != "column":
        return udf(text)
    kind = F.typeof(id_col)
    # A binary id is seeded by its raw bytes (the last argument); its CAST to text need not be valid UTF-8.
    as_text = F.when(kind == "binary", F.lit(None).cast("string")).otherwise(id_col.cast("string"))
    return udf(text, kind, as_text, id_col)


# Python values of a SQL UDF's id argument → the Spark type whose seed bytes ids.id_bytes writes (bool before int).
_SQL_KINDS = (
    (bool, "boolean"),
    (int, "bigint"),
    (str, "string"),
    ((bytes, bytearray, memoryview), "binary"),
    (Decimal, "decimal"),
    (datetime.date, "date"),
)


def sql_id_seeds(values: Any) -> list[bytes | None]:
    """Seed bytes of ids that reached a SQL-registered UDF as pandas values (no type name travels with them):
    integral, string, decimal and binary ids seed as on the JVM; a floating-point series is refused, since an
    integral column with nulls arrives as one too and the two would seed differently."""
    import numpy as np

    dtype = getattr(values, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        raise DpTextError(
            "The id reached dptext's SQL function as a floating-point number (a DOUBLE or FLOAT id, or an integral "
            "id column with nulls): pass CAST(id AS STRING); for an integral column it seeds exactly as the "
            "column itself does"
        )
    out: list[bytes | None] = []
    for v in values.tolist():
        if v is None:
            out.append(None)
            continue
        kind = next((k for t, k in _SQL_KINDS if isinstance(v, t)), None)
        if kind is None:
            raise DpTextError(
                f"The Python engine does not seed rows by an id of type {type(v).__name__}: use an integral, string, "
                "decimal or binary id (CAST(id AS STRING) works for any id whose text form is stable)"
            )
        out.append(ids.id_bytes([v], kind)[0])
    return out


def register(spark: Any, name: str, conf: dict[str, str]) -> str:
    """Registers the SQL function ``name`` in ``spark``, computed by the Python engine with these settings:
    ``name(text, id)`` for id mode column, ``name(text)`` for content-hash and fresh. Returns its usage."""
    from pyspark.sql.functions import pandas_udf

    settings, fingerprint = prepare(conf)
    if settings.id_mode == "column":

        def sanitize_with_id(texts: pd.Series, ids: pd.Series) -> pd.Series:
            sanitizer = cached(settings, fingerprint)
            return pd.Series(sanitizer.sanitize(_texts(texts), sql_id_seeds(ids)), dtype=object)

        spark.udf.register(name, pandas_udf(sanitize_with_id, "string"))  # type: ignore[call-overload]
        return f"{name}(text, id)"

    def sanitize_by_content(texts: pd.Series) -> pd.Series:
        sanitizer = cached(settings, fingerprint)
        return pd.Series(sanitizer.sanitize(_texts(texts), None), dtype=object)

    spark.udf.register(name, pandas_udf(sanitize_by_content, "string"))  # type: ignore[call-overload]
    return f"{name}(text)"
