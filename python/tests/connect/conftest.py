"""One Spark Connect server (its own JVM, stopped by PID) and one client session for the suite."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pyspark.sql import SparkSession

from tests import support
from tests.connect import server as connect_server


@pytest.fixture(scope="session")
def key():
    return support.key_file()


@pytest.fixture(scope="session")
def classic_reference_process(key):
    """The classic path's output for the shared key, ids and settings, computed in another process
    (tests.connect.classic_reference) that starts before the server does, so the two JVMs start up and
    build the default model side by side; test_connect's classic_reference fixture waits for it."""
    out = support.TMP / "classic-reference.json"
    out.unlink(missing_ok=True)
    # A process that runs a Connect session is marked so in its environment: not for the child.
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.connect.classic_reference", str(key[0]), str(out)],
        cwd=support.REPO / "python",
        env=env,
    )
    yield process, out
    if process.poll() is None:
        process.kill()
        process.wait(timeout=30)


@pytest.fixture(scope="session")
def server(key, classic_reference_process):
    s = connect_server.start(key[0])
    yield s
    s.stop()
    assert s.process.poll() is not None, "the Connect server is still running"


@pytest.fixture(scope="session")
def spark(server):
    session = SparkSession.builder.remote(server.url).getOrCreate()
    yield session
    session.stop()


@pytest.fixture()
def tickets(spark):
    return spark.createDataFrame(support.TICKETS, support.SCHEMA)
