#!/usr/bin/env python3
"""The top frames of a JFR recording's CPU samples (jdk.ExecutionSample), for the benchmarks' profile runs.

    python3 scripts/bench/lib/jfr_top.py RECORDING.jfr [top=25]

Prints, over all sampled Java threads: the methods most often at the top of the stack (self time), and the
share of samples whose stack holds each of a few named areas (inclusive): dptext's tokenizing and sampling,
Spark's JSON reading, Parquet writing, shuffle, code generation and compilation, Delta. Reads the recording
with the JDK's `jfr print --json`.
"""

import collections
import json
import subprocess
import sys

AREAS = [
    ("dptext: tokenize / assemble", ("dev.dptext.text.",)),
    ("dptext: sampling", ("dev.dptext.mechanism.", "dev.dptext.random.")),
    ("dptext: all", ("dev.dptext.",)),
    ("JSON read (Jackson, Spark's JSON parser)", ("org.apache.spark.sql.catalyst.json.", "com.fasterxml.jackson.")),
    ("Parquet write", ("org.apache.parquet.", "org.apache.spark.sql.execution.datasources.parquet.")),
    ("shuffle", ("org.apache.spark.shuffle.", "org.apache.spark.util.collection.")),
    ("code generation / Janino", ("org.codehaus.janino.", "org.codehaus.commons.", "org.apache.spark.sql.catalyst.expressions.codegen.")),
    ("Delta", ("org.apache.spark.sql.delta.", "io.delta.")),
    ("compression (zstd/snappy/lz4)", ("com.github.luben.", "org.xerial.snappy.", "net.jpountz.")),
]


def frames(event):
    stack = event.get("values", {}).get("stackTrace") or {}
    for f in stack.get("frames", []):
        m = f.get("method", {})
        yield m.get("type", {}).get("name", "?").replace("/", ".") + "." + m.get("name", "?")


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", path],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    self_counts = collections.Counter()
    area_counts = collections.Counter()
    for e in events:
        fs = list(frames(e))
        if not fs:
            continue
        self_counts[fs[0]] += 1
        for name, prefixes in AREAS:
            if any(f.startswith(prefixes) for f in fs):
                area_counts[name] += 1
    n = sum(self_counts.values())
    print(f"{n} CPU samples")
    print("\nareas (inclusive: samples whose stack holds the area)")
    for name, _ in AREAS:
        print(f"  {100.0 * area_counts[name] / max(n, 1):5.1f} %  {name}")
    print(f"\ntop {top} frames (self)")
    for f, c in self_counts.most_common(top):
        print(f"  {100.0 * c / n:5.1f} %  {f}")


if __name__ == "__main__":
    main()
