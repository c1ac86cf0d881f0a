"""dptext from a Spark Connect client: SQL and column functions, both model distributions, the ML
stage, the same output as the classic path, and no key in plans or the server's log."""

from __future__ import annotations

import json
import subprocess

import pytest

import dptext
from dptext.functions import dp_sanitize
from tests import support


def by_id(df, column="body_dp"):
    return {r["ticket_id"]: r[column] for r in df.collect()}


@pytest.fixture(scope="module")
def classic_reference(classic_reference_process):
    """The classic session's output for the shared key, ids and settings (computed in another process)."""
    process, out = classic_reference_process
    returncode = process.wait(timeout=300)
    if returncode != 0:
        raise subprocess.CalledProcessError(returncode, process.args)
    return {int(k): v for k, v in json.loads(out.read_text()).items()}


@pytest.fixture()
def settings(spark):
    dptext.set_options(spark, **support.SETTINGS)
    yield
    dptext.set_options(spark, model_distribution=None, **dict.fromkeys(support.SETTINGS))


def test_a_connect_session_is_detected_and_register_explains_the_way(spark):
    assert dptext.is_connect(spark)
    with pytest.raises(RuntimeError, match=r"start the server with spark\.sql\.extensions"):
        dptext.register(spark)


def test_sql_and_column_function_match_the_classic_path(spark, tickets, settings, classic_reference):
    column = by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    tickets.createOrReplaceTempView("tickets")
    sql = by_id(spark.sql("SELECT ticket_id, dp_sanitize(body, ticket_id) AS body_dp FROM tickets"))
    assert column == sql == classic_reference
    assert column[1001] != support.TICKETS[0][2] and column[1007] is None


def test_path_distribution_gives_the_broadcast_output(spark, tickets, settings, server):
    broadcast = by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    dptext.set_options(spark, model_distribution="path")
    path = by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    assert path == broadcast
    log = server.log.read_text(errors="replace")
    assert "modelDistribution=path" in log and "SHA-256 verified" in log
    # A model file: hashed on the driver, loaded and verified in the executor JVM.
    model = support.REPO / "udfs/src/test/resources/fixtures/glove-top2000.txt.gz"
    dptext.set_options(spark, model=str(model), mechanism="santext")
    from_file = by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    dptext.set_options(spark, model_distribution="broadcast")
    assert by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp"))) == from_file
    dptext.set_options(spark, model=None)


def test_bad_settings_fail_with_the_jvms_message(spark, tickets, settings):
    dptext.set_options(spark, model_distribution="carrier-pigeon")
    with pytest.raises(Exception, match="modelDistribution must be one of broadcast, path, got 'carrier-pigeon'"):
        tickets.select(dp_sanitize("body", "ticket_id")).collect()
    dptext.set_options(spark, model_distribution=None)
    with pytest.raises(Exception, match="needs an id"):
        tickets.select(dp_sanitize("body")).collect()


def test_the_ml_stage_and_dataframe_api_run_on_the_server(spark, tickets, settings, key, classic_reference):
    stage = dptext.ml.DpTextSanitizer(
        inputCol="body", outputCol="body_dp", idCol="ticket_id", keyFile=str(key[0]), **support.SETTINGS
    )
    assert by_id(stage.transform(tickets)) == classic_reference
    api = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", key_file=str(key[0]), **support.SETTINGS)
    assert by_id(api) == classic_reference


def test_key_and_raw_text_stay_out_of_plans_and_the_server_log(spark, tickets, settings, server, key, capsys):
    tickets.select(dp_sanitize("body", "ticket_id")).explain(True)
    plans = capsys.readouterr().out
    assert "dp_sanitize" in plans
    assert key[1] not in plans.lower()
    log = server.log.read_text(errors="replace")
    assert "SparkConnectServer" in log or "Spark Connect server started" in log
    assert key[1] not in log.lower()
    assert support.CANARY not in log
