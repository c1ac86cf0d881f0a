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
    with pytest.raises(dptext.DpTextError, match=r"Start the server with spark\.sql\.extensions") as e:
        dptext.register(spark)
    assert e.value.name == "REGISTER_NEEDS_JVM"


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
    with pytest.raises(Exception, match="modelDistribution must be one of broadcast, path, got 'carrier-pigeon'") as e:
        tickets.select(dp_sanitize("body", "ticket_id")).collect()
    assert dptext.errors.name_of(str(e.value)) == "SETTING_INVALID"
    dptext.set_options(spark, model_distribution=None)
    with pytest.raises(Exception) as no_id:
        tickets.select(dp_sanitize("body")).collect()
    assert dptext.errors.name_of(str(no_id.value)) == "ID_COLUMN_NOT_GIVEN"


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


def test_the_servers_key_file_works_on_every_surface(spark, tickets, settings, classic_reference):
    # The server was started with spark.dptext.keyFile; no surface is given the key's source here.
    column = by_id(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    api = by_id(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id"))
    stage = dptext.DpTextSanitizer(inputCol="body", outputCol="body_dp", idCol="ticket_id", **support.SETTINGS)
    assert column == api == by_id(stage.transform(tickets)) == classic_reference


def test_sanitize_fixes_its_settings_when_it_returns(spark, tickets, settings, classic_reference):
    df = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id")
    dptext.set_options(spark, mechanism="laplace", epsilon=10)  # later session changes do not apply to df
    assert by_id(df) == classic_reference
    replaced = dptext.sanitize(tickets, "body", id_col="ticket_id", **support.SETTINGS)  # replaces, as on classic
    assert replaced.columns == tickets.columns and by_id(replaced, "body") == classic_reference


def test_values_are_checked_when_set_without_a_jvm(spark, tickets):
    with pytest.raises(dptext.DpTextError, match=r"epsilon must be a positive finite number, got -1\.0") as e:
        dptext.set_options(spark, epsilon=-1)
    assert e.value.name == "SETTING_INVALID"
    assert spark.conf.get("spark.dptext.epsilon", None) is None
    with pytest.raises(dptext.DpTextError, match=r"mechanism must be one of .*, got 'lapalce'"):
        dptext.DpTextSanitizer(inputCol="body", outputCol="o", mechanism="lapalce")
    with pytest.raises(dptext.DpTextError, match="got 'lapalce'"):
        dptext.sanitize(tickets, "body", "o", id_col="ticket_id", mechanism="lapalce")


def test_dptext_errors_are_one_line_python_exceptions(spark, settings):
    df = spark.createDataFrame([(None, support.CANARY)], "ticket_id BIGINT, body STRING")
    with pytest.raises(dptext.DpTextError) as e:
        df.select(dp_sanitize("body", "ticket_id")).collect()
    assert e.value.name == "ID_NULL" and str(e.value).startswith("[ID_NULL] ") and len(str(e.value)) < 300
    assert e.value.__cause__ is not None and "JVM stacktrace" in str(e.value.__cause__)  # kept
    with pytest.raises(dptext.DpTextError) as no_id:
        df.select(dp_sanitize("body")).collect()
    assert no_id.value.name == "ID_COLUMN_NOT_GIVEN"
    with pytest.raises(Exception) as other:  # not dptext's: pyspark's own
        df.select("nope").collect()
    assert not isinstance(other.value, dptext.DpTextError)


def test_a_pipeline_saved_on_connect_loads_on_connect(spark, tickets, settings, classic_reference):
    from pyspark.ml import Pipeline, PipelineModel

    stage = dptext.DpTextSanitizer(inputCol="body", outputCol="body_dp", idCol="ticket_id", **support.SETTINGS)
    path = str(support.TMP / "connect-pipeline")
    Pipeline(stages=[stage]).fit(tickets).write().overwrite().save(path)
    loaded = PipelineModel.load(path)
    assert isinstance(loaded.stages[0], dptext.DpTextSanitizer) and loaded.stages[0].getP() == 0.3
    assert by_id(loaded.transform(tickets)) == classic_reference
    stage_path = str(support.TMP / "connect-stage")
    stage.write().overwrite().save(stage_path)
    assert by_id(dptext.DpTextSanitizer.load(stage_path).transform(tickets)) == classic_reference


def test_the_stream_on_connect_names_the_way_out(spark, server):
    with pytest.raises(dptext.DpTextError, match=rf"spark-submit --remote sc://localhost:{server.port} .*--stream"):
        dptext.stream(spark, input="/in", output="/out", checkpoint="/cp", text_column="body", id_column="ticket_id")
