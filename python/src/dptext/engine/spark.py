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
from dptext.engine.sanitizer import EngineSettings, cached, driver_key, no_id_column
from dptext.errors import DpTextError

if TYPE_CHECKING:
    from pyspark.sql import Column

# Types whose CAST(… AS STRING) is the JVM engine's id.toString(); decimals are normalised below, binary
# ids are taken raw.
_CAST_TYPES = ("bigint", "int", "smallint", "tinyint", "string", "double", "float", "boolean", "date")


def is_null(v: Any) -> bool:
    """Whether a value pandas gives a worker is SQL's null: None, or NaN, NaT or pd.NA, which pandas puts where
    Arrow has a null (pandas 3 reads a string column's nulls as NaN; an integral column with nulls is float64).
    A DOUBLE id's own NaN never reaches a worker as one: its id text is Spark's CAST, the string "NaN"."""
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v)


def id_seeds(id_type: Any, id_text: Any, id_raw: Any) -> list[bytes | None]:
    """The seed bytes of a batch's ids, as ``Sanitizer.idBytes`` makes them (docs/keys-and-randomness.md);
    ``None`` for a null id (refused by the sanitizer when its row has text, as on the JVM)."""
    texts = [None if is_null(v) else v for v in id_text.tolist()]
    kind = next((str(t) for t in id_type.tolist() if not is_null(t)), "string").lower()
    if kind == "binary":
        return [None if is_null(v) else bytes(v) for v in id_raw.tolist()]
    if kind.startswith("decimal"):  # CAST keeps the column's scale (5.00); the JVM strips the zeros (5)
        return [None if v is None else ids.java_decimal_string(Decimal(v)).encode("ascii") for v in texts]
    if kind in _CAST_TYPES or kind.startswith(("varchar", "char", "string")):  # "string collate UTF8_LCASE" too
        return [None if v is None else str(v).encode("utf-8") for v in texts]
    raise DpTextError.of("ID_TYPE_NOT_SEEDABLE", id="The id", type=kind)


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
    out: list[str | None] = []
    for v in series.tolist():
        if isinstance(v, str):
            out.append(v)
        elif is_null(v):
            out.append(None)
        else:  # never a silent null for a value of another type (dptext.sanitize checks the column's type first)
            raise DpTextError.of("TEXT_NOT_A_STRING", type=type(v).__name__)
    return out


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


def check_input(df: Any, text_col: str, id_col: str | None, id_mode: str) -> None:
    """The JVM's checks of the columns (``DpText.Builder.validate``), with its messages, when the call is made:
    the text column must be a string column (never an all-null output), the id column (id mode column) an
    atomic type; and what the Python engine alone refuses, an id type it does not seed by (a timestamp, an
    interval), here in one line rather than in a task. A missing column: ``dataframe._require_columns``."""
    from pyspark.sql.types import AtomicType, StringType

    text_type = _column_type(df, text_col)
    if text_type is not None and text_type != StringType():  # a collated string too, as the JVM's equals
        raise DpTextError.of("TEXT_COLUMN_NOT_STRING", column=text_col, type=text_type.simpleString())
    if id_mode != "column" or id_col is None:
        return
    id_type = _column_type(df, id_col)
    if id_type is None:
        return
    if not isinstance(id_type, AtomicType):  # arrays, maps, structs, void: the JVM refuses these, in these words
        raise DpTextError.of("ID_COLUMN_TYPE_UNSUPPORTED", column=id_col, type=id_type.simpleString())
    try:
        ids.id_bytes([], id_type)
    except DpTextError as e:  # ID_TYPE_NOT_SEEDABLE, here naming the column
        raise DpTextError.of(e.name, id=f"The id column '{id_col}'", type=id_type.simpleString()) from None


def _column_type(df: Any, name: str) -> Any:
    """The column's type: from the schema for a top-level column, else as Spark resolves the name (a nested
    field); ``None`` for a top-level name the schema lacks (``_require_columns`` refuses it)."""
    fields = {f.name: f.dataType for f in df.schema.fields}
    if name in fields:
        return fields[name]
    if "." in name or "`" in name:
        return df.select(name).schema.fields[0].dataType
    return None


def column(text: Column, id_col: Column | None, conf: dict[str, str]) -> Column:
    """The sanitized ``text`` as a Column computed by the Python engine."""
    from pyspark.sql import functions as F

    settings, fingerprint = prepare(conf)
    if settings.id_mode == "column" and id_col is None:
        raise no_id_column()
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
    dtype = getattr(values, "dtype", None)
    if dtype is not None and pd.api.types.is_float_dtype(dtype):  # pandas 3's string dtype is no NumPy dtype
        raise DpTextError.of("SQL_ID_FLOATING")
    out: list[bytes | None] = []
    for v in values.tolist():
        if is_null(v):  # NaN: a string column's null under pandas 3
            out.append(None)
            continue
        if isinstance(v, datetime.datetime):  # a date subclass: a timestamp id is refused, not seeded as a date
            raise DpTextError.of("ID_TYPE_NOT_SEEDABLE", id="The id", type="timestamp")
        kind = next((k for t, k in _SQL_KINDS if isinstance(v, t)), None)
        if kind is None:
            raise DpTextError.of("SQL_ID_TYPE_UNSUPPORTED", type=type(v).__name__)
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
