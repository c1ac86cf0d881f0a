#!/usr/bin/env bash
# dptext's Python engine against pyPANTERA 1.0.2 (PyPI: pypantera), the Python toolkit a user would pick
# instead: tokens per second of CPU time per core (one thread each), side by side in one run, alternating
# per mechanism, on the same vocabulary (the first 20,000 words of GloVe 6B 100-d, the most frequent) and the
# same first IMDb reviews, after a first pass (reported with the setup separately). Mechanisms present on both
# sides: santext, laplace (pyPANTERA's CMP), mahalanobis, vickrey (VickreyCMP), custext, tem; dptext's defaults
# (ε = 3, λ = 0.5, t = 0.5, K = 20, β = 0.001), pyPANTERA given the same values. What is measured and how
# pyPANTERA is driven: the header of pantera.py. Results go to BENCHMARKS.md by hand.
#
#   scripts/bench/pantera.sh [dptext reviews=500] [pyPANTERA reviews=100] [pyPANTERA TEM reviews=10]
#
# dptext runs at both review counts (the larger, and the same reviews pyPANTERA runs). pyPANTERA runs at 13–160
# tokens/s here, so its review counts are smaller by default (500 reviews would take it > 3 h).
# Needs: GloVe and the reviews (scripts/data/fetch-data.sh); dptext's engine (DPTEXT_PYTHON, default
# python/target/venv/bin/python, with PYTHONPATH holding the package); pyPANTERA in its own venv:
#   python3 -m venv /tmp/pantera-venv && /tmp/pantera-venv/bin/pip install pypantera==1.0.2   (PANTERA_PYTHON)
# The 20,000-word model (neighbour table k = 64 over target start 0, and the covariance) is written by
# pantera.py in Python (no JVM) once, into the data cache.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
N="${1:-500}"
NP="${2:-100}"
NP_TEM="${3:-10}"
DPTEXT_PYTHON="${DPTEXT_PYTHON:-$ROOT/python/target/venv/bin/python}"
PANTERA_PYTHON="${PANTERA_PYTHON:-/tmp/pantera-venv/bin/python}"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
GLOVE="$CACHE/glove.6B.100d.txt"
REVIEWS="$CACHE/imdb-reviews.jsonl"
VOCAB="$CACHE/glove.6B.100d.top20k.txt"
MODEL="$CACHE/glove-6B-100d-top20k-pantera.dptext-model"
[[ -f $GLOVE && -f $REVIEWS ]] || scripts/data/fetch-data.sh
PY=scripts/bench/pantera.py
echo "== machine: $(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB, $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== dptext: $("$DPTEXT_PYTHON" -c 'import sys, numpy, dptext; print(sys.version.split()[0], "numpy", numpy.__version__, "dptext", getattr(dptext, "__version__", "?"), dptext.__file__)')"
echo "== pyPANTERA: $("$PANTERA_PYTHON" -c 'import sys, numpy, importlib.metadata as m; print(sys.version.split()[0], "numpy", numpy.__version__, "pypantera", m.version("pypantera"))')"
echo "== reviews: dptext the first $N, and the first $NP (pyPANTERA's); pyPANTERA the first $NP (TEM: $NP_TEM); pyPANTERA chunk ${PANTERA_CHUNK:-32} words"
[[ -f $VOCAB ]] || "$PANTERA_PYTHON" $PY vocab "$GLOVE" 20000 "$VOCAB"
[[ -f $MODEL ]] || "$DPTEXT_PYTHON" $PY model "$GLOVE" 20000 "$MODEL"
for m in santext laplace mahalanobis vickrey custext tem; do
  np=$NP
  [[ $m == tem ]] && np=$NP_TEM
  echo "== $m"
  "$DPTEXT_PYTHON" $PY dptext "$MODEL" "$REVIEWS" "$N" "$m"
  "$PANTERA_PYTHON" $PY pantera "$VOCAB" "$REVIEWS" "$np" "$m"
  [[ $np == "$N" ]] || "$DPTEXT_PYTHON" $PY dptext "$MODEL" "$REVIEWS" "$np" "$m"
done
echo "== dptext's rate by batch shape (rows go in lockstep: a batch costs at least its longest row's rounds)"
"$DPTEXT_PYTHON" $PY batches "$MODEL" "$REVIEWS" "$NP" santext
echo "== end $(date -u +'%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
