#!/usr/bin/env bash
# The privacy ledger's cost (docs/ledger.md): the same batch sanitize of ROWS IMDb reviews (ids 0..ROWS-1,
# JSON lines) into Delta, without and with --ledger, ROUNDS rounds alternating in one run (the machine is
# noisy: compare side by side), each a fresh JVM as a scheduler starts it. The ledger adds one aggregation
# over the released rows (their id ranges), a read of the ledger and two appends to it. Prints each run's
# wall time and the medians. Results go to BENCHMARKS.md by hand.
#
#   ./mvnw -q -DskipTests package && scripts/bench/ledger.sh      # ROWS=20000 ROUNDS=3
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROWS=${ROWS:-20000}
ROUNDS=${ROUNDS:-3}
REVIEWS=${REVIEWS:-$HOME/.cache/dptext/imdb-reviews.jsonl}
[[ -f spark-job/target/classpath.txt ]] || { echo "bench-ledger: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
[[ -f "$REVIEWS" ]] || { echo "bench-ledger: no $REVIEWS; run scripts/data/fetch-data.sh" >&2; exit 2; }
WORK=$(mktemp -d /tmp/dptext-bench-ledger.XXXXXX)
head -n "$ROWS" "$REVIEWS" > "$WORK/in.jsonl"
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$WORK/key"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD); $ROWS reviews"
run() { # <label> <output> [extra options...]
  local label="$1" out="$2"; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  scripts/dptext sanitize --input "$WORK/in.jsonl" --text-column review --id-column id --key-file "$WORK/key" \
    --output "$out" --mode overwrite --progress-interval 0 "$@" > "$WORK/last.log" 2>&1 \
    || { cat "$WORK/last.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  printf '%s %.1f\n' "$label" "$(echo "$t1 - $t0" | bc)" | tee -a "$WORK/times"
}
for ((round = 1; round <= ROUNDS; round++)); do
  run without "$WORK/out-without"
  # A new key file each round would make each run a new release; the same key repeats the first.
  run with "$WORK/out-with" --ledger "$WORK/ledger"
done
grep -h "This run releases" "$WORK/last.log" | sed 's/^/last ledger line: /'
for label in without with; do
  printf '%s median %s s\n' "$label" "$(grep "^$label " "$WORK/times" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
done
rm -rf "$WORK"
