"""The classic path's output, in its own process (a process with a Connect session cannot also run
classic PySpark): python -m tests.connect.classic_reference KEY_FILE OUT_JSON."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import dptext
from dptext.functions import dp_sanitize
from tests import support


def main(key_file: str, out: str) -> None:
    builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
    builder = builder.config("spark.driver.extraJavaOptions", support.jvm_options())
    spark = dptext.configure(builder, key_file=key_file, **support.SETTINGS).getOrCreate()
    try:
        df = spark.createDataFrame(support.TICKETS, support.SCHEMA)
        rows = df.select("ticket_id", dp_sanitize("body", "ticket_id").alias("body_dp")).collect()
        with open(out, "w") as f:
            json.dump({str(r.ticket_id): r.body_dp for r in rows}, f)
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
