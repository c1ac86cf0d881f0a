"""Python that feels like Python, on a classic session: one key resolution on every surface, values
checked when they are set (with the JVM's message), dptext's errors as one-line Python exceptions,
Delta's jars from configure, the install hints, and the exactly-once stream from Python."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

import dptext
from dptext import _registry, options, session
from dptext.functions import dp_sanitize
from tests import support


def rows(df, column="body_dp"):
    return {r["ticket_id"]: r[column] for r in df.collect()}


def test_the_sessions_key_file_works_on_every_surface(spark, tickets, settings):
    # The session was configured with configure(key_file=...): no surface is given the key's source.
    assert spark.conf.get("spark.dptext.keyFile")
    by_function = rows(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    by_api = rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id"))
    stage = dptext.DpTextSanitizer(inputCol="body", outputCol="body_dp", idCol="ticket_id", **support.SETTINGS)
    by_stage = rows(stage.transform(tickets))
    assert by_function == by_api == by_stage
    assert by_stage[1001] != support.TICKETS[0][2]


def jvm_verdict(spark, name: str, text: str) -> str | None:
    try:
        spark._jvm.dev.dptext.settings.Settings.byName(name).get().parse(text)
        return None
    except dptext.DpTextError as e:
        return str(e)


PROBES = ["", " ", "abc", "-1", "0", "0.5", "1", "1.5", "3", " 3 ", "1e-5", "1.0E7", "5f", "Infinity", "-Infinity"]
PROBES += ["NaN", "inf", "2147483648", "true", "FALSE", "yes", "1,2", "1;-2", "0;0.5;1", ",", "1,", ",1", "x/y", "x"]


def test_python_checks_every_setting_as_the_jvm_does(spark):
    """The checks come from the registry the build exported; here every verdict and message is the JVM's."""
    compared = 0
    for s in _registry.settings():
        if s.secret:
            continue
        probes = PROBES + list(s.choices) + [c.upper() for c in s.choices] + [s.default or ""]
        if s.name == "mechanism":
            probes += ["lapalce", "SanText_Plus"] + [a for m in _registry.mechanisms() for a in m.aliases]
        for text in probes:
            try:
                mine = options.verdict(s, text)
            except LookupError:
                continue  # only the JVM can tell (an alias of a choice): options.check asks it
            assert mine == jvm_verdict(spark, s.name, text), (s.name, text)
            compared += 1
    assert compared > 500


def test_values_are_checked_when_set_with_the_command_lines_message(spark, tickets):
    cli = "mechanism must be one of " + ", ".join(m.name for m in dptext.mechanisms()) + ", got 'lapalce'"
    with pytest.raises(dptext.DpTextError) as e:
        dptext.set_options(spark, epsilon=2, mechanism="lapalce")
    assert e.value.name == "SETTING_INVALID" and cli in str(e.value)
    assert str(e.value) == jvm_verdict(spark, "mechanism", "lapalce")
    assert spark.conf.get("spark.dptext.epsilon", None) is None  # nothing was set
    epsilon = r"epsilon must be a positive finite number, got -1\.0"
    with pytest.raises(dptext.DpTextError, match=epsilon):
        dptext.DpTextSanitizer(inputCol="body", outputCol="o", epsilon=-1)
    with pytest.raises(dptext.DpTextError, match=epsilon):
        dptext.DpTextSanitizer(inputCol="body", outputCol="o").setEpsilon(-1)
    with pytest.raises(dptext.DpTextError, match=epsilon):
        dptext.sanitize(tickets, "body", "o", id_col="ticket_id", epsilon=-1)
    with pytest.raises(dptext.DpTextError, match="got 'lapalce'"):
        dptext.configure(SparkSession.builder, mechanism="lapalce")
    with pytest.raises(dptext.DpTextError, match="got 'lapalce'"):
        dp_sanitize("body", "ticket_id", options={"mechanism": "lapalce"})
    # A spelling only the JVM knows is asked of it: an alias passes, a typo fails with its message.
    dptext.set_options(spark, id_mode="hash")
    dptext.set_options(spark, id_mode=None)
    with pytest.raises(dptext.DpTextError, match="idMode must be one of column, content-hash, fresh, got 'hsah'") as e:
        dptext.set_options(spark, id_mode="hsah")
    assert e.value.name == "SETTING_INVALID"


def test_dptext_errors_are_one_line_python_exceptions(spark, settings, monkeypatch):
    df = spark.createDataFrame([(None, support.CANARY)], "ticket_id BIGINT, body STRING")
    with pytest.raises(dptext.DpTextError) as e:
        df.select(dp_sanitize("body", "ticket_id")).collect()
    message = str(e.value)
    assert e.value.name == "ID_NULL" and message.startswith("[ID_NULL] ") and "\n" not in message and len(message) < 300
    assert isinstance(e.value, ValueError) and e.value.java_class == "dev.dptext.errors.DpTextException"
    assert "Py4JJavaError" in type(e.value.__cause__).__name__  # the Java error, kept
    assert support.CANARY not in message
    with pytest.raises(dptext.DpTextError, match=r"^\[COLUMN_NOT_IN_INPUT\] The text column 'nope' ") as e:
        dptext.sanitize(df, "nope", "o", id_col="ticket_id")
    assert e.value.parameters == {"role": "text column", "column": "nope", "columns": "[ticket_id, body]"}
    # Errors that are not dptext's stay pyspark's.
    with pytest.raises(AnalysisException):
        df.select("nope").collect()
    monkeypatch.setenv("DPTEXT_JVM_ERRORS", "1")  # the flag: pyspark's exceptions unchanged
    with pytest.raises(Exception) as raw:
        df.select(dp_sanitize("body", "ticket_id")).collect()
    assert not isinstance(raw.value, dptext.DpTextError) and "null id" in str(raw.value)


def test_configure_brings_deltas_jars_from_the_wheel():
    bundled = session.delta_jars()
    assert [os.path.basename(j).split("-")[:2] for j in bundled] == [["delta", "spark_2.13"], ["delta", "storage"]]
    builder = SparkSession.builder
    try:
        options_ = dptext.configure(builder, jar="/opt/dptext.jar", delta=True)._options
        assert set(bundled) <= set(options_["spark.jars"].split(","))
        builder._options.pop("spark.jars")
        builder.config("spark.jars.packages", "io.delta:delta-spark_2.13:4.0.1")  # the user brings Delta
        assert (
            "delta-storage" not in dptext.configure(builder, jar="/opt/dptext.jar", delta=True)._options["spark.jars"]
        )
    finally:
        for key in ("spark.jars", "spark.jars.packages", "spark.sql.extensions", "spark.sql.catalog.spark_catalog"):
            builder._options.pop(key, None)


def test_install_hints_name_the_command_that_builds_the_wheel(monkeypatch, tmp_path):
    (tmp_path / "jars").mkdir()
    monkeypatch.setattr(session.resources, "files", lambda _: tmp_path)
    monkeypatch.delenv("DPTEXT_JAR", raising=False)
    with pytest.raises(dptext.DpTextError, match="-Ppython-wheel package") as e:
        dptext.jar_path()
    assert e.value.name == "JAR_NOT_BUNDLED" and e.value.parameters == {"variable": "DPTEXT_JAR"}


def test_a_source_install_fails_with_the_commands(tmp_path):
    tree = tmp_path / "python"
    shutil.copytree(
        support.REPO / "python",
        tree,
        ignore=shutil.ignore_patterns("target", "tests", "__pycache__", "*.egg-info", "build"),
    )
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", tmp_path, tree],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert "./mvnw -B -ntp -DskipTests -Ppython-wheel package" in result.stdout + result.stderr
    assert "pip install python/target/dist/dptext-*.whl" in result.stdout + result.stderr


def test_the_exactly_once_stream_from_python(spark, tickets, settings, tmp_path):
    if not support.test_jars():
        pytest.skip("needs Delta (DPTEXT_TEST_JARS, set by the Maven build)")
    landing = tmp_path / "landing"
    landing.mkdir()
    first, second = support.TICKETS[:4], support.TICKETS[4:]
    for name, part in (("a.json", first), ("b.json", second)):
        (tmp_path / name).write_text("".join(json.dumps({"ticket_id": t[0], "body": t[2]}) + "\n" for t in part))
    stream = {
        "input": str(landing),
        "input_format": "json",
        "input_schema": "ticket_id BIGINT, body STRING",
        "text_column": "body",
        "id_column": "ticket_id",
        "output": str(tmp_path / "clean"),
        "checkpoint": str(tmp_path / "checkpoint"),
        "ledger": str(tmp_path / "ledger"),
    }
    # The session's snapshotPartitions is 2 (conftest): every micro-batch's commit reads the table's state.
    shutil.copy(tmp_path / "a.json", landing)
    dptext.stream(spark, **stream)  # the session's key file and settings (the fixture's)
    shutil.copy(tmp_path / "b.json", landing)
    dptext.stream(spark, **stream)  # the same command again: only the new file
    out = spark.read.format("delta").load(stream["output"])
    assert out.count() == len(support.TICKETS)
    expected = rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id"))
    assert {r.ticket_id: r.body for r in out.collect()} == expected
    # Each micro-batch is a release of other rows: recorded, confirmed, ε 3 per row at most.
    report = dptext.ledger(spark, stream["ledger"])
    (source,) = report["sources"]
    assert len(source["releases"]) == 2
    assert source["maximumEpsilonPerRow"] == 3.0
    assert sum(d["rowKeys"] for d in source["distribution"]) == len(support.TICKETS)
    assert all(r["committedVersion"] is not None for r in source["releases"])
    with pytest.raises(dptext.DpTextError, match=r"refuses --id-mode fresh") as e:
        fresh = {
            "id_column": None,
            "id_mode": "fresh",
            "output": str(tmp_path / "o2"),
            "checkpoint": str(tmp_path / "c2"),
        }
        dptext.stream(spark, **{**stream, **fresh})
    assert e.value.name == "STREAM_FRESH_IDS"  # the job's own error, as on its command line (exit 2, USAGE)


def test_the_python_notebook_runs_under_plain_pyspark(spark, key, plain_notebook):
    """As a user outside Databricks runs it: ``python notebooks/dptext-python.py``, the key in DPTEXT_KEY (the
    run was started with the suite: conftest.plain_notebook)."""
    _, key_hex = key
    process, folder = plain_notebook
    code = process.wait(timeout=600)
    stdout = (folder / "stdout.txt").read_text(errors="replace")
    stderr = (folder / "stderr.txt").read_text(errors="replace")
    assert code == 0, stderr[-3000:]
    assert "UMLDP" in stdout and "ticket_id" in stdout  # the guarantees, the shown table
    assert key_hex not in (stdout + stderr).lower()
    table = spark.read.format("delta").load(str(folder / "spark-warehouse" / "support_tickets_sanitized"))
    assert table.count() == 8
