#!/usr/bin/env bash
# Throughput on a Spark standalone cluster (scripts/cluster/): the same sanitize on 1 worker
# (1 core) and on 2 workers (1 core each), driver in client mode, side by side in one run.
# Results go to BENCHMARKS.md by hand ("Standalone cluster (issue 5)").
#
#   ./mvnw -B -ntp -DskipTests package        # once, outside the lock
#   flock -x /tmp/dptext-cpu.lock scripts/bench-cluster.sh
#
# Job: the first $DPTEXT_BENCH_ROWS IMDb reviews (default all 50,000), SanText+ ε=3 w=0.9 p=0.3,
# over the prebuilt 74,000-word GloVe model of scripts/bench-foundation.sh
# ($DPTEXT_DATA/glove-6B-100d-74k.dptext), Delta output. Input split into 2 MB partitions (~34
# tasks) so that two executors get equal shares. Order of the runs: $DPTEXT_BENCH_WORKERS
# (default "1 2"); repeat a number to repeat a run.
# Per run it prints: wall time (submit JVM start to exit), the write stage (reading, sanitizing
# and writing every row: the part that runs on the executors) from the driver log, tokens from the
# run summary, and tokens/s for both.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
MODEL="$CACHE/glove-6B-100d-74k.dptext"
ROWS=${DPTEXT_BENCH_ROWS:-50000}
RUN="$ROOT/target/bench-cluster"
export DPTEXT_CLUSTER_DIR="$RUN/cluster"
log() { echo "[bench-cluster] $*" >&2; }

[[ -s $CACHE/imdb-reviews.jsonl ]] || { log "no $CACHE/imdb-reviews.jsonl: run scripts/fetch-data.sh"; exit 2; }
[[ -s $MODEL ]] || { log "no $MODEL: build it with scripts/dptext build-model --model $CACHE/glove.6B.100d.txt --vocab-size 74000 --output $MODEL"; exit 2; }
ls spark-job/target/dptext-spark-job-*-shaded.jar >/dev/null 2>&1 || { log "build first: ./mvnw -B -ntp -DskipTests package"; exit 2; }

rm -rf "$RUN" && mkdir -p "$RUN"
head -n "$ROWS" "$CACHE/imdb-reviews.jsonl" > "$RUN/input.jsonl"
(umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$RUN/key")
trap 'scripts/cluster/cluster.sh stop' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB, $(java -version 2>&1 | head -n 1), $(date -u +%F)"
echo "input: $ROWS IMDb reviews ($(du -m "$RUN/input.jsonl" | cut -f1) MB), model $MODEL"
echo "| workers | wall s | write stage s | tokens | tokens/s (wall) | tokens/s (write stage) |"
echo "|---:|---:|---:|---:|---:|---:|"
n=0
for workers in ${DPTEXT_BENCH_WORKERS:-1 2}; do
  n=$((n + 1))
  scripts/cluster/cluster.sh start "$workers" >/dev/null 2>"$RUN/cluster-$n.log"
  out="$RUN/out-$n"
  t0=$(date +%s.%N)
  DPTEXT_DRIVER_MEMORY=3g scripts/cluster/submit.sh client \
    --conf spark.executor.memory=2g --conf spark.sql.files.maxPartitionBytes=2m -- \
    sanitize --input "$RUN/input.jsonl" --text-column review --id-column id --key-file "$RUN/key" \
    --model "$MODEL" --mechanism santext+ --epsilon 3 --w 0.9 --p 0.3 --output "$out" \
    > "$RUN/run-$n.out" 2> "$RUN/run-$n.log" || { tail -n 30 "$RUN/run-$n.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  scripts/cluster/cluster.sh stop 2>/dev/null
  stage_ms=$(grep -oE 'ResultStage [0-9]+ \(save at [^)]*\) finished in [0-9]+ ms' "$RUN/run-$n.log" | grep -oE '[0-9]+ ms' | cut -d' ' -f1)
  tokens=$(grep -oE '"tokens":[0-9]+' "$out/_dptext_summary.json" | cut -d: -f2)
  tasks=$(grep -oE 'Got job [0-9]+ \(save at [^)]*\) with [0-9]+ output partitions' "$RUN/run-$n.log" | grep -oE '[0-9]+ output' | cut -d' ' -f1)
  awk -v w="$workers" -v t0="$t0" -v t1="$t1" -v ms="$stage_ms" -v tok="$tokens" 'BEGIN {
    wall = t1 - t0; st = ms / 1000;
    printf "| %d | %.1f | %.1f | %d | %.0f | %.0f |\n", w, wall, st, tok, tok / wall, tok / st }'
  log "run $n: $workers worker(s), write stage of $tasks tasks; summary: $(grep -E 'rows in / out|elapsed' "$RUN/run-$n.out" | tr -s ' ' | paste -sd';')"
done
