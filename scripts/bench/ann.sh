#!/usr/bin/env bash
# Approximate nearest-word search (nearestSearch=hnsw) against exact search, on one machine:
#  1. the search alone, one thread (AnnBenchmark): HNSW build time, queries/s and recall@1 per efSearch,
#     GloVe 6B 100-d top V words, Laplace-shaped noise at ε;
#  2. the job, Laplace ε, over the first N IMDb reviews, exact then hnsw (model built once to
#     $DPTEXT_ANN_MODEL): the run summaries (tokens/s; hnsw also its recall) and the HNSW build log line.
# Results go to BENCHMARKS.md by hand. Run under the exclusive CPU lock:
#   flock -x /tmp/dptext-cpu.lock scripts/bench/ann.sh [reviews=500] [vocabulary=100000] [epsilon=10]
# (MAVEN_ARGS, e.g. "-o -Dmaven.repo.local=...", is passed to the build.)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS="${1:-500}"
VOCAB="${2:-100000}"
EPSILON="${3:-10}"
MODEL="${DPTEXT_ANN_MODEL:-/tmp/ann-${VOCAB}.dptext}"
WORK="$(mktemp -d /tmp/dptext-bench-ann.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
scripts/data/fetch-data.sh >&2
./mvnw -q -B ${MAVEN_ARGS:-} -DskipTests package dependency:build-classpath -pl benchmarks,spark-job -am \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=provided >/dev/null
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml)
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
echo "== the search alone, one thread"
java $MODULE_OPTIONS -Xmx8g -cp "benchmarks/target/classes:udfs/target/classes:$(cat benchmarks/target/bench.cp)" \
  dev.dptext.bench.AnnBenchmark "$CACHE/glove.6B.100d.txt" "$VOCAB" 4000 "$EPSILON" 16,32,64,128,256 2>&1 \
  | grep -v -E "WARN|InstanceBuilder"
if [[ ! -f "$MODEL" ]]; then
  scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" --vocab-size "$VOCAB" --output "$MODEL" >&2
fi
head -n "$REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$WORK/reviews.jsonl"
(umask 077; openssl rand -hex 32 > "$WORK/key")
for search in exact hnsw; do
  echo "== job: laplace ε=$EPSILON, $REVIEWS reviews, nearestSearch=$search"
  scripts/dptext sanitize --input "$WORK/reviews.jsonl" --input-format json --text-column review --id-column id \
    --model "$MODEL" --mechanism laplace --epsilon "$EPSILON" --nearest-search "$search" \
    --key-file "$WORK/key" --output "$WORK/out-$search" --output-format parquet 2>&1 \
    | grep -E "^  |HNSW index|nearest-word search uses" | grep -v -E "model  |randomness"
done
