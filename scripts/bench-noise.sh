#!/usr/bin/env bash
# Embedding-noise mechanisms (Laplace, Mahalanobis, Vickrey; BRR for scale) on one core, V = 100,000
# GloVe 100-d words, batched per IMDb review as the job batches them, on each nearest-word backend in
# one run: native OpenBLAS (pinned to one thread), the pure-Java Vector API kernel (native library
# hidden), and netlib's Java SGEMM (the fallback without native BLAS and without the Vector API;
# Laplace only). Then the kernels alone, side by side in one JVM, at several batch sizes.
# Results go to BENCHMARKS.md by hand.
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
NO_NATIVE=-Ddev.ludovic.netlib.blas.nativeLib=dptext-no-native.so
bench() { # <java flags...> -- <mechanisms>
  local flags=()
  while [[ "$1" != -- ]]; do flags+=("$1"); shift; done
  OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS "${flags[@]}" -Xmx6g -cp "$CP" dev.dptext.bench.NoiseMechanismBenchmark \
    "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" 100000 "$REVIEWS" "$2" 2>&1 | grep -v -E "WARN|InstanceBuilder"
}
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "== native BLAS, one thread"
bench -Ddptext.knn.backend=native -- laplace,mahalanobis,vickrey,brr
echo "== pure Java: Vector API kernel (native library hidden)"
bench "$NO_NATIVE" -Ddptext.knn.backend=vector -- laplace,mahalanobis,vickrey
echo "== pure Java: netlib Java SGEMM (no native BLAS, no Vector API kernel)"
bench "$NO_NATIVE" -Ddptext.knn.backend=java -- laplace
echo "== the kernels alone, one JVM, 4,000 Laplace-noised words (ε=10) per measurement"
OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS -Xmx6g -cp "$CP" dev.dptext.bench.NearestWordsBenchmark \
  "$CACHE/glove.6B.100d.txt" 100000 4000 10 16,64,250,1000 2>&1 | grep -v -E "WARN|InstanceBuilder"
