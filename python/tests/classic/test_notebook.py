"""notebooks/dptext-python.py runs cell by cell against real PySpark, as on a Databricks cluster set up as
its first cell says: the secret scope dptext/rng-key (a JVM stand-in for dbutils, as the Scala and SQL
notebooks' test uses) and the cluster's Spark config naming it. Python cells see stand-ins for ``display``
and ``dbutils.secrets``; the notebook must end with the Delta table support_tickets_sanitized."""

from __future__ import annotations

import contextlib
import io
import re
from types import SimpleNamespace

import pytest

from tests import support

NOTEBOOK = support.REPO / "notebooks" / "dptext-python.py"
SECRET = ("dptext", "rng-key")


def cells(path):
    """(language, source) per cell, split as Databricks does; %md/%sql cells from their MAGIC lines."""
    text = path.read_text()
    assert text.startswith("# Databricks notebook source\n"), f"{path} is not in Databricks source format"
    out = []
    for raw in re.split(r"^# COMMAND -{10}$", text[len("# Databricks notebook source\n") :], flags=re.M):
        lines = raw.strip("\n").splitlines()
        if not lines:
            continue
        if lines[0].startswith("# MAGIC %"):
            body = [re.sub(r"^# MAGIC ?", "", line) for line in lines]
            language = body[0][1:].split()[0]
            out.append((language, "\n".join(body[1:])))
        else:
            out.append(("python", "\n".join(lines)))
    return out


class _Secrets:
    def list(self, scope):
        return [SimpleNamespace(key=SECRET[1])] if scope == SECRET[0] else []

    def get(self, scope, key):
        raise AssertionError("the notebook read the key into Python; name it with spark.dptext.databricksSecret")


def test_the_python_notebook_runs_cell_by_cell(spark, key):
    if not support.test_jars():
        pytest.skip("needs Delta and the dbutils stand-in (DPTEXT_TEST_JARS, set by the Maven build)")
    _, key_hex = key
    holder = getattr(spark._jvm.com.databricks.dbutils_v1, "DBUtilsHolder$")
    holder.SECRETS.put("/".join(SECRET), key_hex)
    spark.sql("DROP TABLE IF EXISTS support_tickets_sanitized")
    session = spark.newSession()
    session.conf.set("spark.dptext.databricksSecret", "/".join(SECRET))  # the cluster's Spark config
    shown = io.StringIO()

    def display(df):
        shown.write(df._jdf.showString(100, 0, False))

    namespace = {"spark": session, "display": display, "dbutils": SimpleNamespace(secrets=_Secrets())}
    parsed = cells(NOTEBOOK)
    assert [lang for lang, _ in parsed].count("python") >= 5
    for number, (language, source) in enumerate(parsed, start=1):
        try:
            with contextlib.redirect_stdout(shown):
                if language == "python":
                    exec(compile(source, f"{NOTEBOOK.name} cell {number}", "exec"), namespace)
                elif language == "sql":
                    session.sql(source).show(truncate=False)
                elif language != "md":
                    raise AssertionError(f"cells in {language} cannot be executed by this test")
        except Exception as e:
            raise AssertionError(f"notebooks/{NOTEBOOK.name} cell {number} ({language}) failed: {e}") from e

    out = shown.getvalue()
    assert key_hex not in out.lower(), "the notebook showed the key"
    assert "UMLDP" in out  # the guarantees were printed
    detail = session.sql("DESCRIBE DETAIL support_tickets_sanitized").first()
    assert detail.format == "delta"
    pairs = session.sql(
        "SELECT i.body AS a, o.body AS b FROM support_tickets i JOIN support_tickets_sanitized o USING (ticket_id)"
    ).collect()
    assert len(pairs) == session.table("support_tickets").count() == 8
    assert sum(1 for p in pairs if p.a and p.a != p.b) == 6
    properties = {r.key: r.value for r in session.sql("SHOW TBLPROPERTIES support_tickets_sanitized").collect()}
    assert properties["dptext.mechanism"] == "santext+"
