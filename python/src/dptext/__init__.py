"""dptext: differentially private text sanitization for PySpark and Spark Connect.

Every word is replaced by a word drawn from a differentially private mechanism over a word-embedding
space. Where the session has dptext's JVM (a classic session with the jar, a Connect server with the
extension) the jar does the work; where it has not (Databricks serverless), the package's Python engine
(``dptext.engine``) does, with the same output for the mechanisms it supports.

    import dptext
    from dptext.functions import dp_sanitize

    spark = dptext.configure(SparkSession.builder, key_env="DPTEXT_KEY").getOrCreate()
    df.select("id", dp_sanitize("body", "id").alias("body_dp"))
    dptext.sanitize(df, "body", "body_dp", id_col="id", mechanism="santext+", epsilon=3)

Each mechanism's guarantee: ``dptext.mechanisms()`` or ``help(dptext.functions.dp_sanitize)``.
"""

from dptext import errors as _errors
from dptext._registry import Mechanism, default_mechanism, mechanisms
from dptext._version import JAR_VERSION, __version__
from dptext.accounting import ledger
from dptext.dataframe import sanitize
from dptext.errors import DpTextError
from dptext.functions import dp_sanitize
from dptext.ml import DpTextSanitizer
from dptext.session import configure, is_connect, jar_path, register, set_options
from dptext.streaming import stream


def register_function(spark, name: str = "dp_sanitize", **settings) -> str:
    """Registers the SQL function ``name`` computed by the Python engine, for sessions without dptext's JVM
    (Databricks serverless notebooks): ``SELECT dp_sanitize(body, id) FROM tickets``. The settings are the
    session's ``spark.dptext.*`` overridden by the keywords, fixed now; ``name(text, id)`` for id mode
    ``column``, ``name(text)`` for ``content-hash`` and ``fresh``. Returns the function's usage.
    """
    from dptext.engine import spark as python_engine
    from dptext.session import engine_conf

    mode = settings.pop("id_mode", None)
    return python_engine.register(spark, name, engine_conf(spark, settings, None, mode))


_errors.install()  # dptext's JVM errors become DpTextError (docs/python-and-connect.md; DPTEXT_JVM_ERRORS=1: unchanged)


def guarantee(mechanism: str) -> str:
    """The guarantee of ``mechanism`` as the JVM registry states it."""
    for m in mechanisms():
        if m.name == mechanism:
            return m.guarantee
    raise DpTextError.of("MECHANISM_UNKNOWN", mechanism=repr(mechanism), mechanisms=[m.name for m in mechanisms()])


__all__ = [
    "JAR_VERSION",
    "DpTextError",
    "DpTextSanitizer",
    "Mechanism",
    "__version__",
    "configure",
    "default_mechanism",
    "dp_sanitize",
    "guarantee",
    "is_connect",
    "jar_path",
    "ledger",
    "mechanisms",
    "register",
    "register_function",
    "sanitize",
    "set_options",
    "stream",
]
