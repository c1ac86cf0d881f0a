"""The user's side of the serverless proof: run in a venv that has only ``pip install dptext-*.whl``, against a
Spark Connect server that has Delta and nothing of dptext. Every Python surface sanitizes the reviews with the
Python engine; each output is written as Parquet for the test to compare with the JVM command line's.

    python client.py URL REVIEWS_JSONL KEY_FILE OUT_DIR RUNS_JSON
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import dptext
from dptext.engine import choice
from dptext.functions import dp_sanitize


def main(url: str, reviews: str, key: str, out: str, runs_json: str, sample: str) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    assert not choice.jvm_available(spark), "the server has dptext's JVM: this is not the serverless shape"
    everything = spark.read.schema("id BIGINT, text STRING").json(reviews)
    runs = json.loads(runs_json)
    for run in runs:  # every mechanism the engine supports, through dptext.sanitize
        df = everything if run["limit"] is None else everything.where(f"id < {int(run['limit'])}")
        out_df = dptext.sanitize(df, "text", "text_dp", id_col="id", key_file=key, **run["settings"])
        out_df.select("id", "text_dp").write.mode("overwrite").parquet(f"{out}/sanitize-{run['name']}")
    # The other surfaces, with the default mechanism, on the sample.
    df = everything.where(f"id < {int(sample)}")
    df.select("id", dp_sanitize("text", "id", options={"keyFile": key}).alias("text_dp")).write.mode(
        "overwrite"
    ).parquet(f"{out}/column")
    stage = dptext.DpTextSanitizer(inputCol="text", outputCol="text_dp", idCol="id", keyFile=key)
    stage.transform(df).select("id", "text_dp").write.mode("overwrite").parquet(f"{out}/ml")
    usage = dptext.register_function(spark, key_file=key)
    assert usage == "dp_sanitize(text, id)", usage
    df.createOrReplaceTempView("reviews")
    spark.sql("SELECT id, dp_sanitize(text, id) AS text_dp FROM reviews").write.mode("overwrite").parquet(f"{out}/sql")
    sampled = f"{out}/stream-input"
    df.write.mode("overwrite").json(sampled)
    dptext.stream(
        spark,
        input=sampled,
        input_format="json",
        input_schema="id BIGINT, text STRING",
        output=f"{out}/stream-delta",
        checkpoint=f"{out}/stream-checkpoint",
        id_column="id",
        output_column="text_dp",
        key_file=key,
    )
    spark.read.format("delta").load(f"{out}/stream-delta").select("id", "text_dp").write.mode("overwrite").parquet(
        f"{out}/stream"
    )
    # A missing column: one line, not the server's trace.
    try:
        dptext.sanitize(df, "no_such_column", id_col="id", key_file=key)
    except dptext.DpTextError as e:
        print("missing-column:", e)
    # Bad input the JVM refuses, refused too (issue 53): a null string id (NaN to this venv's pandas) when the rows
    # are read, a text that is no string and a timestamp id when the call is made. Each prints its one line.
    bad = spark.sql(
        "SELECT * FROM VALUES (1L, CAST(NULL AS STRING), 'the movie', timestamp'2020-01-01 00:00:00'),"
        " (2L, 'b', 'a film', timestamp'2020-01-02 00:00:00') AS t(id, id_null, text, ts)"
    )
    for name, call in (
        ("null-id", lambda: dptext.sanitize(bad, "text", "o", id_col="id_null", key_file=key).collect()),
        ("bigint-text", lambda: dptext.sanitize(bad, "id", "o", id_col="id_null", key_file=key)),
        ("timestamp-id", lambda: dptext.sanitize(bad, "text", "o", id_col="ts", key_file=key)),
    ):
        try:
            print(f"{name}: not refused", call())
        except Exception as e:
            print(f"{name}: {type(e).__name__}: {e}".replace("\n", " | "))
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:7])
