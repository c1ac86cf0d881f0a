"""The Python twin of the JVM ML stage ``dev.dptext.spark.ml.DpTextSanitizer``.

Its Params are the JVM stage's, created from the registry the build exported (names, docs and value
types), so a setting added in Java becomes a Param here without a change. Pipelines holding it save
through the JVM writer, so a pipeline saved from Python loads in Scala/Java and the other way round.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.util import JavaMLReadable, JavaMLReader, JavaMLWritable
from pyspark.ml.wrapper import JavaTransformer

from dptext import _registry, options
from dptext.errors import DpTextError

_CONVERTERS = {
    "Param": TypeConverters.toString,
    "IntParam": TypeConverters.toInt,
    "DoubleParam": TypeConverters.toFloat,
    "BooleanParam": TypeConverters.toBoolean,
    "DoubleArrayParam": TypeConverters.toListFloat,
}

_DEFAULT_PARSERS = {
    "Param": str,
    "IntParam": int,
    "DoubleParam": float,
    "BooleanParam": lambda t: t == "true",
    "DoubleArrayParam": lambda t: [float(x) for x in t.replace(";", ",").split(",")],
}


class _Reader(JavaMLReader):
    """Loads through the JVM class (pyspark would look for ``org.apache.spark``'s name for ours)."""

    @classmethod
    def _java_loader_class(cls, clazz: type) -> str:
        return _registry.ml_java_class()


def _remote_reader(cls: type) -> Any:
    """Spark Connect's reader, asking the server for the JVM class (pyspark derives the name from the Python
    module, ``dptext.ml``, so it is given a stand-in class whose module is the JVM package: ``dev.dptext.spark.ml``,
    which ``_alias_jvm_package`` makes importable and which holds this very class)."""
    from pyspark.ml.connect.readwrite import RemoteMLReader

    package, name = _registry.ml_java_class().rsplit(".", 1)
    stand_in = type(name, (cls,), {"__module__": package})

    class _RemoteReader(RemoteMLReader):
        def load(self, path: str) -> Any:
            from pyspark.sql.connect.session import SparkSession

            session = SparkSession.getActiveSession()
            if session is None:
                raise DpTextError.of(
                    "SESSION_REQUIRED", what="DpTextSanitizer.load on Spark Connect", session="Connect session"
                )
            return RemoteMLReader.loadInstance(stand_in, path, session)

    return _RemoteReader(cls)


class DpTextSanitizer(JavaTransformer, JavaMLReadable, JavaMLWritable):
    """Adds ``outputCol``: the text of ``inputCol`` with every word replaced by a differentially private
    mechanism over word embeddings. Every other column and every row is kept.

    Params are the JVM stage's (``inputCol``, ``outputCol``, ``idCol`` and one per setting, camelCase as
    in Scala); set them as keyword arguments or with ``setParams``/``set<Name>``. The key is never a
    Param: it is resolved when the stage transforms (``spark.dptext.secretKey`` set at start, the
    ``databricksSecret``, ``keyFile`` or ``keyEnv`` named), so a saved pipeline never holds it.
    """

    def __init__(self, engine: str | None = None, **params: Any) -> None:
        super().__init__()
        self._engine = engine
        try:
            self._java_obj = self._new_java_obj(_registry.ml_java_class(), self.uid)
        except Exception:  # no dptext JVM in this session: the Python engine transforms (see transform)
            self._java_obj = None
        for p in _registry.ml_params():
            default = _jvm_default(p.name)
            if default is not None:
                self._setDefault(**{p.name: _DEFAULT_PARSERS[p.type](default)})
        self.setParams(**params)

    def setParams(self, **params: Any) -> DpTextSanitizer:
        """Sets Params by their names (``inputCol="body", epsilon=3.0``); unknown names are an error."""
        for name in params:
            if not self.hasParam(name):
                _refuse_key(name)
                known = [p.name for p in _registry.ml_params()]
                raise DpTextError.of("ML_PARAM_UNKNOWN", param=name, params=", ".join(known))
        return self._set(**{k: v for k, v in params.items() if v is not None})

    def _set(self, **kwargs: Any) -> DpTextSanitizer:
        """Sets Params; a setting's value is checked now, with the JVM's message (``DpTextError``)."""
        for name, value in kwargs.items():
            s = _SETTINGS.get(name)
            if s is not None and value is not None:
                options.check(s, options.as_text(value))
        return super()._set(**kwargs)

    def guarantee(self) -> str:
        """The guarantee of the configured mechanism and values, as the JVM states it (without a dptext JVM:
        the registry's statement of the mechanism, in symbols)."""
        if self._java_obj is None or (isinstance(self._java_obj, str) and not _jvm_here()):
            name = options._parse(_SETTINGS["mechanism"], options.as_text(self.getOrDefault("mechanism")))
            return next(m.guarantee for m in _registry.mechanisms() if m.name == name)
        self._transfer_params_to_java()
        return self._call_java("guarantee")

    def transform(self, dataset: Any, params: Any = None) -> Any:
        """As every Transformer; on a session without dptext's JVM (or with ``engine="python"``) the Python
        engine computes ``outputCol``, with the same output for the mechanisms it supports."""
        from dptext.engine import choice

        if choice.choose(dataset.sparkSession, getattr(self, "_engine", None)) == "python":
            stage = self.copy(params) if params else self
            return stage._transform_python(dataset)
        return super().transform(dataset, params)

    def _transform_python(self, dataset: Any) -> Any:
        from pyspark.sql import functions as F

        from dptext.dataframe import _require_columns
        from dptext.engine import spark as engine
        from dptext.session import snapshot

        conf = {
            name: options.as_text(self.getOrDefault(name))
            for name in _SETTINGS
            if self.hasParam(name) and self.isDefined(name)
        }
        session_conf = snapshot(dataset.sparkSession)
        for source in ("databricksSecret", "keyFile", "keyEnv"):  # the key's sources: the session's unless set here
            if not self.isSet(source) and source in session_conf:
                conf[source] = session_conf[source]
        input_col = self.getOrDefault("inputCol") if self.isDefined("inputCol") else None
        if input_col is None:
            raise DpTextError.of(
                "ML_PARAM_NOT_SET", param="inputCol", setter="setInputCol", what="the string column to sanitize"
            )
        if not self.isDefined("outputCol"):
            raise DpTextError.of(
                "ML_PARAM_NOT_SET",
                param="outputCol",
                setter="setOutputCol",
                what="the new column for the sanitized text",
            )
        output_col = self.getOrDefault("outputCol")
        if output_col in dataset.columns:  # the JVM stage's words (transformSchema)
            raise DpTextError.of("ML_OUTPUT_COLUMN_EXISTS", column=output_col)
        id_col = self.getOrDefault("idCol") if self.isDefined("idCol") else None
        _require_columns(dataset, input_col, id_col)
        mode = conf.get("idMode", "column")
        if mode == "column" and id_col is None:
            raise DpTextError.of(  # the JVM stage's error (DpTextSanitizer.transformSchema)
                "ID_COLUMN_NOT_GIVEN",
                caller="DpTextSanitizer",
                idColumn="setIdCol",
                contentHash='setIdMode("content-hash")',
                fresh='setIdMode("fresh")',
            )
        if mode != "column" and id_col is not None:
            raise DpTextError.of("ML_ID_COL_WITH_ID_MODE", idCol=id_col, idMode=mode)
        engine.check_input(dataset, input_col, id_col, mode)
        column = engine.column(F.col(input_col), None if id_col is None else F.col(id_col), conf)
        return dataset.withColumn(output_col, column)

    @classmethod
    def read(cls) -> JavaMLReader:
        from pyspark.sql.utils import is_remote

        return _remote_reader(cls) if is_remote() else _Reader(cls)


_SETTINGS = {s.name: s for s in _registry.settings() if not s.secret}


def _jvm_here() -> bool:
    from pyspark.sql import SparkSession

    from dptext.engine import choice

    spark = SparkSession.getActiveSession()
    return spark is not None and choice.jvm_available(spark)


def _refuse_key(name: str) -> None:
    for s in _registry.settings():
        if s.secret and name in (s.name, s.python_name, s.conf_key):
            options.setting(name)  # raises the explanation


def _jvm_default(name: str) -> str | None:
    for s in _registry.settings():
        if s.name == name:
            return s.default
    return None


def _param_methods(name: str) -> tuple[Any, Any]:
    def setter(self: DpTextSanitizer, value: Any) -> DpTextSanitizer:
        return self._set(**{name: value})  # checked by _set

    def getter(self: DpTextSanitizer) -> Any:
        return self.getOrDefault(name)

    setter.__doc__ = f"Sets the Param ``{name}``."
    getter.__doc__ = f"The value of the Param ``{name}`` (its default when unset)."
    return setter, getter


def _declare_params() -> None:
    """One class-level Param, setter and getter per JVM Param, as pyspark's own stages declare them."""
    for p in _registry.ml_params():
        param = Param(Params._dummy(), p.name, p.doc, typeConverter=_CONVERTERS[p.type])
        setattr(DpTextSanitizer, p.name, param)
        setter, getter = _param_methods(p.name)
        capitalised = p.name[0].upper() + p.name[1:]
        setattr(DpTextSanitizer, "set" + capitalised, setter)
        setattr(DpTextSanitizer, "get" + capitalised, getter)


def _alias_jvm_package() -> None:
    """Makes the JVM class name importable, because pyspark maps a loaded Java stage to a Python class by
    that name (``PipelineModel.load`` calls ``__import__("dev.dptext.spark.ml")``)."""
    names = _registry.ml_java_class().split(".")[:-1]
    for i in range(1, len(names)):
        sys.modules.setdefault(".".join(names[:i]), types.ModuleType(".".join(names[:i])))
    sys.modules.setdefault(".".join(names), sys.modules[__name__])


_declare_params()
_alias_jvm_package()

DpTextSanitizer.__doc__ = (DpTextSanitizer.__doc__ or "") + (
    "\n    Mechanisms and their guarantees (from the JVM registry):\n\n" + _registry.mechanisms_doc("    ") + "\n"
)
