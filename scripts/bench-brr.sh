#!/usr/bin/env bash
# BRR on one core: (1) the mechanism alone, batched per review, next to the plain algorithm it replaced
# (per-bit uniforms, full scan) at several ε; (2) with --jobs, whole sanitize jobs BRR vs Laplace,
# back to back on local[1] from a prebuilt model artifact, reporting whole-wall and sanitize-phase
# tokens/s. Results go to BENCHMARKS.md by hand. Run under the exclusive CPU lock:
#   flock -x /tmp/dptext-cpu.lock scripts/bench-brr.sh [--jobs] [reviews=200] [job reviews=2000]
# Builds with `package` (never `install`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
JOBS=0
if [[ "${1:-}" == "--jobs" ]]; then JOBS=1; shift; fi
REVIEWS="${1:-200}"
JOB_REVIEWS="${2:-2000}"
VOCAB=100000
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
if [[ "${DPTEXT_SKIP_BUILD:-0}" != 1 ]]; then
  ./mvnw -q -B -ntp -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/bench.cp \
    -Dmdep.includeScope=provided >/dev/null
fi
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml)
if [[ $JOBS == 0 ]]; then
  CP="benchmarks/target/classes:udfs/target/classes:$(cat benchmarks/target/bench.cp)"
  echo "== BRR mechanism, one thread, V=$VOCAB, $REVIEWS reviews"
  java $MODULE_OPTIONS -Xmx4g -cp "$CP" dev.dptext.bench.BrrBenchmark \
    "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" $VOCAB "$REVIEWS" 2>&1 | grep -v -E "WARN|InstanceBuilder"
  exit 0
fi
# Whole jobs: one prebuilt model (V = 100,000), the first $JOB_REVIEWS reviews, local[1].
WORK="${DPTEXT_BENCH_DIR:-/tmp/dptext-bench-brr}"
mkdir -p "$WORK"
MODEL="$WORK/glove-6B-100d-100k.dptext"
if [[ ! -f "$MODEL" ]]; then
  scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" --vocab-size $VOCAB --output "$MODEL" >&2
fi
INPUT="$WORK/reviews-$JOB_REVIEWS.jsonl"
head -n "$JOB_REVIEWS" "$CACHE/imdb-reviews.jsonl" >"$INPUT"
export OPENBLAS_NUM_THREADS=1
export DPTEXT_JAVA_OPTS="-Xmx8g -Dspark.master=local[1]"
run() { # name, mechanism flags...
  local name="$1"; shift
  rm -rf "$WORK/out-$name"
  local t0 t1
  t0=$(date +%s.%N)
  scripts/dptext sanitize --input "$INPUT" --text-column review --id-column id --model "$MODEL" \
    --output "$WORK/out-$name" --output-format parquet "$@" >"$WORK/$name.log" 2>&1 || { cat "$WORK/$name.log"; exit 1; }
  t1=$(date +%s.%N)
  echo "$name: whole wall $(echo "$t1 - $t0" | bc) s"
  grep -i -E "tokens|sanitiz|elapsed|seconds" "$WORK/$name.log" | grep -v -i warn | tail -n 6
}
run brr --mechanism brr --epsilon 2 --bits 256
run laplace --mechanism laplace --epsilon 10
run brr-again --mechanism brr --epsilon 2 --bits 256
