"""The Python side of scripts/bench/python-engine.sh: the Python engine's sanitizer on one thread over the
first N IMDb reviews, seeded by their ids, with the same model file and key as the JVM side. Prints the
build (the first pass: tables computed for the words used) and the steady rate (the third pass; the second
pass's in brackets, which still pays the kernel's first touch of memory the first pass did not use: ~0.13 s of
system time on TEM's 10,000 reviews, ~0.01 s in the third), tokens (OOV included) per second of CPU time, and a
digest of the rows (the JVM side prints its own: equal digests, the same rows).

    python python_engine.py MODEL REVIEWS_JSONL N SETTINGS_JSON
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from dptext.engine import sanitizer, text  # noqa: E402
from dptext.engine.keys import SecretKey  # noqa: E402


def main(model: str, reviews: str, n: str, settings: str) -> None:
    rows = []
    with open(reviews) as f:
        for line in itertools.islice(f, int(n)):
            row = json.loads(line)
            rows.append((row["id"], row["review"]))
    conf = {**json.loads(settings), "model": model, "idMode": "column"}
    engine = sanitizer.PythonSanitizer(sanitizer.EngineSettings.resolve(conf), SecretKey.parse("00" * 32, "bench"))
    texts = [r[1] for r in rows]
    ids = [str(r[0]).encode() for r in rows]
    start = time.perf_counter()
    engine.sanitize(texts, ids)
    build = time.perf_counter() - start
    cpus = []
    for _ in range(2):
        cpu = time.process_time()
        out = engine.sanitize(texts, ids)
        cpus.append(time.process_time() - cpu)
    second, cpu = cpus
    digest = hashlib.sha256("".join(o + "\n" for o in out).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    tokens = 0
    for t in texts:
        tk = text.tokenize(t, engine.vocabulary)
        tokens += len(tk.ranks) + tk.oov_count
    print(f"python {conf['mechanism']}: first pass {build:.2f} s (wall, tables included), steady {cpu:.3f} s CPU, "
          f"{tokens} tokens, {tokens / cpu:.0f} tokens/s (second pass {tokens / second:.0f}), rows sha256 {digest}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
