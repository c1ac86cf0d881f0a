#!/usr/bin/env bash
# Embedding-noise mechanisms (Laplace, Mahalanobis, Vickrey) on one core, GloVe 100-d words, batched
# per IMDb review as the job batches them, each at an ε where it changes ~90 % of tokens and one where
# it keeps ~70 % (N_w printed beside each figure). Nearest-word configurations alternate JVM by JVM
# in one run (rounds × configurations): the default choice of this build, the Vector API kernel forced
# to 256-bit vectors (what AVX2 CPUs run), and native OpenBLAS pinned to one thread (what earlier builds
# chose on AVX-512 CPUs). Then the kernels alone, side by side in one JVM, at two batch sizes.
# Results go to BENCHMARKS.md by hand. Run under the exclusive CPU lock:
#   flock -x /tmp/dptext-cpu.lock scripts/bench/noise.sh [reviews=100] [vocabulary=100000] [rounds=2]
# DPTEXT_SKIP_BUILD=1 and DPTEXT_MVN_ARGS as in scripts/bench/lib/bench-build.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS="${1:-100}"
VOCAB="${2:-100000}"
ROUNDS="${3:-2}"
SPECS="${DPTEXT_BENCH_SPECS:-laplace:epsilon=6;laplace:epsilon=12;mahalanobis:epsilon=6,lambda=0.5;mahalanobis:epsilon=12,lambda=0.5;vickrey:epsilon=6,t=0.5;vickrey:epsilon=25,t=0.3}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_native_blas
bench_build benchmarks
CP=$(bench_classpath)
bench() { # <label> <java flags...>
  local label="$1"; shift
  echo "== $label"
  # shellcheck disable=SC2086 # MODULE_OPTIONS is a list of flags
  OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS "$@" -Xmx8g -cp "$CP" dev.dptext.bench.NoiseMechanismBenchmark \
    "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" "$VOCAB" "$REVIEWS" "$SPECS" 2>&1 | grep -v -E "WARN|InstanceBuilder"
}
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
for ((round = 1; round <= ROUNDS; round++)); do
  bench "round $round: this build's default"
  bench "round $round: Vector API kernel at 256 bits" -Ddptext.knn.backend=vector -Ddptext.knn.vectorBits=256
  bench "round $round: native OpenBLAS" -Ddptext.knn.backend=native
done
echo "== the kernels alone, one JVM, 4,000 Laplace-noised words (ε=10) per measurement"
# shellcheck disable=SC2086
OPENBLAS_NUM_THREADS=1 java $MODULE_OPTIONS -Xmx8g -cp "$CP" dev.dptext.bench.NearestWordsBenchmark \
  "$CACHE/glove.6B.100d.txt" "$VOCAB" 4000 10 250,1000 2>&1 | grep -v -E "WARN|InstanceBuilder"
