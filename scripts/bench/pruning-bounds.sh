#!/usr/bin/env bash
# How much an exact pruned nearest-word search could save for the Laplace mechanism on GloVe 100-d
# (benchmarks/python/pruning_bounds.py: PCA-head and cluster lower bounds, surviving share at the exact
# k-th distance, best case). numpy pinned in benchmarks/python/requirements.txt. Results go to
# BENCHMARKS.md by hand. Usage: scripts/bench/pruning-bounds.sh [V=100000] [queries=2000]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
scripts/data/fetch-data.sh >&2
VENV="$ROOT/target/bench-venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q -r benchmarks/python/requirements.txt
echo "== $(date -u +'%F %H:%M UTC'), numpy $("$VENV/bin/python" -c 'import numpy; print(numpy.__version__)')"
OPENBLAS_NUM_THREADS=1 "$VENV/bin/python" benchmarks/python/pruning_bounds.py "$CACHE/glove.6B.100d.txt" \
  "$CACHE/imdb-reviews.jsonl" --vocab "${1:-100000}" --queries "${2:-2000}"
