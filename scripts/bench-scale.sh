#!/usr/bin/env bash
# Scale benchmark of the partitioned path (issue 16); results go to BENCHMARKS.md by hand.
#   1. build-model --model-layout partitioned on real GloVe 6B 100-d, V = the first 25,000 / 100,000 /
#      341,479 words (tables for SanText and SanText+ w=0.9): wall time and peak RSS of the JVM.
#   2. sanitize the first $REVIEWS IMDb reviews with SanText+ (ε=3, w=0.9, p=0.3) and Laplace (ε=10) on
#      both layouts of the same model: the run summary's tokens/s, divided by the cores, and peak RSS.
#   3. SYNTHETIC vocabularies (SyntheticModel: GloVe vectors mixed, mapped to 300 d, perturbed; seeded) of
#      $SYNTHETIC words (default "1000000 2000000") without candidate tables, and Laplace on the
#      partitioned path (the tables' all-pairs search is O(V²·m): see BENCHMARKS.md).
# Usage: scripts/bench-scale.sh [sizes...]   e.g. scripts/bench-scale.sh 25000 100000
#   REVIEWS=2000 SYNTHETIC="" DPTEXT_DATA=~/.cache/dptext DPTEXT_JAVA_OPTS=-Xmx8g
# Local mode: driver and executors share one JVM, so "peak RSS" is that JVM's.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${SCALE_WORK:-$CACHE/scale}"
REVIEWS="${REVIEWS:-2000}"
SIZES=("${@:-25000 100000 341479}")
SYNTHETIC="${SYNTHETIC-1000000 2000000}"
export DPTEXT_JAVA_OPTS="${DPTEXT_JAVA_OPTS:--Xmx8g}"
export DPTEXT_KEY="${DPTEXT_KEY:-$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')}"
mkdir -p "$WORK"
INPUT="$WORK/imdb-$REVIEWS.jsonl"
head -n "$REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$INPUT"
CORES=$(nproc)
echo "== machine: $CORES cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"

# Runs a command under /usr/bin/time; prints its interesting lines and "wall … s, peak RSS … MiB".
measure() {
  local label="$1"; shift
  local log; log=$(mktemp)
  /usr/bin/time -v "$@" > "$log.out" 2> "$log" || { cat "$log.out" "$log" | tail -30; return 1; }
  grep -E "written to|throughput|tokens  |elapsed|synthetic model" "$log.out" | sed "s/^/  /" || true
  local wall rss
  wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$log" | awk '{printf "%.0f", $NF/1024}')
  echo "$label: wall $wall, peak RSS $rss MiB"
  rm -f "$log" "$log.out"
}

sanitize() {
  local model="$1" layout="$2" mechanism="$3"; shift 3
  local out; out=$(mktemp -d)
  measure "sanitize $mechanism $layout" scripts/dptext sanitize --input "$INPUT" --text-column review \
    --id-column id --model "$model" --model-layout "$layout" --mechanism "$mechanism" "$@" \
    --output "$out/o" --output-format parquet --progress-interval 0
  rm -rf "$out"
}

for V in ${SIZES[@]}; do
  MODEL="$WORK/glove-100d-$V"
  echo "== real GloVe 100-d, V = $V"
  if [[ ! -s "$MODEL/manifest.properties" || "${REBUILD:-0}" == 1 ]]; then
    rm -rf "$MODEL"
    measure "build-model partitioned V=$V" scripts/dptext build-model --model "$CACHE/glove.6B.100d.txt" \
      --vocab-size "$V" --model-layout partitioned --output "$MODEL"
  fi
  for layout in broadcast partitioned; do
    sanitize "$MODEL" "$layout" santext+ --epsilon 3 --w 0.9 --p 0.3
    sanitize "$MODEL" "$layout" laplace --epsilon 10
  done
done

if [[ -n "$SYNTHETIC" ]]; then
  ./mvnw -q -B -o dependency:build-classpath -pl benchmarks -Dmdep.outputFile=target/bench.cp \
    -Dmdep.includeScope=provided >/dev/null
  MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml)
  for V in $SYNTHETIC; do
    MODEL="$WORK/synthetic-300d-$V"
    echo "== SYNTHETIC 300-d, V = $V (seed 16)"
    if [[ ! -s "$MODEL/manifest.properties" ]]; then
      rm -rf "$MODEL"
      measure "synthetic build V=$V (vectors, covariance, hash; no tables)" java $DPTEXT_JAVA_OPTS $MODULE_OPTIONS \
        -cp "benchmarks/target/classes:udfs/target/classes:$(cat benchmarks/target/bench.cp)" \
        dev.dptext.bench.SyntheticModel "$CACHE/glove.6B.100d.txt" "$V" 300 16 "$MODEL" none
    fi
    sanitize "$MODEL" partitioned laplace --epsilon 10
  done
fi
