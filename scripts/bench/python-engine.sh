#!/usr/bin/env bash
# The Python engine against the JVM's sanitizer, side by side, one thread each, on the same IMDb reviews,
# ids, key and model file (the default model, as the wheel ships it): tokens per second of CPU time in a third
# pass (the first computes the mechanism's tables; the second, printed too, still pays one-time costs), alternating
# JVM and Python per mechanism and round.
# Results go to BENCHMARKS.md by hand.
#   scripts/bench/python-engine.sh [reviews=10000] [rounds=2] [noise-reviews=300]
# 10,000 reviews: a Spark Arrow batch's default rows, and a pass long enough for the JVM's C2 code (over 2,000
# reviews the JVM's TEM measured 1.1 M tokens/s against 5-6 M over 10,000).
# The embedding-noise mechanisms (a search of the whole vocabulary per token: ~50x slower per token on both
# engines) run on the first noise-reviews reviews.
# DPTEXT_BENCH_MECHANISMS (a space-separated subset; also santext:casePolicy=restore and 1-diffractor:casePolicy=restore,
# not run by default), DPTEXT_BENCH_MODEL and DPTEXT_BENCH_PYTHON override the defaults.
# Needs the Python module built (./mvnw -B -ntp -DskipTests -Ppython-wheel package, or its test phase),
# whose venv (python/target/venv) holds the engine; DPTEXT_SKIP_BUILD=1 as in scripts/bench/lib/bench-build.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
REVIEWS="${1:-10000}"
ROUNDS="${2:-2}"
NOISE_REVIEWS="${3:-300}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_build benchmarks
CP=$(bench_classpath)
MODEL="${DPTEXT_BENCH_MODEL:-$ROOT/python/target/default-model/default.dptext-model}"
PYTHON="${DPTEXT_BENCH_PYTHON:-$ROOT/python/target/venv/bin/python}"
[[ -f $MODEL && -x $PYTHON ]] || { echo "build the Python module first (see the header)" >&2; exit 2; }
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A SETTINGS=(
  [santext]='{"mechanism":"santext"}'
  [santext+]='{"mechanism":"santext+"}'
  [tem]='{"mechanism":"tem","gamma":"4.5"}'
  [custext]='{"mechanism":"custext"}'
  [1-diffractor]='{"mechanism":"1-diffractor"}'
  [laplace]='{"mechanism":"laplace"}'
  [mahalanobis]='{"mechanism":"mahalanobis"}'
  [vickrey]='{"mechanism":"vickrey"}'
  [vickrey-topk]='{"mechanism":"vickrey-topk","t":"0;0.5;1"}'
  [brr]='{"mechanism":"brr"}'
  [brr:epsilon=1,bits=64]='{"mechanism":"brr","epsilon":"1","bits":"64"}'
  [santext:casePolicy=restore]='{"mechanism":"santext","casePolicy":"restore"}'
  [1-diffractor:casePolicy=restore]='{"mechanism":"1-diffractor","casePolicy":"restore"}'
)
MECHANISMS="${DPTEXT_BENCH_MECHANISMS:-santext santext+ tem custext 1-diffractor laplace mahalanobis vickrey vickrey-topk brr brr:epsilon=1,bits=64}"
for round in $(seq 1 "$ROUNDS"); do
  for m in $MECHANISMS; do
    n=$REVIEWS
    case $m in laplace|mahalanobis|vickrey*) n=$NOISE_REVIEWS ;; esac
    # shellcheck disable=SC2046 # one argument per setting
    java $MODULE_OPTIONS -Xmx4g -cp "$CP" dev.dptext.bench.EngineRate "$MODEL" "$CACHE/imdb-reviews.jsonl" "$n" \
      $("$PYTHON" -c 'import json,sys; print(" ".join(f"spark.dptext.{k}={v}" for k, v in json.loads(sys.argv[1]).items()))' "${SETTINGS[$m]}") \
      2>&1 | grep -E '^jvm ' | sed "s/^/round $round: /"
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PYTHON" scripts/bench/python_engine.py "$MODEL" "$CACHE/imdb-reviews.jsonl" "$n" \
      "${SETTINGS[$m]}" | sed "s/^/round $round: /"
  done
done
