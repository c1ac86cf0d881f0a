#!/usr/bin/env bash
# Throughput on a Spark standalone cluster (scripts/cluster/): the same sanitize on 1 worker
# (1 core) and on 2 workers (1 core each), driver in client mode, alternating in one run.
# Results go to BENCHMARKS.md by hand ("Standalone cluster").
#
#   ./mvnw -B -ntp -DskipTests package        # once, outside the lock
#   flock -x /tmp/dptext-cpu.lock scripts/bench/cluster.sh
#
# Job: $DPTEXT_BENCH_COPIES (default 8) copies of the first $DPTEXT_BENCH_ROWS IMDb reviews
# (default all 50,000), each copy with ids of its own, SanText+ ε=3 w=0.9 p=0.3, over the prebuilt
# 74,000-word GloVe model of scripts/bench/foundation.sh ($DPTEXT_DATA/glove-6B-100d-74k.dptext),
# Delta output, the input's schema declared (--input-schema). Input split into 4 MB partitions (tasks of ~1 s) so
# that two executors get equal shares.
# The runs, in order: $DPTEXT_BENCH_RUNS (default "1:pinned 2:pinned 2:pinned 1:pinned 1:pinned
# 2:pinned 2:pinned 1:pinned 1:pinned 2:pinned", five pairs in an order that cancels a steady drift
# of the machine's speed; ~35 minutes at 8 copies, probes included): a worker count,
# ":pinned" to pin worker i (and its executor) to CPU i-1 (cluster.sh DPTEXT_PIN_WORKERS). On a
# machine with more than 2 CPUs, pinned runs also keep the driver and the Master on CPUs 2 and up,
# off the workers' CPUs; on 2 CPUs they have to share the workers' CPUs (see BENCHMARKS.md).
# Per run it prints: wall time (submit JVM start to exit), the write stage (reading, sanitizing
# and writing every row: the part that runs on the executors) from the driver log, each
# executor's first task (its one-off start-up; and from the executor's log, that task's set-up,
# model broadcast read and rows) and the median of the other tasks, tokens from the
# run summary, tokens/s for both, and how busy the machine's CPUs were (all processes: a neighbour
# outside the lock shows up as busy cores beyond ours). Then the ratio 2 workers ÷ 1 worker of each
# adjacent pair of runs, and their median. Probes before and after say how much two threads can
# gain over one on the machine at that time: simple loops, and the sanitize path itself without
# Spark (benchmarks' SanitizeScaling), the ceiling for the cluster's ratio.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
MODEL="$CACHE/glove-6B-100d-74k.dptext"
ROWS=${DPTEXT_BENCH_ROWS:-50000}
COPIES=${DPTEXT_BENCH_COPIES:-8}
RUN="$ROOT/target/bench-cluster"
export DPTEXT_CLUSTER_DIR="$RUN/cluster"
log() { echo "[bench-cluster] $*" >&2; }

[[ -s $CACHE/imdb-reviews.jsonl ]] || { log "no $CACHE/imdb-reviews.jsonl: run scripts/data/fetch-data.sh"; exit 2; }
[[ -s $MODEL ]] || { log "no $MODEL: build it with scripts/dptext build-model --model $CACHE/glove.6B.100d.txt --vocab-size 74000 --output $MODEL"; exit 2; }
ls spark-job/target/dptext-spark-job-*-shaded.jar benchmarks/target/classes/dev/dptext/bench/SanitizeScaling.class >/dev/null 2>&1 \
  || { log "build first: ./mvnw -B -ntp -DskipTests package"; exit 2; }
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"

rm -rf "$RUN" && mkdir -p "$RUN"
# Declared, as a scheduled job would: no inference pass over the input.
SCHEMA="id BIGINT, review STRING, sentiment STRING"
# COPIES copies of the reviews, each with ids of its own (copy c: id + c·1,000,000), so that
# every row gets its own noise and one worker works long enough that its fixed costs (executor
# start, fetching and deserializing the broadcast model) do not dominate.
for ((c = 0; c < COPIES; c++)); do
  head -n "$ROWS" "$CACHE/imdb-reviews.jsonl" | awk -v off=$((c * 1000000)) '{
    if (!match($0, /^\{"id":[0-9]+,/)) { print "line " NR ": no leading id" > "/dev/stderr"; exit 1 }
    id = substr($0, 7, RLENGTH - 7) + off
    print "{\"id\":" id "," substr($0, RLENGTH + 1) }'
done > "$RUN/input.jsonl"
(umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$RUN/key")
trap 'scripts/cluster/cluster.sh stop' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB, $(java -version 2>&1 | head -n 1), $(date -u +%F)"
echo "input: $COPIES × $ROWS IMDb reviews ($(wc -l < "$RUN/input.jsonl") rows, $(du -m "$RUN/input.jsonl" | cut -f1) MB), model $MODEL"
# busy_ticks: CPU time used on the whole machine (all processes, ours and the neighbours'), in
# clock ticks, from /proc/stat: user + nice + system + irq + softirq + steal.
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
HZ=$(getconf CLK_TCK)
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml)
# The ceilings for the ratio, measured on the machine as it is at that moment: simple loops
# (dev.dptext.tools.CpuScaling), and the executors' own work without Spark (SanitizeScaling: the sanitize path on
# one thread vs two, a model copy each, as two executor JVMs have).
probe() {
  echo "CPU scaling probe (2 threads ÷ 1 thread, dev.dptext.tools.CpuScaling), $1: $(java -Xmx1g -cp "$TOOLS_JAR" dev.dptext.tools.CpuScaling)"
  # shellcheck disable=SC2086
  java $MODULE_OPTIONS -Xmx4g -cp "benchmarks/target/classes:udfs/target/classes:$(cat spark-job/target/classpath-provided.txt)" \
    dev.dptext.bench.SanitizeScaling "$MODEL" "$CACHE/imdb-reviews.jsonl" 8 2>/dev/null | tail -n 1 | sed "s/^/$1: /"
}
# Pinned runs on a machine with spare CPUs: the Master and the driver run there (the workers set
# their own CPU with taskset, whatever CPUs cluster.sh was started on).
others=()
(($(nproc) > 2)) && others=(taskset -c "2-$(($(nproc) - 1))")
echo "driver and Master: $( ((${#others[@]})) && echo "CPUs 2-$(($(nproc) - 1)) in pinned runs" || echo "on the workers' CPUs (no spare CPU)")"
probe before
echo "| run | workers | CPUs | wall s | write stage s | first task per executor s | first task: set-up + model broadcast + rows, s | other tasks, median s | tokens | tokens/s (wall) | tokens/s (write stage) | machine busy cores (avg over wall) |"
echo "|---:|---:|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
: > "$RUN/runs.txt"
n=0
for spec in ${DPTEXT_BENCH_RUNS:-1:pinned 2:pinned 2:pinned 1:pinned 1:pinned 2:pinned 2:pinned 1:pinned 1:pinned 2:pinned}; do
  n=$((n + 1))
  workers=${spec%%:*}
  pinned=0
  [[ $spec == *:pinned ]] && pinned=1
  aside=()
  [[ $pinned == 1 ]] && aside=("${others[@]}")
  DPTEXT_PIN_WORKERS=$pinned "${aside[@]}" scripts/cluster/cluster.sh start "$workers" >/dev/null 2>"$RUN/cluster-$n.log"
  out="$RUN/out-$n"
  b0=$(busy_ticks)
  t0=$(date +%s.%N)
  DPTEXT_DRIVER_MEMORY=3g "${aside[@]}" scripts/cluster/submit.sh client \
    --conf spark.executor.memory=2g --conf spark.sql.files.maxPartitionBytes=4m -- \
    sanitize --input "$RUN/input.jsonl" --input-schema "$SCHEMA" --text-column review --id-column id --key-file "$RUN/key" \
    --model "$MODEL" --mechanism santext+ --epsilon 3 --w 0.9 --p 0.3 --output "$out" \
    > "$RUN/run-$n.out" 2> "$RUN/run-$n.log" || { tail -n 30 "$RUN/run-$n.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  b1=$(busy_ticks)
  scripts/cluster/cluster.sh stop 2>/dev/null
  stage_ms=$(grep -oE 'ResultStage [0-9]+ \(save at [^)]*\) finished in [0-9]+ ms' "$RUN/run-$n.log" | grep -oE '[0-9]+ ms' | cut -d' ' -f1)
  tokens=$(grep -oE '"tokens":[0-9]+' "$out/_dptext_summary.json" | cut -d: -f2)
  tasks=$(grep -oE 'Got job [0-9]+ \(save at [^)]*\) with [0-9]+ output partitions' "$RUN/run-$n.log" | grep -oE '[0-9]+ output' | cut -d' ' -f1)
  # Task durations of the write stage, per executor in launch order: "executor ms".
  stage=$(grep -oE 'ResultStage [0-9]+ \(save at' "$RUN/run-$n.log" | grep -oE '[0-9]+' | head -n 1)
  grep -E "Finished task [0-9.]+ in stage $stage\.0 " "$RUN/run-$n.log" \
    | sed -E 's/.* in ([0-9]+) ms on [^ ]+ \(executor ([0-9]+)\).*/\2 \1/' > "$RUN/tasks-$n.txt"
  first=$(awk '!seen[$1]++ { printf "%s%.1f", sep, $2 / 1000; sep = ", " }' "$RUN/tasks-$n.txt")
  median=$(awk 'seen[$1]++ { print $2 }' "$RUN/tasks-$n.txt" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) / 1000 }')
  # Where each executor's first write task spends its time, from the executor's own log: from the
  # task's start to the start of the read of the model broadcast (the largest one: task
  # deserialization, class loading, code generation, writer set-up), the broadcast read (fetch,
  # decompress, deserialize), and the rest of the task (its rows, on code not yet JIT-compiled).
  for e in "$DPTEXT_CLUSTER_DIR"/work/worker-*/app-*/*/stderr; do
    awk -v st="$stage" 'function s(t,  a) { split(t, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
      !tid && $0 ~ "Running task [0-9.]+ in stage " st "\\.0 " { match($0, /\(TID [0-9]+\)/); tid = substr($0, RSTART, RLENGTH); t0 = s($1) }
      tid && /Started reading broadcast variable [0-9]+ with [0-9]+ pieces/ && !done { n = $10 + 0; if (n > best) { best = n; tb = s($1); var = $8 } }
      tid && var != "" && $0 ~ "Reading broadcast variable " var " took" && !done { tr = s($1) }
      tid && index($0, "Finished task") && index($0, tid) { tf = s($1); done = 1 }
      END { if (done && best) printf "%.1f + %.1f + %.1f", tb - t0, tr - tb, tf - tr }' "$e"
    echo
  done | paste -sd'/' | sed 's#/# / #g' > "$RUN/first-$n.txt"
  awk -v n="$n" -v w="$workers" -v pin="$([[ $pinned == 1 ]] && echo "worker i on CPU i-1" || echo "not pinned")" -v t0="$t0" -v t1="$t1" -v ms="$stage_ms" -v tok="$tokens" -v busy=$((b1 - b0)) -v hz="$HZ" -v first="$first" -v parts="$(cat "$RUN/first-$n.txt")" -v med="$median" 'BEGIN {
    wall = t1 - t0; st = ms / 1000;
    printf "| %d | %d | %s | %.1f | %.1f | %s | %s | %.3f | %d | %.0f | %.0f | %.2f |\n", n, w, pin, wall, st, first, parts, med, tok, tok / wall, tok / st, busy / hz / wall }'
  echo "$n $workers $t0 $t1 $stage_ms" >> "$RUN/runs.txt"
  log "run $n: $workers worker(s), write stage of $tasks tasks; summary: $(grep -E 'rows in / out|elapsed' "$RUN/run-$n.out" | tr -s ' ' | paste -sd';')"
done
# Ratios of adjacent runs with 1 and 2 workers (1-2, 2-1, ...: each pair shares the machine's
# state of the moment), then their median.
echo
echo "| pair (runs) | write stage 2 ÷ 1 workers | wall 2 ÷ 1 workers |"
echo "|---|---:|---:|"
awk 'function median(v, n,   i, j, t) { # insertion sort (mawk has no asort)
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { w[NR] = $2; wall[NR] = $4 - $3; st[NR] = $5 }
  END {
    for (i = 1; i < NR; i += 2) {
      if (w[i] == w[i + 1]) continue;
      a = w[i] == 1 ? i : i + 1; b = w[i] == 1 ? i + 1 : i;
      rs[++k] = st[a] / st[b]; rw[k] = wall[a] / wall[b];
      printf "| %d, %d | %.2f× | %.2f× |\n", i, i + 1, rs[k], rw[k]
    }
    if (k) {
      printf "| median of %d pairs | %.2f× | %.2f× |\n", k, median(rs, k), median(rw, k)
    }
  }' "$RUN/runs.txt"
probe after
