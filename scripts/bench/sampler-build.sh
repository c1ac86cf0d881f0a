#!/usr/bin/env bash
# The SanText+ sampler's table build at model load, Vector API against scalar distances
# (BENCHMARKS.md "Fixed cost of a run"): SamplerBuildBenchmark in alternating fresh JVMs, with
# and without --add-modules=jdk.incubator.vector (without it the distances take the scalar path; the
# tables are the same either way), each printing its cold build and warm rebuilds.
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/sampler-build.sh [model.dptext] [pairs=3]
#
# The model defaults to the artifact scripts/bench/fixed-cost.sh builds
# ($DPTEXT_DATA/fixed-cost/default.dptext, the embedded default vocabulary: 25,000 words × 100).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
MODEL=${1:-$CACHE/fixed-cost/default.dptext}
PAIRS=${2:-3}
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
[[ -f $MODEL ]] || { echo "bench-sampler-build: no $MODEL (scripts/bench/fixed-cost.sh builds it)" >&2; exit 2; }
BENCH_JAR=$(ls "$ROOT"/benchmarks/target/dptext-benchmarks-*.jar | head -n 1)
CP="$BENCH_JAR:$(ls "$ROOT"/spark-job/target/dptext-spark-job-*-shaded.jar | head -n 1):$(cat "$ROOT/spark-job/target/classpath-provided.txt")"
# Spark's module flags without the incubator module, for the scalar side.
SCALAR_OPTIONS=$(echo "$MODULE_OPTIONS" | sed 's/--add-modules=jdk.incubator.vector//')
echo "== bench-sampler-build: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD); $(nproc) cores," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((p = 1; p <= PAIRS; p++)); do
  # shellcheck disable=SC2086
  java -Xmx4g $MODULE_OPTIONS -cp "$CP" dev.dptext.bench.SamplerBuildBenchmark "$MODEL" 3 2>/dev/null
  # shellcheck disable=SC2086
  java -Xmx4g $SCALAR_OPTIONS -cp "$CP" dev.dptext.bench.SamplerBuildBenchmark "$MODEL" 3 2>/dev/null
done
