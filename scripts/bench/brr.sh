#!/usr/bin/env bash
# BRR on one core: (1) the mechanism alone, batched per review, next to the plain algorithm it replaced
# (per-bit uniforms, full scan) and the scalar full-scan kernel, at several ε (BRR_EPSILONS, default
# "0.57 1 2 4"); the search kernel is the one this JVM chooses, or BRR_KERNEL (scalar or vector, the
# vector kernel at the JVM's width); BRR_JAVA_OPTS adds JVM options (e.g. -Ddptext.knn.vectorBits=256
# for the vector kernel's 256-bit width, or -XX:UseAVX=2 to run as on an AVX2-only CPU).
# (2) With --jobs, whole sanitize jobs BRR vs Laplace, back to back on local[1] from a prebuilt model
# artifact, reporting whole-wall and sanitize-phase tokens/s: BRR at ε = 0.57 (the ε matching Laplace
# ε = 10 by the privacy ratio), BRR at ε = 2 (the case where no in-vocabulary word changes), and
# Laplace ε = 10; BRR_JOB_KERNELS="scalar" adds matched-ε BRR jobs forced to that kernel.
# Results go to BENCHMARKS.md by hand. Run under the exclusive CPU lock:
#   flock -x /tmp/dptext-cpu.lock scripts/bench/brr.sh [--jobs] [reviews=200] [job reviews=2000]
# Builds with `package` (never `install`); DPTEXT_SKIP_BUILD=1 and DPTEXT_MVN_ARGS as in
# scripts/bench/lib/bench-build.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
JOBS=0
if [[ "${1:-}" == "--jobs" ]]; then JOBS=1; shift; fi
REVIEWS="${1:-200}"
JOB_REVIEWS="${2:-2000}"
VOCAB=100000
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
if [[ $JOBS == 0 ]]; then
  bench_build benchmarks
  CP=$(bench_classpath)
  KERNEL_OPT=()
  if [[ -n "${BRR_KERNEL:-}" ]]; then KERNEL_OPT=("-Ddptext.brr.kernel=$BRR_KERNEL"); fi
  echo "== BRR mechanism, one thread, V=$VOCAB, $REVIEWS reviews ${BRR_KERNEL:+kernel $BRR_KERNEL }${BRR_JAVA_OPTS:-}"
  # shellcheck disable=SC2086
  java $MODULE_OPTIONS -Xmx4g ${BRR_JAVA_OPTS:-} "${KERNEL_OPT[@]}" -cp "$CP" dev.dptext.bench.BrrBenchmark \
    "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" $VOCAB "$REVIEWS" ${BRR_EPSILONS:-0.57 1 2 4} 2>&1 \
    | grep -v -E "WARN|InstanceBuilder"
  exit 0
fi
# Whole jobs: one prebuilt model (V = 100,000), the first $JOB_REVIEWS reviews, local[1].
bench_build job
WORK="${DPTEXT_BENCH_DIR:-/tmp/dptext-bench-brr}"
mkdir -p "$WORK"
MODEL="$WORK/glove-6B-100d-100k.dptext"
if [[ ! -f "$MODEL" ]]; then
  scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" --vocab-size $VOCAB --output "$MODEL" >&2
fi
SMALL=20
head -n "$JOB_REVIEWS" "$CACHE/imdb-reviews.jsonl" >"$WORK/reviews-large.jsonl"
head -n "$SMALL" "$CACHE/imdb-reviews.jsonl" >"$WORK/reviews-small.jsonl"
export OPENBLAS_NUM_THREADS=1
export DPTEXT_JAVA_OPTS="-Xmx8g -Dspark.master=local[1]"
# A throwaway RNG key for the benchmark runs (keyed per row as in production; never printed).
DPTEXT_KEY=$(openssl rand -hex 32)
export DPTEXT_KEY
# Prints: name wall-seconds job-elapsed-seconds tokens
run() { # name, size (small|large), mechanism flags...
  local name="$1" size="$2"; shift 2
  rm -rf "$WORK/out-$name-$size"
  local t0 t1
  t0=$(date +%s.%N)
  scripts/dptext sanitize --input "$WORK/reviews-$size.jsonl" --text-column review --id-column id --model "$MODEL" \
    --output "$WORK/out-$name-$size" --output-format parquet "$@" >"$WORK/$name-$size.log" 2>&1 || { cat "$WORK/$name-$size.log"; exit 1; }
  t1=$(date +%s.%N)
  local elapsed tokens
  elapsed=$(sed -n 's/^ *elapsed *\([0-9.]*\) s.*/\1/p' "$WORK/$name-$size.log")
  tokens=$(sed -n 's/^ *tokens *\([0-9,]*\)$/\1/p' "$WORK/$name-$size.log" | tr -d ,)
  if [[ -z "$elapsed" || -z "$tokens" ]]; then
    echo "no run summary in $WORK/$name-$size.log" >&2; tail -n 5 "$WORK/$name-$size.log" >&2; exit 1
  fi
  echo "$name $size $(echo "$t1 - $t0" | bc) $elapsed $tokens"
}
report() { # name, flags...: whole-wall tokens/s on the large input; sanitize phase = marginal cost large − small
  local name="$1"; shift
  local line
  line=$(run "$name" large "$@") || exit 1
  read -r _ _ wl el tl <<<"$line"
  line=$(run "$name" small "$@") || exit 1
  read -r _ _ ws es ts <<<"$line"
  printf "%-8s large: %s tokens, whole wall %.1f s (%.0f tokens/s), job elapsed %.1f s (%.0f tokens/s); small: %s tokens, wall %.1f s; sanitize phase (large − small): %.0f tokens/s\n" \
    "$name" "$tl" "$wl" "$(echo "$tl / $wl" | bc -l)" "$el" "$(echo "$tl / $el" | bc -l)" "$ts" "$ws" "$(echo "($tl - $ts) / ($el - $es)" | bc -l)"
}
echo "== whole jobs, local[1], OPENBLAS_NUM_THREADS=1, model $MODEL, first $JOB_REVIEWS / $SMALL reviews"
report brr-0.57 --mechanism brr --epsilon 0.57 --bits 256
for k in ${BRR_JOB_KERNELS:-}; do
  DPTEXT_JAVA_OPTS="-Xmx8g -Dspark.master=local[1] -Ddptext.brr.kernel=$k" report "brr-0.57-$k" --mechanism brr --epsilon 0.57 --bits 256
done
echo "(BRR ε = 2: the case where no in-vocabulary word changes; not matched privacy)"
report brr-2 --mechanism brr --epsilon 2 --bits 256
report laplace --mechanism laplace --epsilon 10
