#!/usr/bin/env bash
# The token → word lookup: the vocabulary's open-addressing index against a HashMap, alternating in one JVM
# (dev.dptext.bench.WordLookupBenchmark; results in BENCHMARKS.md, "Scheduled runs").
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/word-lookup.sh [vocabulary=25000]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build benchmarks
echo "== word-lookup: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD); load $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "$(bench_classpath)" dev.dptext.bench.WordLookupBenchmark "$CACHE/glove.6B.100d.txt" \
  "$CACHE/imdb-reviews.jsonl" "${1:-25000}"
