#!/usr/bin/env bash
# Local evaluations and Spark's shuffle partitions: with a local master the job now shuffles into
# a few partitions per core (JobSession.localSizing) instead of Spark's 200. "before" runs the same build
# with -Dspark.sql.shuffle.partitions=200 (a value the user sets wins, so this is the old default exactly);
# "after" leaves it to the job. Alternating before/after:
#  1. evaluate utility on 200 IMDb reviews (every 250th line of the file: 100 per label, no --rows, as a
#     user with a small labelled file runs it), laplace at ε 8, one trial: RUNS pairs;
#  2. the same on the whole file with --rows 200 (its sort and limit leave one partition: no shuffle for
#     the split's window, so this one was never slow), one pair;
#  3. tune (no shuffle: a control), laplace, 100 words, 200–400 draws, one pair;
#  4. sanitize of the first 5,000 reviews (SanText ε 3, default model, Delta), to check that the smaller
#     value does not slow the job's shuffles (Spread.target repartitions to 3 × the default parallelism),
#     one pair.
# Each timed run takes the exclusive CPU lock itself (the build does not), so other users' runs can
# interleave between them:
#   scripts/bench/local-evaluate.sh [runs=2] > results/bench-local-evaluate-$(date -u +%F).txt
# (MAVEN_ARGS, e.g. "-o", is passed to the build.)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
RUNS="${1:-2}"
LOCK=/tmp/dptext-cpu.lock
WORK="$(mktemp -d /tmp/dptext-bench-local-evaluate.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# The class-data archive is written by the first sanitize of a build (~12 s more for that one run): off for all.
export DPTEXT_CDS=0
scripts/data/fetch-data.sh >&2
./mvnw -q -B ${MAVEN_ARGS:-} -DskipTests package -pl udfs,spark-job -am >&2
awk 'NR % 250 == 1' "$CACHE/imdb-reviews.jsonl" > "$WORK/imdb-200.jsonl"
head -n 5000 "$CACHE/imdb-reviews.jsonl" > "$WORK/imdb-5000.jsonl"
(umask 077; openssl rand -hex 32 > "$WORK/key")
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
echo "== 200-row file: $(wc -l < "$WORK/imdb-200.jsonl") rows, labels: $(grep -o '"sentiment":[01]' "$WORK/imdb-200.jsonl" | sort | uniq -c | tr -s ' ' | paste -sd,)"

# timed NAME WHEN ARGS...: one run under the lock; prints its wall time and the command's own summary lines.
timed() {
  local name=$1 when=$2
  shift 2
  local opts="-Xmx4g"
  [[ $when == before ]] && opts="$opts -Dspark.sql.shuffle.partitions=200"
  local log="$WORK/$name-$when-$RANDOM.log"
  flock -x "$LOCK" bash -c 'log=$1; shift; t0=$(date +%s.%N); rc=0; DPTEXT_JAVA_OPTS="$0" scripts/dptext "$@" \
      > "$log" 2>&1 || rc=$?; printf "wall %.1f s, exit %d\n" "$(echo "$(date +%s.%N) - $t0" | bc)" "$rc"' \
    "$opts" "$log" "$@" | sed "s/^/$name $when: /"
  grep -E "^dptext evaluate|^utility: raw|^Recommended|rows in / out|^  (elapsed|wall|throughput)" "$log" \
    | sed "s/^/    /" || true
}

UTILITY=(evaluate utility --text-column review --label-column sentiment --mechanisms laplace --epsilons 8
  --trials 1)
echo "== 1. evaluate utility, 200-row file (${UTILITY[*]})"
for i in $(seq "$RUNS"); do
  for when in before after; do
    timed utility-200 "$when" "${UTILITY[@]}" --input "$WORK/imdb-200.jsonl" --output "$WORK/utility-$when-$i"
  done
done
echo "== 2. evaluate utility, whole file with --rows 200"
for when in before after; do
  timed utility-rows "$when" "${UTILITY[@]}" --input "$CACHE/imdb-reviews.jsonl" --rows 200 \
    --output "$WORK/utility-rows-$when"
done
TUNE=(tune --max-utility-loss 0.2 --uniform-prior --mechanisms laplace --words 100 --draws 200 --max-draws 400
  --refine 1)
echo "== 3. tune (${TUNE[*]})"
for when in before after; do
  timed tune "$when" "${TUNE[@]}"
done
echo "== 4. sanitize, 5,000 reviews, santext ε 3, default model, Delta"
for when in before after; do
  timed sanitize-5000 "$when" sanitize --input "$WORK/imdb-5000.jsonl" --text-column review --id-column id \
    --key-file "$WORK/key" --mechanism santext --epsilon 3 --progress-interval 0 --output "$WORK/sanitized-$when"
done
