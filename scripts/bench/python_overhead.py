"""Python overhead against the Java API, same data, same session, alternating.

Sanitizes N IMDb reviews (cached in memory first) through
  java     the Java DataFrame API, DpText.sanitizer(spark)...transform(...), driven through py4j, the
           action run in the JVM (what a Scala/Java job does)
  python   dptext.sanitize(df, ...), the Python DataFrame API
  column   df.select(dp_sanitize("review", "id")), the Python column function (the SQL function)
each writing to Spark's "noop" sink, in alternating rounds after one warm-up round (model load,
broadcast and JIT are paid there), and prints every time, the medians and the ratios to java. Every
variant must produce the same text (checked by an order-independent hash of the outputs).

Run through scripts/bench/python.sh (it builds the package's venv first).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import dptext
from dptext.functions import dp_sanitize


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--input", default=os.path.expanduser("~/.cache/dptext/imdb-reviews.jsonl"))
    p.add_argument("--rows", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--key-file", required=True)
    a = p.parse_args()

    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    spark = dptext.configure(builder, key_file=a.key_file).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    reviews = spark.read.json(a.input).select("id", "review").limit(a.rows).repartition(6).cache()
    n = reviews.count()

    def java() -> int:
        jdf = spark._jvm.dev.dptext.spark.DpText.sanitizer(spark._jsparkSession).idColumn("id")
        jdf = jdf.transform(reviews._jdf, "review", "review_dp")
        jdf.write().format("noop").mode("overwrite").save()
        return jdf

    def python():
        out = dptext.sanitize(reviews, "review", "review_dp", id_col="id")
        out.write.format("noop").mode("overwrite").save()
        return out

    def column():
        out = reviews.select("id", dp_sanitize("review", "id").alias("review_dp"))
        out.write.format("noop").mode("overwrite").save()
        return out

    def fingerprint(df) -> int:
        return df.select(F.sum(F.hash("id", "review_dp").cast("long"))).first()[0]

    from pyspark.sql.classic.dataframe import DataFrame as ClassicDataFrame

    variants = {"java": java, "python": python, "column": column}
    outputs = {}
    for name, run in variants.items():  # warm-up: model, broadcast, JIT
        result = run()
        outputs[name] = fingerprint(ClassicDataFrame(result, spark) if name == "java" else result)
    assert len(set(outputs.values())) == 1, f"the variants disagree: {outputs}"

    times: dict[str, list[float]] = {k: [] for k in variants}
    for r in range(a.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for name in order:
            start = time.perf_counter()
            variants[name]()
            times[name].append(time.perf_counter() - start)
    print(
        f"rows: {n}, rounds: {a.rounds} (+1 warm-up), machine: {platform.machine()} {os.cpu_count()} cores, "
        f"pyspark {spark.version}, dptext {dptext.__version__}, outputs identical: yes"
    )
    base = statistics.median(times["java"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(
            f"{name:7s} median {med:6.2f} s  ({n / med:8.0f} rows/s)  ratio to java {med / base:5.3f}  "
            f"runs: {', '.join(f'{t:.2f}' for t in ts)}"
        )
    spark.stop()


if __name__ == "__main__":
    main()
