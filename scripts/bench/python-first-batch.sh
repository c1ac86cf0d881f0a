#!/usr/bin/env bash
# A new Python worker's first batch with the Python engine (issue 54: under 1 s on the default model): the import,
# the first batch and the same batch again, in fresh processes: first on a machine with an empty distance cache
# (the first worker on a new machine computes the tables' distances and writes them), then twice more on it (every
# later worker maps the file). Results go to BENCHMARKS.md by hand.
#   scripts/bench/python-first-batch.sh [reviews=1000] [mechanism=santext]
# Needs the Python module built (its venv, python/target/venv, holds the wheel); DPTEXT_BENCH_PYTHON overrides it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
REVIEWS="${1:-1000}"
MECHANISM="${2:-santext}"
PYTHON="${DPTEXT_BENCH_PYTHON:-$ROOT/python/target/venv/bin/python}"
DATA="${DPTEXT_DATA:-$HOME/.cache/dptext}/imdb-reviews.jsonl"
[[ -x $PYTHON ]] || { echo "build the Python module first (./mvnw -B -ntp -DskipTests -Ppython-wheel package)" >&2; exit 2; }
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
for worker in "first on the machine" "a later worker" "a later worker"; do
  echo -n "$worker: "
  DPTEXT_MODEL_CACHE="$CACHE/models" OMP_NUM_THREADS=1 "$PYTHON" scripts/bench/python_first_batch.py "$DATA" "$REVIEWS" "$MECHANISM"
done
