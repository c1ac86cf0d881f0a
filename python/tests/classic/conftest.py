"""One classic PySpark session (local[2]) for the whole suite, configured by dptext.configure."""

from __future__ import annotations

import os
import sys

import pytest
from pyspark.sql import SparkSession

import dptext
from tests import support


@pytest.fixture(scope="session")
def key() -> tuple:
    return support.key_file()


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
        .config("spark.sql.warehouse.dir", str(support.TMP / "warehouse"))
        .config(
            "spark.driver.extraJavaOptions",
            f"-Dlog4j2.configurationFile={support.log4j_config(jvm_log)} -Dderby.system.home={support.TMP / 'derby'}",
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
