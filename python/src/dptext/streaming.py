"""The exactly-once stream from Python: ``dptext.stream(spark, input=..., output=..., checkpoint=...)``.

It is the job's ``sanitize --stream`` (docs/streaming.md), run in this session's JVM: the same
checks, the same micro-batch commits into Delta (one commit per micro-batch, keyed by the query id and
batch id), the same exit codes. The job's classes come with the wheel (``jars/job``), and
``dptext.configure`` puts them on the session's classpath.

On Spark Connect there is no JVM in this process: the call is refused with the command that runs the
same stream as a Connect client of the same server.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from dptext import options, session
from dptext.errors import DpTextError, convert, name_of

JOB_CLASS = "dev.dptext.job.DpTextJob"

# The job's exit codes (dev.dptext.job.base.ExitCode).
EXIT_CODES = {
    1: "unexpected failure: retrying may help",
    2: "usage or configuration error: fix the configuration; retrying will not help",
    3: "input error: fix the input; retrying will not help",
    4: "integrity failure, rows out differ from rows in: do not use the output",
    5: "conflict with a concurrent writer, nothing of this run committed: retry",
    6: "privacy budget exceeded, nothing written: raise the budget or release other rows",
}


def arguments(
    *,
    input: str,  # noqa: A002 (the job's name)
    output: str,
    checkpoint: str,
    text_column: str | None = None,
    output_column: str | None = None,
    id_column: str | None = None,
    input_format: str | None = None,
    input_schema: str | None = None,
    input_options: dict[str, str] | None = None,
    trigger: str | None = None,
    max_files_per_trigger: int | None = None,
    max_bytes_per_trigger: str | None = None,
    mode: str | None = None,
    on_corrupt: str | None = None,
    rejects: str | None = None,
    ledger: str | None = None,
    epsilon_budget: float | None = None,
    **settings: Any,
) -> list[str]:
    """The job's command line for these arguments (settings by their keyword names, checked)."""
    args = ["sanitize", "--stream", "--checkpoint", checkpoint, "--input", input, "--output", output]
    named = {
        "--text-column": text_column,
        "--output-column": output_column,
        "--id-column": id_column,
        "--input-format": input_format,
        "--input-schema": input_schema,
        "--trigger": trigger,
        "--max-files-per-trigger": max_files_per_trigger,
        "--max-bytes-per-trigger": max_bytes_per_trigger,
        "--mode": mode,
        "--on-corrupt": on_corrupt,
        "--rejects": rejects,
        "--ledger": ledger,
        "--epsilon-budget": epsilon_budget,
    }
    for flag, value in named.items():
        if value is not None:
            args += [flag, str(value)]
    for k, v in (input_options or {}).items():
        args += ["--input-option", f"{k}={v}"]
    for name, value in settings.items():
        if value is not None:
            s = options.setting(name)
            args += [_cli_name(s.name), options.checked_text(s, value)]
    return args


_JOB_OPTIONS = {
    "input",
    "output",
    "checkpoint",
    "text_column",
    "output_column",
    "id_column",
    "input_format",
    "input_schema",
    "input_options",
    "trigger",
    "max_files_per_trigger",
    "max_bytes_per_trigger",
    "mode",
    "on_corrupt",
    "rejects",
    "ledger",
    "epsilon_budget",
}


def _cli_name(name: str) -> str:
    return "--" + "".join("-" + c.lower() if c.isupper() else c for c in name)


def stream(spark: Any, engine: str | None = None, **kwargs: Any) -> None:
    """Runs ``sanitize --stream`` in ``spark``'s JVM and returns when it ends (0), else raises ``DpTextError``.

    Keywords are the job's options in snake case: ``input``, ``output`` (a Delta table), ``checkpoint``,
    ``text_column`` (default ``text``; ``value`` for text input), ``output_column`` (default: replace the text
    column), ``id_column``, ``input_format``, ``input_schema`` (CSV and JSON), ``input_options``
    (a dict), ``trigger`` (``"available-now"``, the default, sanitizes what has arrived and returns; an
    interval such as ``"5min"`` runs until the query is stopped or fails, so this call blocks until then),
    ``max_files_per_trigger``, ``max_bytes_per_trigger``, ``mode``, ``on_corrupt``, ``rejects``, ``ledger``
    and ``epsilon_budget`` (the privacy ledger, docs/ledger.md: each micro-batch recorded before it is
    written, refused past the budget), and every
    setting (``mechanism="santext+"``, ``epsilon=3``, ``key_file=...``). Settings start from the session's
    ``spark.dptext.*`` (the key's source included: ``configure(key_file=...)`` applies here as it does to
    ``sanitize``), overridden by the keywords. A refused configuration raises ``DpTextError`` with the job's
    message before anything is read. Exactly once: a run killed at
    any point and started again with the same arguments writes each micro-batch once (docs/streaming.md).

    Where the session has no dptext JVM (Databricks serverless), or with ``engine="python"``, the stream is a
    Structured Streaming query of this session: the Python engine sanitizes each micro-batch and Delta's
    streaming sink commits it exactly once under ``checkpoint`` (an ``available-now`` trigger, as serverless
    allows). The job's ledger, budget, rejects and corrupt-record handling are the JVM's and are refused there.
    """
    from dptext.engine import choice

    if choice.choose(spark, engine) == "python":
        return _stream_python(spark, kwargs)

    settings = {name: v for name, v in session.snapshot(spark).items()}
    for name in list(kwargs):
        if name not in _JOB_OPTIONS and kwargs[name] is not None:
            settings.pop(options.setting(name).name, None)  # the keyword wins over the session
    args = arguments(**{**settings, **kwargs})
    if session.is_connect(spark):
        raise DpTextError.of(
            "STREAM_NEEDS_JVM",
            command=shlex.join(
                [
                    "spark-submit",
                    "--remote",
                    _remote(spark),
                    "--conf",
                    "spark.api.mode=connect",
                    "--class",
                    JOB_CLASS,
                    "spark-job/target/dptext-spark-job-<version>-shaded.jar",
                    *args,
                ]
            ),
        )
    jvm = require_job(spark)
    array = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(args))
    for i, a in enumerate(args):
        array[i] = a
    # The job writes its messages to the JVM's System.err: kept for the exception (and shown) when the
    # stream ends by itself (available-now); an interval trigger runs until stopped and writes as it goes.
    capture = kwargs.get("trigger") in (None, "available-now")
    system = jvm.java.lang.System
    original = system.err
    buffer = jvm.java.io.ByteArrayOutputStream()
    if capture:
        system.setErr(jvm.java.io.PrintStream(buffer, True, "UTF-8"))
    try:
        code = jvm.dev.dptext.job.DpTextJob.execute(spark._jsparkSession, array)
    finally:
        if capture:
            system.setErr(original)
    said = buffer.toString("UTF-8").strip()
    if said:
        print(said, file=sys.stderr)
    if code != 0:
        raise _job_error(said, code)


def _job_error(said: str, code: int) -> DpTextError:
    """The job's refusal as it wrote it (its catalogued line: the same name as on the command line, whose exit
    category docs/errors.md lists), or STREAM_JOB_FAILED with the exit code and the job's last line that is not a
    stack frame."""
    lines = [line.strip().removeprefix("dptext: ") for line in said.splitlines() if line.strip()]
    named = [line for line in lines if name_of(line) is not None]
    if named:
        return DpTextError(named[-1])
    said_lines = [line for line in lines if not line.startswith(("at ", "..."))]
    last = said_lines[-1] if said_lines else "its message is on the driver's standard error"
    return DpTextError.of("STREAM_JOB_FAILED", code=code, category=EXIT_CODES.get(code, "failure"), reason=last)


def require_job(spark: Any) -> Any:
    """``spark``'s JVM, once the job's classes are found on its classpath; else ``DpTextError`` with the fix."""
    jvm = spark._jvm
    try:
        jvm.java.lang.Class.forName(JOB_CLASS, True, jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception as e:
        note = "" if session.job_jars() else f" (this package has none: install the wheel of '{session.WHEEL_COMMAND}')"
        raise DpTextError.of("JOB_NOT_ON_CLASSPATH", jobClass=JOB_CLASS, note=note) from e
    return jvm


def _remote(spark: Any) -> str:
    try:
        return f"sc://{spark.client._builder.endpoint}"
    except Exception:
        return "sc://<host>:15002"


_PYTHON_REFUSED = ("ledger", "epsilon_budget", "rejects", "on_corrupt", "mode")
_FORMATS = {".json": "json", ".jsonl": "json", ".csv": "csv", ".parquet": "parquet", ".txt": "text"}


def _stream_python(spark: Any, kwargs: dict[str, Any]) -> None:
    """``sanitize --stream`` as a query of this session, sanitized by the Python engine, into Delta."""
    from dptext.dataframe import sanitize

    refused = [k for k in _PYTHON_REFUSED if kwargs.get(k) is not None]
    if refused:
        raise DpTextError.of("STREAM_PYTHON_ENGINE_REFUSES", options=", ".join(refused))
    job = {k: kwargs.pop(k) for k in list(kwargs) if k in _JOB_OPTIONS}
    for needed in ("input", "output", "checkpoint"):
        if not job.get(needed):
            raise DpTextError.of("STREAM_ARGUMENT_MISSING", argument=needed)
    source = job["input"]
    fmt = job.get("input_format") or next((f for ext, f in _FORMATS.items() if source.rstrip("/").endswith(ext)), None)
    if fmt is None:
        raise DpTextError.of("STREAM_FORMAT_UNKNOWN", source=repr(source))
    reader = spark.readStream.format(fmt)
    for k, v in (job.get("input_options") or {}).items():
        reader = reader.option(k, v)
    if job.get("max_files_per_trigger") is not None:
        reader = reader.option("maxFilesPerTrigger", str(job["max_files_per_trigger"]))
    if job.get("max_bytes_per_trigger") is not None:
        reader = reader.option("maxBytesPerTrigger", str(job["max_bytes_per_trigger"]))
    if fmt in ("csv", "json"):
        schema = (
            job.get("input_schema")
            or spark.read.format(fmt).options(**(job.get("input_options") or {})).load(source).schema
        )
        reader = reader.schema(schema)
    df = reader.load(source)
    text_column = job.get("text_column") or ("value" if fmt == "text" else "text")
    sanitized = sanitize(
        df, text_column, job.get("output_column"), id_col=job.get("id_column"), engine="python", **kwargs
    )
    writer = sanitized.writeStream.format("delta").option("checkpointLocation", job["checkpoint"])
    trigger = job.get("trigger") or "available-now"
    writer = writer.trigger(availableNow=True) if trigger == "available-now" else writer.trigger(processingTime=trigger)
    query = writer.start(job["output"])
    query.awaitTermination()
    error = query.exception()
    if error is not None:
        found = convert(error)  # a row the Python engine refused in a worker: its own catalogued error (ID_NULL, ...)
        if found is not None:
            raise found from error
        first = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
        raise DpTextError.of("STREAM_FAILED", reason=first) from error
