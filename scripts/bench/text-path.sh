#!/usr/bin/env bash
# The whole text path of a row on one thread (tokenize, SanText+ draws, assemble), warm, over the first
# N IMDb reviews: dev.dptext.bench.TextPathBenchmark. With BASELINE=<another checkout, built with
# package>, JVMs of this build and of the baseline's alternate (the same benchmark class, each build's
# own dptext classes), for a side-by-side figure (BENCHMARKS.md, "The text path").
#
#   DPTEXT_SKIP_BUILD=1 [BASELINE=<checkout>] flock -x /tmp/dptext-cpu.lock scripts/bench/text-path.sh \
#     [reviews=5000] [rounds=5] [pairs=3] [model=~/.cache/dptext/fixed-cost/default.dptext]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS=${1:-5000}
ROUNDS=${2:-5}
PAIRS=${3:-3}
MODEL=${4:-$CACHE/fixed-cost/default.dptext}
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
[[ -f $MODEL ]] || { echo "bench-text-path: no $MODEL (scripts/bench/fixed-cost.sh builds it)" >&2; exit 2; }
[[ -f "$CACHE/imdb-reviews.jsonl" ]] || { echo "bench-text-path: run scripts/data/fetch-data.sh" >&2; exit 2; }
BENCH_JAR=$(ls "$ROOT"/benchmarks/target/dptext-benchmarks-*.jar | head -n 1)
PROVIDED=$(cat "$ROOT/spark-job/target/classpath-provided.txt")
shaded() { ls "$1"/spark-job/target/dptext-spark-job-*-shaded.jar | head -n 1; }
echo "== bench-text-path: $REVIEWS reviews, best of $ROUNDS rounds, $PAIRS pairs; $(date -u +%FT%TZ), commit" \
  "$(git rev-parse --short HEAD)${BASELINE:+, baseline $(git -C "$BASELINE" rev-parse --short HEAD)}; $(nproc) cores," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((p = 1; p <= PAIRS; p++)); do
  for build in this ${BASELINE:+baseline}; do
    dir=$ROOT
    [[ $build == baseline ]] && dir=$BASELINE
    echo -n "$build: "
    # shellcheck disable=SC2086
    java -Xmx4g $MODULE_OPTIONS -cp "$BENCH_JAR:$(shaded "$dir"):$PROVIDED" dev.dptext.bench.TextPathBenchmark \
      "$MODEL" "$CACHE/imdb-reviews.jsonl" "$REVIEWS" "$ROUNDS" 2>/dev/null
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
