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

from typing import TYPE_CHECKING

from dptext import errors as _errors
from dptext._version import JAR_VERSION, __version__
from dptext.errors import DpTextError

if TYPE_CHECKING:  # for type checkers and IDEs; at run time each name is imported on first use (below)
    from dptext._registry import Mechanism, default_mechanism, mechanisms
    from dptext.accounting import ledger
    from dptext.dataframe import sanitize
    from dptext.functions import dp_sanitize
    from dptext.ml import DpTextSanitizer
    from dptext.session import configure, is_connect, jar_path, register, set_options
    from dptext.streaming import stream

# The public names and the module each comes from, imported when first used (PEP 562): a Python worker running
# the engine imports ``dptext.engine``, hence this package, and should not pay for the DataFrame API, the ML
# stage and sessions it never uses (~0.35 s before a worker's first batch).
_LAZY = {
    "Mechanism": "dptext._registry",
    "default_mechanism": "dptext._registry",
    "mechanisms": "dptext._registry",
    "ledger": "dptext.accounting",
    "sanitize": "dptext.dataframe",
    "dp_sanitize": "dptext.functions",
    "DpTextSanitizer": "dptext.ml",
    "configure": "dptext.session",
    "is_connect": "dptext.session",
    "jar_path": "dptext.session",
    "register": "dptext.session",
    "set_options": "dptext.session",
    "stream": "dptext.streaming",
}


def __getattr__(name: str):
    import importlib
    import importlib.util

    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"dptext.{name}") is not None:
        value = importlib.import_module(f"dptext.{name}")  # ``dptext.functions.dp_sanitize`` after ``import dptext``
    else:  # an AttributeError, as Python's protocol wants (hasattr, getattr with a default)
        message = _errors.render("PYTHON_NAME_UNKNOWN", {"attribute": repr(name), "names": __all__})
        raise AttributeError(message, name=name)
    globals()[name] = value  # later uses read it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    from dptext._registry import mechanisms

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
