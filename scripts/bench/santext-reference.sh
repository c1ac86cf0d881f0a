#!/usr/bin/env bash
# dptext's SanText sampler next to the published algorithm run the way its authors run it: numpy,
# a dense |V|×|V| float64 probability matrix and np.random.choice per token
# (benchmarks/python/santext_reference.py; numpy pinned in benchmarks/python/requirements.txt).
# Both over the first V GloVe words and IMDb tokens, alternating (numpy, dptext, numpy, dptext) in one
# sitting so the ratio comes from one run. Needs 8·V² bytes for the matrix (7.7 GB at V = 31,000).
# Usage: scripts/bench/santext-reference.sh [V]        (default 31000, the reference's IMDb vocabulary)
# DPTEXT_SKIP_BUILD=1 and DPTEXT_MVN_ARGS as in scripts/bench/lib/bench-build.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
V="${1:-31000}"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_data
bench_build job # the job's jar builds the model
VENV="$ROOT/target/bench-venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q -r benchmarks/python/requirements.txt
MODEL="$CACHE/glove-6B-100d-${V}.dptext"
if [[ ! -s "$MODEL" ]]; then
  scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" --vocab-size "$V" --output "$MODEL" 2>&1 | grep -v WARN
fi

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F), V=$V"
echo "== numpy $("$VENV/bin/python" -c 'import numpy; print(numpy.__version__)'), $("$VENV/bin/python" --version)"
for round in 1 2; do
  echo "== round $round: reference (numpy)"
  "$VENV/bin/python" benchmarks/python/santext_reference.py "$CACHE/glove.6B.100d.txt" "$CACHE/imdb-reviews.jsonl" \
    --vocab "$V" --epsilons 1,3 --tokens 5000
  echo "== round $round: dptext (one thread)"
  # shellcheck disable=SC2086
  java $MODULE_OPTIONS -Xmx6g -cp "$(bench_classpath)" \
    dev.dptext.bench.SamplerBenchmark "$MODEL" "$CACHE/imdb-reviews.jsonl" 3000000 2>&1 | grep -v -E "WARN|InstanceBuilder"
done
