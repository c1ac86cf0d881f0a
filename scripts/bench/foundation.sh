#!/usr/bin/env bash
# Foundation benchmarks on real data (results go to BENCHMARKS.md by hand, with the date and machine):
#   1. build-model: GloVe 6B 100-d, top 74,000 words, neighbour tables for SanText and SanText+ w=0.9
#   2. the sampler hot path on one thread, next to the O(|V|)-per-token reference algorithm
#   3. the whole sanitize job over the 50,000 IMDb reviews, SanText+ ε=3 w=0.9 p=0.3, written to Delta
# Usage: scripts/bench/foundation.sh   (DPTEXT_DATA overrides the cache dir, default ~/.cache/dptext;
# DPTEXT_SKIP_BUILD=1 and DPTEXT_MVN_ARGS as in scripts/bench/lib/bench-build.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_build job # the job for build-model and sanitize, the benchmarks module for the sampler
MODEL="$CACHE/glove-6B-100d-74k.dptext"
export DPTEXT_KEY="${DPTEXT_KEY:-$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')}"

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
echo "== 1. build-model (74,000 words)"
if [[ ! -s "$MODEL" || "${REBUILD:-0}" == 1 ]]; then
  TIMEFORMAT="build-model wall %R s"
  time scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" \
    --vocab-size 74000 --output "$MODEL" 2>&1 | grep -v WARN
else
  echo "(cached: $MODEL; REBUILD=1 to rebuild)"
fi

echo "== 2. sampler hot path"
mkdir -p target
# shellcheck disable=SC2086
java $MODULE_OPTIONS -Xmx6g -cp "$(bench_classpath)" \
  dev.dptext.bench.SamplerBenchmark "$MODEL" "$CACHE/imdb-reviews.jsonl" 3000000 2>&1 | grep -v -E "WARN|InstanceBuilder"

echo "== 3. sanitize job: 50,000 IMDb reviews, SanText+ ε=3 w=0.9 p=0.3, Delta output"
OUT="$(mktemp -d)/imdb-sanitized"
TIMEFORMAT="sanitize wall %R s (JVM start to exit)"
time scripts/dptext sanitize \
  --input "$CACHE/imdb-reviews.jsonl" --text-column review --id-column id --model "$MODEL" \
  --mechanism santext+ --epsilon 3 --w 0.9 --p 0.3 --output "$OUT" 2>&1 | grep -v WARN
rm -rf "$(dirname "$OUT")"
