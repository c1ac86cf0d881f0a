#!/usr/bin/env bash
# The model build's neighbour search: the SanText table (targets = the whole vocabulary,
# the build's tiered rows of K = 64) over the first V GloVe 100-d words, timed in NeighbourSearch.compute
# alone (ModelBuildBenchmark), for this build — the score kernel of NearestWords, the fused Vector API
# kernel wherever it runs — and for an earlier build whose search scored with BLAS SGEMM (default: commit
# 00dfc31, native OpenBLAS when libblas.so.3 loads), on one and two threads, alternating JVM by JVM
# (rounds × V × threads × builds). Each timed JVM holds the exclusive CPU lock; builds do not. Then the
# two builds' tables are compared row by row and bound by bound.
#   scripts/bench/model-build.sh [V list=25000,100000] [rounds=2] [old commit=00dfc31]
# DPTEXT_MVN_ARGS passes extra arguments to Maven (e.g. -Dmaven.repo.local=...), for both builds;
# DPTEXT_SKIP_BUILD=1 skips this build's (scripts/bench/lib/bench-build.sh). Results go to BENCHMARKS.md by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
VOCABS="${1:-25000,100000}"
ROUNDS="${2:-2}"
OLD="${3:-00dfc31}"
LOCK="${DPTEXT_CPU_LOCK:-/tmp/dptext-cpu.lock}"
# shellcheck disable=SC2206
MVN_ARGS=(${DPTEXT_MVN_ARGS:-})
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_native_blas
bench_build benchmarks
# The earlier build, from git archive (the repository is not touched).
OLD_DIR="$ROOT/target/bench-old-$(git rev-parse --short "$OLD")"
if [[ ! -d "$OLD_DIR/udfs/target/classes/dev" ]]; then
  rm -rf "$OLD_DIR" && mkdir -p "$OLD_DIR"
  git archive "$OLD" | tar -x -C "$OLD_DIR"
  (cd "$OLD_DIR" && ./mvnw -q -B -ntp "${MVN_ARGS[@]}" -DskipTests package -pl udfs >/dev/null)
fi
DEPS="$(cat benchmarks/target/bench.cp)"
DUMPS="$(mktemp -d)"
trap 'rm -rf "$DUMPS"' EXIT
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC')"
echo "== CPU flags: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E 'avx|fma' | tr '\n' ' ')"
echo "== new: commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- udfs || echo ' + uncommitted changes'); old: commit $(git rev-parse --short "$OLD")"
run() { # <label> <udfs classes> <V> <threads> <repeats> [dump]
  local label="$1" classes="$2"; shift 2
  echo "== $label"
  # shellcheck disable=SC2086 # MODULE_OPTIONS is a list of flags
  OPENBLAS_NUM_THREADS=1 flock -x "$LOCK" java $MODULE_OPTIONS -Xmx4g -cp "benchmarks/target/classes:$classes:$DEPS" \
    dev.dptext.bench.ModelBuildBenchmark "$CACHE/glove.6B.100d.txt" "$@" 2>&1 \
    | grep -E "^V=|^scores:"
}
for ((round = 1; round <= ROUNDS; round++)); do
  for v in ${VOCABS//,/ }; do
    for threads in 1 2; do
      dump=()
      [[ $round == 1 && $threads == 2 ]] && dump=(1 "$DUMPS/old-$v")
      run "round $round, V=$v, $threads thread(s): old (BLAS, $OLD)" "$OLD_DIR/udfs/target/classes" "$v" "$threads" "${dump[@]}"
      [[ $round == 1 && $threads == 2 ]] && dump=(1 "$DUMPS/new-$v")
      run "round $round, V=$v, $threads thread(s): new (score kernel)" "udfs/target/classes" "$v" "$threads" "${dump[@]}"
    done
  done
done
for v in ${VOCABS//,/ }; do
  echo "== V=$v: old vs new tables"
  java -cp "benchmarks/target/classes:udfs/target/classes:$DEPS" dev.dptext.bench.ModelBuildBenchmark compare \
    "$DUMPS/old-$v" "$DUMPS/new-$v"
done
