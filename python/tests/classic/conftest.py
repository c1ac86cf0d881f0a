"""One classic PySpark session (local[2]) for the whole suite, configured by dptext.configure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from pyspark.sql import SparkSession

import dptext
from tests import support


@pytest.fixture(scope="session")
def key() -> tuple:
    return support.key_file()


PLAIN_NOTEBOOK_TEST = "test_the_python_notebook_runs_under_plain_pyspark"


@pytest.fixture(scope="session", autouse=True)
def plain_notebook(request, key):
    """``python notebooks/dptext-python.py`` as a user outside Databricks runs it (the key in DPTEXT_KEY), in a
    folder of its own: started with the suite when its test is selected, so that its JVM (~50 s) runs beside
    the other tests, and awaited by that test. Yields the process and its folder, or None."""
    if not any(item.name == PLAIN_NOTEBOOK_TEST for item in request.session.items):
        yield None
        return
    _, key_hex = key
    folder = support.TMP / "plain-notebook"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")}
    env["DPTEXT_KEY"] = key_hex
    if support.jvm_options():  # PySpark's own way to give its JVM options: the notebook's code stays the user's
        env["PYSPARK_SUBMIT_ARGS"] = f'--driver-java-options "{support.jvm_options()}" pyspark-shell'
    with open(folder / "stdout.txt", "wb") as out, open(folder / "stderr.txt", "wb") as err:
        process = subprocess.Popen(
            [sys.executable, str(support.REPO / "notebooks" / "dptext-python.py")],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=err,
        )
    yield process, folder
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def jvm_log():
    return support.TMP / "classic-jvm.log"


@pytest.fixture(scope="session")
def spark(key, jvm_log):
    key_path, _ = key
    # Python workers (the Python engine's UDF) run this interpreter, as with an activated venv.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("dptext-python-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # Delta's state reconstruction in 2 tasks, not 50: sized for local[2], as the job's local sessions are
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.warehouse.dir", str(support.TMP / "warehouse"))
        .config(
            "spark.driver.extraJavaOptions",
            support.jvm_options(
                f"-Dlog4j2.configurationFile={support.log4j_config(jvm_log)}",
                f"-Dderby.system.home={support.TMP / 'derby'}",
            ),
        )
    )
    if support.test_jars():
        builder = builder.config("spark.jars", ",".join(support.test_jars()))
    session = dptext.configure(builder, delta=bool(support.test_jars()), key_file=str(key_path)).getOrCreate()
    yield session
    session.stop()


@pytest.fixture()
def tickets(spark):
    return spark.createDataFrame(support.TICKETS, support.SCHEMA)


@pytest.fixture()
def settings(spark):
    """The shared settings on the session, reset afterwards."""
    dptext.set_options(spark, **support.SETTINGS)
    yield support.SETTINGS
    dptext.set_options(spark, **dict.fromkeys(support.SETTINGS))
