"""The Python engine on a classic session (engine="python") against the JVM engine of the same session:
the same rows, for every mechanism the engine runs and every id type it seeds by; the key never in the
pickled UDF or the plan; an executor reading another key refuses to run."""

from __future__ import annotations

import json
import os
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

import dptext
from dptext.engine import spark as python_engine
from tests import support

# The defaults on ALL reviews, every other run on the first SOME (the Python engine's rejection samplers run at
# a fraction of the JVM's rate: BENCHMARKS.md).
ALL, SOME = 2000, 500
# Each mechanism the engine runs, by its registry example (support.engine_runs), and these, which reach branches
# the examples, every parameter away from its default, do not:
RUNS = support.engine_runs(
    {
        "defaults": {},  # every setting at its default, as most users run it
        "1-diffractor-geometric": {"mechanism": "1-diffractor"},  # the default list noise; the example's is tem
        "santext-restore": {"epsilon": 1.0, "oov": "placeholder", "case_policy": "restore"},  # the text layer's
    }
)


@pytest.fixture(scope="module")
def reviews(spark):
    source = Path(os.environ.get("DPTEXT_DATA", Path.home() / ".cache" / "dptext")) / "imdb-reviews.jsonl"
    if not source.exists():
        subprocess.run([str(support.REPO / "scripts" / "data" / "fetch-data.sh")], check=True)
    rows = []
    with open(source) as f:
        for line in f:
            row = json.loads(line)
            rows.append((row["id"], row["review"]))
            if len(rows) == ALL:
                break
    return spark.createDataFrame(rows, "id BIGINT, text STRING").cache()


def both(df, **settings) -> list[tuple]:
    jvm = dptext.sanitize(df, "text", "jvm", id_col="id", engine="jvm", **settings)
    both = dptext.sanitize(jvm, "text", "py", id_col="id", engine="python", **settings)
    return [(r["jvm"], r["py"]) for r in both.select("jvm", "py").collect()]


@pytest.mark.parametrize("run", list(RUNS))
def test_the_python_engine_gives_the_jvm_rows(reviews, run):
    df = reviews if run == "defaults" else reviews.where(f"id < {SOME}")
    pairs = both(df, **RUNS[run])
    assert len(pairs) == (ALL if run == "defaults" else SOME)
    differ = sum(a != b for a, b in pairs)
    assert differ == 0, f"{differ} of {len(pairs)} rows differ"


@pytest.mark.parametrize(
    "id_type,ids",
    [
        ("INT", [1, -7, 2147483647]),
        ("BIGINT", [9007199254740993, -1, 0]),
        ("DOUBLE", [5.0, 1e20, 0.1]),
        ("DECIMAL(10,2)", [Decimal("5.00"), Decimal("-0.50"), Decimal("100.00")]),
        ("STRING", ["ticket-1", "é", "5"]),
        ("BINARY", [b"\x00\xff", b"abc", b"\x80"]),
    ],
)
def test_every_id_type_seeds_as_on_the_jvm(spark, id_type, ids):
    texts = [t for _, _, t in support.TICKETS[:3]]
    df = spark.createDataFrame(list(zip(ids, texts, strict=True)), f"id {id_type}, text STRING")
    for a, b in both(df):
        assert a == b


def test_a_noise_mechanism_is_refused_naming_where_it_runs(tickets):
    with pytest.raises(dptext.DpTextError, match=r"does not run 'laplace'.*JVM"):
        dptext.sanitize(tickets, "body", id_col="ticket_id", engine="python", mechanism="laplace")


def test_the_key_is_in_neither_the_pickled_udf_nor_the_plan(tickets, key):
    from pyspark import cloudpickle

    key_path, secret = key
    conf = {"keyFile": str(key_path), "idMode": "column"}
    settings, fingerprint = python_engine.prepare(conf)
    udf = python_engine._make_udf(settings, fingerprint, True)
    pickled = cloudpickle.dumps(udf.func)
    for form in (secret, secret.upper(), bytes.fromhex(secret).hex(), bytes.fromhex(secret)):
        assert (form if isinstance(form, bytes) else form.encode()) not in pickled
    out = dptext.sanitize(tickets, "body", id_col="ticket_id", engine="python")
    plan = out._jdf.queryExecution().toString()
    assert "dp_sanitize_python" in plan and secret not in plan


def test_an_executor_reading_another_key_refuses(spark, tmp_path):
    path = tmp_path / "rotated.key"
    path.write_text("ab" * 32)
    df = spark.createDataFrame([(1, "the movie was good")], "id BIGINT, text STRING")
    out = dptext.sanitize(df, "text", id_col="id", engine="python", key_file=str(path))
    path.write_text("cd" * 32)  # rotated after the driver read it
    with pytest.raises(Exception, match="differs from the one the driver read"):
        out.collect()


def test_content_hash_and_a_missing_column(tickets):
    a = dptext.sanitize(tickets, "body", "a", id_mode="content-hash", engine="jvm")
    b = dptext.sanitize(a, "body", "b", id_mode="content-hash", engine="python")
    assert all(r["a"] == r["b"] for r in b.collect())
    with pytest.raises(dptext.DpTextError, match="'nope' is not in the input"):
        dptext.sanitize(tickets, "nope", id_col="ticket_id", engine="python")
