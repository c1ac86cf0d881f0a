#!/usr/bin/env bash
# The exponential sampler's proposal test (SanText/SanText+'s uniform branch): the scalar
# Embeddings.squaredDistanceBelow against the Vector API kernel RowDistances.squaredDistanceBelow uses,
# alternating in one JVM on the tests a SanText+ run of IMDb reviews asks, then the whole sampling with
# each as the test (dev.dptext.bench.ProposalTestBenchmark; both checked to give the same bits).
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/proposal-test.sh [model.dptext] [tokens=400000] [epsilon=3]
#
# The model defaults to the embedded default vocabulary (25,000 words × 100), built once into
# $DPTEXT_DATA/fixed-cost/ as scripts/bench/fixed-cost.sh does.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
if [[ -n "${1:-}" ]]; then
  MODEL=$1
else
  mkdir -p "$CACHE/fixed-cost"
  bench_key_and_model "$CACHE/fixed-cost"
fi
echo "== proposal-test: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD); $(nproc) cores," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
java -Xmx4g $MODULE_OPTIONS -cp "$(bench_classpath)" dev.dptext.bench.ProposalTestBenchmark "$MODEL" \
  "$CACHE/imdb-reviews.jsonl" "${2:-400000}" "${3:-3}"
