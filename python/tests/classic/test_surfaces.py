"""The Python surfaces on a classic session: column function, DataFrame API and ML stage agree with
each other and with the JVM, and the key stays out of plans and logs."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import dptext
from dptext.functions import dp_sanitize
from tests import support


def rows(df, column="body_dp"):
    return {r["ticket_id"]: r[column] for r in df.collect()}


def test_column_function_dataframe_api_and_sql_agree_and_rewrite(spark, tickets, settings):
    by_column_function = rows(tickets.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")))
    tickets.createOrReplaceTempView("tickets")
    by_sql = rows(spark.sql("SELECT ticket_id, dp_sanitize(body, ticket_id) AS body_dp FROM tickets"))
    by_dataframe_api = rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id"))
    assert by_column_function == by_sql == by_dataframe_api
    originals = {t[0]: t[2] for t in support.TICKETS}
    assert by_column_function[1007] is None and by_column_function[1006] == ""
    changed = [i for i, text in originals.items() if text and by_column_function[i] != text]
    assert len(changed) == 5, by_column_function
    # Same key, ids and settings: a re-run is identical; another purpose gives other noise.
    assert rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id")) == by_dataframe_api
    other = rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", purpose="other"))
    assert other != by_dataframe_api


def test_keyword_settings_override_the_session_and_are_checked(spark, tickets, settings):
    laplace = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", mechanism="laplace", epsilon=5)
    assert rows(laplace) != rows(dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id"))
    with pytest.raises(dptext.DpTextError) as bad:
        dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", epsilon=-1)
    assert bad.value.name == "SETTING_INVALID" and bad.value.parameters["setting"] == "epsilon"
    with pytest.raises(ValueError) as unknown:
        dptext.sanitize(tickets, "body", id_col="ticket_id", epsilonn=3)
    assert unknown.value.name == "SETTING_UNKNOWN" and unknown.value.parameters["unknown"] == "epsilonn"
    with pytest.raises(dptext.DpTextError) as no_id:
        dptext.sanitize(tickets, "body", "body_dp")
    assert no_id.value.name == "ID_COLUMN_NOT_GIVEN"
    with pytest.raises(dptext.DpTextError, match="'nope' is not in the input"):
        dptext.sanitize(tickets, "nope", "body_dp", id_col="ticket_id")
    content = dptext.sanitize(tickets, "body", "body_dp", id_mode="content-hash")
    assert rows(content)[1001] != support.TICKETS[0][2]


@pytest.mark.parametrize("name", ["secret_key", "secretKey", "spark.dptext.secretKey"])
def test_the_key_is_never_a_python_value(spark, tickets, name):
    builder = SparkSession.builder
    with pytest.raises(ValueError, match="never takes the RNG key as a Python value"):
        dptext.configure(builder, **{name: "00" * 32}) if "." not in name else dptext.set_options(spark, **{name: "0"})
    with pytest.raises(ValueError, match="never takes the RNG key"):
        dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", secret_key="00" * 32)
    with pytest.raises(ValueError, match="never takes the RNG key"):
        dptext.ml.DpTextSanitizer(secretKey="00" * 32)


def test_key_and_raw_text_stay_out_of_plans_and_logs(spark, tickets, settings, key, jvm_log, capsys):
    _, key_hex = key
    df = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id")
    df.explain(True)
    tickets.select(dp_sanitize("body", "ticket_id")).explain("extended")
    df.collect()
    plans = capsys.readouterr().out
    assert "dp_sanitize" in plans  # the plans were printed
    assert key_hex not in plans.lower()
    log = jvm_log.read_text(errors="replace")
    assert "dev.dptext" in log  # dptext's DEBUG/INFO lines are in the file
    assert key_hex not in log.lower()
    assert support.CANARY not in log
    assert key_hex not in json.dumps(spark.sparkContext.getConf().getAll())


def test_builder_helper_keeps_what_the_builder_has():
    builder = (
        SparkSession.builder.config("spark.jars", "/opt/other.jar")
        .config("spark.sql.extensions", "com.example.Ext")
        .config("spark.dptext.keyEnv", "X")
    )
    configured = dptext.configure(builder, jar="/opt/dptext.jar", delta=True, mechanism="santext+")
    options = configured._options
    assert options["spark.jars"].split(",")[:2] == ["/opt/other.jar", "/opt/dptext.jar"]  # then the bundled ones
    assert options["spark.sql.extensions"] == (
        "com.example.Ext,dev.dptext.spark.DpTextExtensions,io.delta.sql.DeltaSparkSessionExtension"
    )
    assert options["spark.sql.catalog.spark_catalog"] == "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    assert options["spark.dptext.mechanism"] == "santext+"
    for key in ("spark.jars", "spark.sql.extensions", "spark.sql.catalog.spark_catalog", "spark.dptext.mechanism"):
        builder._options.pop(key, None)  # the builder is a process-wide singleton: leave it clean
    builder._options.pop("spark.dptext.keyEnv", None)


def test_register_on_a_running_session_and_the_function_help(spark):
    dptext.register(spark)  # idempotent: the extension registered it already
    described = "\n".join(r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED dp_sanitize").collect())
    for mechanism in dptext.mechanisms():
        assert mechanism.guarantee in described


def test_null_id_is_an_error_without_the_text(spark, settings):
    df = spark.createDataFrame([(None, support.CANARY)], "ticket_id BIGINT, body STRING")
    with pytest.raises(Exception) as e:
        df.select(dp_sanitize("body", "ticket_id")).collect()
    assert getattr(e.value, "name", None) == "ID_NULL"
    assert support.CANARY not in str(e.value)


def test_other_columns_and_rows_are_kept(spark, tickets, settings):
    out = dptext.sanitize(tickets, "body", id_col="ticket_id")
    assert out.columns == tickets.columns
    assert out.count() == len(support.TICKETS)
    assert {r.product for r in out.collect()} == {t[1] for t in support.TICKETS}
    assert out.where(F.col("body").isNull()).count() == 1
