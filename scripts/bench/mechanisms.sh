#!/usr/bin/env bash
# Every mechanism side by side in one JVM at matched privacy: each at the ε that gives it the
# multivariate Laplace mechanism's privacy ratio at ε_ref (BRR §5, from 200,000 sampled word pairs), on
# GloVe 6B 100-d words and IMDb reviews, one thread, batched per review as the job batches them. Prints
# per mechanism the sampler's build, tokens/s and N_w (tokens kept). Results go to BENCHMARKS.md by hand.
# Run under the exclusive CPU lock:
#   flock -x /tmp/dptext-cpu.lock scripts/bench/mechanisms.sh [reviews=200] [vocabulary=50000] [ε_ref=10]
# DPTEXT_BENCH_SPECS overrides the mechanisms ('|'-separated, without ε); DPTEXT_SKIP_BUILD=1 and
# DPTEXT_MVN_ARGS as in scripts/bench/lib/bench-build.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS="${1:-200}"
VOCAB="${2:-50000}"
EPSILON="${3:-10}"
SPECS="${DPTEXT_BENCH_SPECS:-santext|santext+:w=0.9,p=0.3|laplace|mahalanobis:lambda=0.5|vickrey:t=0.5|vickrey-topk:t=0;0.5;1|brr:bits=256|tem|custext|1-diffractor}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_native_blas
bench_build benchmarks
CP=$(bench_classpath)
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
# shellcheck disable=SC2086 # MODULE_OPTIONS is a list of flags
OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS -Xmx8g -cp "$CP" dev.dptext.bench.MechanismComparison \
  "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" "$VOCAB" "$REVIEWS" "$EPSILON" "$SPECS" 2>&1 \
  | grep -v -E "WARN|InstanceBuilder"
