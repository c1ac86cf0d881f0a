"""The Python engine on a classic session (engine="python") against the JVM engine of the same session:
the same rows, for every mechanism the engine runs and every id type it seeds by; the key never in the
pickled UDF or the plan; an executor reading another key refuses to run."""

from __future__ import annotations

import json
import os
import re
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
NOISE_SOME = 150  # the embedding-noise mechanisms search the whole vocabulary per token (see tests/serverless)
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
    some = NOISE_SOME if RUNS[run].get("mechanism") in support.NOISE_MECHANISMS else SOME
    df = reviews if run == "defaults" else reviews.where(f"id < {some}")
    pairs = both(df, **RUNS[run])
    assert len(pairs) == (ALL if run == "defaults" else some)
    differ = sum(a != b for a, b in pairs)
    assert differ == 0, f"{differ} of {len(pairs)} rows differ"


@pytest.mark.parametrize(
    "id_type,ids",
    [
        ("INT", [1, -7, 2147483647]),
        ("BIGINT", [9007199254740993, -1, 0]),
        ("DOUBLE", [5.0, 1e20, float("nan")]),  # a real NaN seeds as Double.toString's "NaN" (not as a null id)
        ("DECIMAL(10,2)", [Decimal("5.00"), Decimal("-0.50"), Decimal("100.00")]),
        ("STRING", ["ticket-1", "é", "5"]),
        ("STRING COLLATE UTF8_LCASE", ["Ticket-1", "é", "5"]),
        ("BINARY", [b"\x00\xff", b"abc", b"\x80"]),
    ],
)
def test_every_id_type_seeds_as_on_the_jvm(spark, id_type, ids):
    texts = [t for _, _, t in support.TICKETS[:3]]
    df = spark.createDataFrame(list(zip(ids, texts, strict=True)), f"id {id_type}, text STRING")
    for a, b in both(df):
        assert a == b


def test_the_approximate_search_is_refused_naming_where_it_runs(tickets):
    with pytest.raises(dptext.DpTextError, match=r"nearestSearch=hnsw.*JVM only") as e:
        dptext.sanitize(
            tickets, "body", id_col="ticket_id", engine="python", mechanism="laplace", nearest_search="hnsw"
        )
    assert e.value.name == "PYTHON_ENGINE_HNSW"


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
    with pytest.raises(dptext.DpTextError, match="differs from the one the driver read") as e:
        out.collect()
    assert e.value.name == "KEY_DIFFERS_ON_EXECUTOR"  # raised in a worker, arrives catalogued


def test_content_hash_and_a_missing_column(tickets):
    a = dptext.sanitize(tickets, "body", "a", id_mode="content-hash", engine="jvm")
    b = dptext.sanitize(a, "body", "b", id_mode="content-hash", engine="python")
    assert all(r["a"] == r["b"] for r in b.collect())
    with pytest.raises(dptext.DpTextError, match="'nope' is not in the input"):
        dptext.sanitize(tickets, "nope", id_col="ticket_id", engine="python")


# Every input the JVM refuses (DpText.Builder.validate, DpTextSanitizer.transformSchema, Sanitizer.streamFor),
# and the id types only the Python engine refuses: (the call, when it fails: "call" or "run", what the JVM
# does: "same" (the same message), a pattern both messages match, or None (it seeds them; the engine refuses)).
BAD = "5L AS big, X'6869' AS bin, 'the movie' COLLATE UTF8_LCASE AS coll, 'the movie' AS text, 1L AS id"
BAD += ", timestamp'2020-01-01 00:00:00' AS ts, timestamp_ntz'2020-01-01 00:00:00' AS ntz, interval '1' day AS days"
BAD += ", array(1) AS arr, named_struct('a', 1) AS st, NULL AS nothing, CAST(NULL AS STRING) AS id_null"
BAD += ", CAST(NULL AS BIGINT) AS id_null_big"
REFUSED = {
    "text-bigint": (lambda df, e: dptext.sanitize(df, "big", "o", id_col="id", engine=e), "call", "same"),
    "text-binary": (lambda df, e: dptext.sanitize(df, "bin", "o", id_col="id", engine=e), "call", "same"),
    "text-collated": (lambda df, e: dptext.sanitize(df, "coll", "o", id_col="id", engine=e), "call", "same"),
    "text-missing": (lambda df, e: dptext.sanitize(df, "nope", "o", id_col="id", engine=e), "call", "same"),
    "id-missing": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="nope", engine=e), "call", "same"),
    "id-array": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="arr", engine=e), "call", "same"),
    "id-struct": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="st", engine=e), "call", "same"),
    "id-void": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="nothing", engine=e), "call", "same"),
    "id-null-string": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="id_null", engine=e), "run", "same"),
    "id-null-bigint": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="id_null_big", engine=e), "run", "same"),
    "no-id": (lambda df, e: dptext.sanitize(df, "text", "o", engine=e), "call", r"(?i)id.*column.*content"),
    "id-and-content-hash": (
        lambda df, e: dptext.sanitize(df, "text", "o", id_col="id", id_mode="content-hash", engine=e),
        "call",
        "same",
    ),
    "unknown-id-mode": (lambda df, e: dptext.sanitize(df, "text", "o", id_mode="hsah", engine=e), "call", "same"),
    "id-timestamp": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="ts", engine=e), "call", None),
    "id-timestamp-ntz": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="ntz", engine=e), "call", None),
    "id-interval": (lambda df, e: dptext.sanitize(df, "text", "o", id_col="days", engine=e), "call", None),
    "stage-output-exists": (
        lambda df, e: dptext.DpTextSanitizer(inputCol="text", outputCol="big", idCol="id", engine=e).transform(df),
        "call",
        "same",
    ),
    "stage-output-unset": (
        lambda df, e: dptext.DpTextSanitizer(inputCol="text", idCol="id", engine=e).transform(df),
        "call",
        "same",
    ),
    "stage-text-bigint": (
        lambda df, e: dptext.DpTextSanitizer(inputCol="big", outputCol="o", idCol="id", engine=e).transform(df),
        "call",
        "same",
    ),
    "stage-id-timestamp": (
        lambda df, e: dptext.DpTextSanitizer(inputCol="text", outputCol="o", idCol="ts", engine=e).transform(df),
        "call",
        None,
    ),
}


def _refusal(call, df, engine, when) -> dptext.DpTextError | None:
    """The DpTextError, at the call or when the rows are computed; None if neither refused."""
    try:
        out = call(df, engine)
    except dptext.DpTextError as e:
        assert when == "call", f"refused at the call, expected when the query runs: {e}"
        return e
    try:
        out.collect()
    except dptext.DpTextError as e:
        assert when == "run", f"refused when the query runs, expected at the call: {e}"
        return e
    return None


@pytest.mark.parametrize("case", list(REFUSED))
def test_the_python_engine_refuses_what_the_jvm_refuses_in_its_words(spark, case):
    """Same rows or a refusal, never a silent difference (issue 53): each input the JVM refuses, the Python engine
    refuses with the same meaning, as a one-line DpTextError, at the call where the schema tells (a null id only
    when the rows are read, as on the JVM); an id type the engine does not seed by (the JVM does), at the call."""
    call, when, jvm = REFUSED[case]
    df = spark.sql(f"SELECT {BAD}")
    refused = _refusal(call, df, "python", when)
    assert refused is not None, "the Python engine did not refuse"
    said = str(refused)
    assert "\n" not in said and len(said) < 400, said
    on_jvm = _refusal(call, df, "jvm", when)
    if jvm is None:
        assert on_jvm is None, f"the JVM refused too: {on_jvm}"
        assert refused.name == "ID_TYPE_NOT_SEEDABLE", said
    elif jvm == "same":  # one refusal: the same catalogued name (a worker's travels in its text), the same words
        assert on_jvm is not None, "the JVM did not refuse"
        assert (refused.name, said) == (on_jvm.name, str(on_jvm))
    else:
        assert re.search(jvm, said) and re.search(jvm, str(on_jvm or "")), (said, on_jvm)
