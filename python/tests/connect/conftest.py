"""One Spark Connect server (its own JVM, stopped by PID) and one client session for the suite."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from tests import support
from tests.connect import server as connect_server


@pytest.fixture(scope="session")
def key():
    return support.key_file()


@pytest.fixture(scope="session")
def server(key):
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
