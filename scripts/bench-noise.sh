#!/usr/bin/env bash
# Embedding-noise mechanisms (Laplace, Mahalanobis, Vickrey) on one core, V = 100,000 GloVe 100-d
# words, batched per IMDb review as the job batches them: native OpenBLAS (pinned to one thread)
# and netlib's pure-Java path, side by side in one run. Results go to BENCHMARKS.md by hand.
# Usage: scripts/bench-noise.sh [reviews=200]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS="${1:-200}"
scripts/fetch-data.sh >&2
scripts/setup-native-blas.sh >&2
# Build in the reactor (no install: the local repository is shared); the classpath file then names
# the sibling module's fresh jar, not a stale snapshot.
./mvnw -q -B -DskipTests package dependency:build-classpath -pl benchmarks -am \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=provided >/dev/null
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml)
CP="benchmarks/target/classes:udfs/target/classes:$(cat benchmarks/target/bench.cp)"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "== native BLAS, one thread"
OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS -Xmx6g -cp "$CP" dev.dptext.bench.NoiseMechanismBenchmark \
  "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" 100000 "$REVIEWS" 2>&1 | grep -v -E "WARN|InstanceBuilder"
echo "== pure-Java BLAS (native library hidden)"
java $MODULE_OPTIONS -Ddev.ludovic.netlib.blas.nativeLib=dptext-no-native.so -Xmx6g -cp "$CP" \
  dev.dptext.bench.NoiseMechanismBenchmark "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" 100000 "$REVIEWS" \
  2>&1 | grep -v -E "WARN|InstanceBuilder"
