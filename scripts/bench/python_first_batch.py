"""The Python side of scripts/bench/python-first-batch.sh: what a new Python worker pays before and in its first
batch. It loads what Spark's pandas-UDF worker has loaded before it unpickles dptext's function (pyspark.worker,
pandas, pyarrow), then times, wall and CPU: importing the engine, the first batch of N IMDb reviews (the model
opened, the mechanism's tables, the tokenizer's first sight of the pieces) and the same batch again (the steady
cost). The model is the wheel's default; the machine's distance cache is ``DPTEXT_MODEL_CACHE``.

    python python_first_batch.py REVIEWS_JSONL N MECHANISM
"""

from __future__ import annotations

import itertools
import json
import sys
import time


def main(reviews: str, n: str, mechanism: str) -> None:
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401
    import pyspark.sql.pandas.serializers
    import pyspark.worker  # noqa: F401

    with open(reviews) as f:
        rows = [json.loads(line) for line in itertools.islice(f, int(n))]
    texts = [r["review"] for r in rows]
    ids = [str(r["id"]).encode() for r in rows]

    marks = [(time.perf_counter(), time.process_time())]
    from dptext.engine import (
        sanitizer,
        spark,  # noqa: F401  (what the worker's unpickling imports)
    )
    from dptext.engine.keys import SecretKey

    marks.append((time.perf_counter(), time.process_time()))
    conf = {"mechanism": mechanism, "model": "default", "idMode": "column"}
    engine = sanitizer.PythonSanitizer(sanitizer.EngineSettings.resolve(conf), SecretKey.parse("00" * 32, "bench"))
    engine.sanitize(texts, ids)
    marks.append((time.perf_counter(), time.process_time()))
    engine.sanitize(texts, ids)
    marks.append((time.perf_counter(), time.process_time()))
    parts = ("import", "first batch", "second batch")
    print(
        f"{mechanism} {n} reviews: "
        + ", ".join(
            f"{p} {b[0] - a[0]:.2f} s wall / {b[1] - a[1]:.2f} s CPU"
            for p, a, b in zip(parts, marks[:-1], marks[1:], strict=True)
        )
        # What the first batch costs beyond the steady state (the "first batch" cost).
        + f"; first over second {(marks[2][0] - marks[1][0]) - (marks[3][0] - marks[2][0]):.2f} s wall"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
