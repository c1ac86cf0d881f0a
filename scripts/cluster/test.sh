#!/usr/bin/env bash
# The job on a real Spark standalone cluster (scripts/cluster/: a Master and two 1-core Workers on
# 127.0.0.1, separate JVMs, from the Maven-resolved jars), checked end to end:
#   1. client deploy mode: sanitize the first $ROWS IMDb reviews (SanText+ default, embedded model)
#      with a key from a file → rows in = rows out, ids unique, run summary consistent;
#   2. cluster deploy mode (the driver runs on a worker) with spark.serializer = Kryo, same input
#      and key → identical output;
#   3. fault: client mode again; once the write stage has finished a task, kill -9 one executor
#      JVM of this app (a child of one of our workers) → the job still succeeds, a task was lost
#      and re-run, the worker started a replacement executor, and the output is identical, row for
#      row, to run 1's;
#   4. DEBUG: client mode with every logger of the driver and the executors at DEBUG, over the
#      first $DEBUG_ROWS reviews and the canary;
#   5. neither the key nor a canary input text appears in any log (DEBUG ones included), event log,
#      work directory or output.
# Exits non-zero on any failure; always stops the processes it started (by PID).
# Needs: the package build (./mvnw -B -ntp -DskipTests package) and the IMDb reviews
# (~/.cache/dptext/imdb-reviews.jsonl; fetched with `scripts/data/fetch-data.sh imdb` when missing). Settings: DPTEXT_CLUSTER_ROWS
# (default 10000), DPTEXT_DATA (the data cache). Takes ~4-8 minutes on 2 cores.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROWS=${DPTEXT_CLUSTER_ROWS:-10000}
DEBUG_ROWS=1000
REVIEWS="${DPTEXT_DATA:-$HOME/.cache/dptext}/imdb-reviews.jsonl"
RUN="$ROOT/target/cluster-test"
export DPTEXT_CLUSTER_DIR="$RUN/cluster"
log() { echo "[cluster-test] $(date +%H:%M:%S) $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

if [[ ! -s $REVIEWS ]]; then
  log "no $REVIEWS; fetching the IMDb reviews (scripts/data/fetch-data.sh imdb)"
  scripts/data/fetch-data.sh imdb || { log "cannot fetch the IMDb reviews (needs npm and node)"; exit 2; }
fi
ls spark-job/target/dptext-spark-job-*-shaded.jar >/dev/null 2>&1 \
  || { log "no shaded jar; run ./mvnw -B -ntp -DskipTests package first"; exit 2; }
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"

rm -rf "$RUN" && mkdir -p "$RUN/events"
head -n "$ROWS" "$REVIEWS" > "$RUN/input.jsonl"
[[ $(wc -l < "$RUN/input.jsonl") -eq $ROWS ]] || fail "$REVIEWS has fewer than $ROWS lines"
# A canary review replaces the last one: raw input text must not reach any log either.
CANARY="dptextcanary$(od -An -tx1 -N6 /dev/urandom | tr -d ' \n')"
sed -i '$d' "$RUN/input.jsonl"
echo "{\"id\":$((ROWS - 1)),\"review\":\"the $CANARY was here\"}" >> "$RUN/input.jsonl"
(umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$RUN/key")
KEY=$(cat "$RUN/key")

JOB_PID=""
cleanup() {
  local rc=$?
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    kill "$JOB_PID" 2>/dev/null || true
    wait "$JOB_PID" 2>/dev/null || true
  fi
  scripts/cluster/cluster.sh stop || rc=1
  if [[ $rc -eq 0 ]]; then log "PASSED"; else log "FAILED (exit code $rc); logs in $RUN"; fi
  exit $rc
}
trap cleanup EXIT

scripts/cluster/cluster.sh start 2 >/dev/null
# shellcheck disable=SC1091
source "$DPTEXT_CLUSTER_DIR/cluster.env"

# About 14 input partitions of 1 MB for 10,000 reviews, so that both executors share the work and
# a killed executor leaves tasks to re-run. Event logs on, to check them for the key.
SPARK_OPTS=(--conf spark.sql.files.maxPartitionBytes=1m --conf spark.executor.memory=1g
  --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$RUN/events"
  --conf spark.eventLog.compress=false)
job() { # job OUTPUT: sets JOB, the job's arguments
  JOB=(sanitize --input "$RUN/input.jsonl" --text-column review --id-column id
    --key-file "$RUN/key" --model default --output "$RUN/$1")
}
check() { # check OUTPUT... : against run 1's output (the first argument is the reference)
  # shellcheck disable=SC2086
  SPARK_LOCAL_IP=127.0.0.1 java -Xmx1g $(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' pom.xml) \
    -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" \
    -cp "$TOOLS_JAR:$SPARK_HOME/jars/*" dev.dptext.tools.CheckOutputs delta id "$ROWS" "$@"
}

log "1/5 client deploy mode, $ROWS reviews"
job out-client
scripts/cluster/submit.sh client "${SPARK_OPTS[@]}" -- "${JOB[@]}" \
  > "$RUN/client.out" 2> "$RUN/client.log" || { tail -n 30 "$RUN/client.log" >&2; fail "client-mode run"; }
cat "$RUN/client.out"
check "$RUN/out-client" || fail "client-mode output"

log "2/5 cluster deploy mode, with Kryo as spark.serializer"
job out-cluster
# Kryo, common on production clusters, serializes broadcasts too: the sanitizer must reach the
# executors intact through it (dev.dptext.classic.JavaSerialized), giving run 1's output exactly.
scripts/cluster/submit.sh cluster "${SPARK_OPTS[@]}" --conf spark.serializer=org.apache.spark.serializer.KryoSerializer \
  -- "${JOB[@]}" \
  > "$RUN/cluster.out" 2> "$RUN/cluster.log" || { tail -n 30 "$RUN/cluster.log" >&2; fail "cluster-mode run"; }
cat "$RUN/cluster.out"
grep -q "rows in / out" "$RUN/cluster.out" || fail "no run summary in the cluster-mode driver's stdout"
check "$RUN/out-client" "$RUN/out-cluster" || fail "cluster-mode output differs from client mode's"

log "3/5 fault: kill -9 one executor during the write stage"
FLOG="$RUN/fault.log"
job out-fault
scripts/cluster/submit.sh client "${SPARK_OPTS[@]}" -- "${JOB[@]}" > "$RUN/fault.out" 2> "$FLOG" &
JOB_PID=$!
app="" save_line="" killed="" kill_line=0
for _ in $(seq 1 1500); do # 0.2 s steps: 5 minutes
  kill -0 "$JOB_PID" 2>/dev/null || break
  [[ -n $app ]] || app=$(grep -oE 'app-[0-9]+-[0-9]+' "$FLOG" | head -n 1 || true)
  [[ -n $save_line ]] || save_line=$(grep -nE 'Got job [0-9]+ \(save at ' "$FLOG" | head -n 1 | cut -d: -f1 || true)
  if [[ -n $app && -n $save_line ]] \
      && tail -n +"$save_line" "$FLOG" | grep -qE 'Finished task .* \(1/[0-9]+\)'; then
    # An executor of this app, started by one of our workers (its child process).
    for wpid in $WORKER_PIDS; do
      for cpid in $(pgrep -P "$wpid" -f CoarseGrainedExecutorBackend || true); do
        if ps -o args= -p "$cpid" | grep -qF -- "--app-id $app"; then killed=$cpid; break 2; fi
      done
    done
    [[ -n $killed ]] || fail "no executor process of $app under workers $WORKER_PIDS"
    what=$(ps -o args= -p "$killed" | grep -oE -- '--executor-id [0-9]+' || true)
    kill_line=$(wc -l < "$FLOG")
    kill -9 "$killed"
    log "killed executor PID $killed ($what) of $app after driver log line $kill_line"
    break
  fi
  sleep 0.2
done
rc=0
wait "$JOB_PID" || rc=$?
JOB_PID=""
[[ -n $killed ]] || fail "the job ended (exit code $rc) before an executor could be killed; raise DPTEXT_CLUSTER_ROWS"
[[ $rc -eq 0 ]] || { tail -n 30 "$FLOG" >&2; fail "the job failed after the executor was killed (exit code $rc)"; }
cat "$RUN/fault.out"
after=$(tail -n +"$((kill_line + 1))" "$FLOG")
lost_tasks=$(grep -cE 'Lost task' <<< "$after" || true)
lost_exec=$(grep -cE 'Lost executor|Executor .* removed|ExecutorLostFailure' <<< "$after" || true)
job_done_after=$(grep -cE 'Job [0-9]+ finished: save at ' <<< "$after" || true)
finished_after=$(awk '/Job [0-9]+ finished: save at /{exit} /Finished task/{n++} END{print n+0}' <<< "$after")
relaunched=$(cat "$DPTEXT_CLUSTER_DIR"/logs/worker-*.log | grep -cE "Asked to launch executor $app/" || true)
log "after the kill: $lost_tasks lost task line(s), $lost_exec executor-loss line(s), $finished_after write task(s) finished, executors launched for $app in total: $relaunched"
[[ $job_done_after -ge 1 ]] || fail "the write job had already finished when the executor was killed"
[[ $lost_tasks -ge 1 ]] || fail "the kill hit no running task (no 'Lost task' line)"
[[ $relaunched -ge 3 ]] || fail "the workers did not launch a replacement executor"
check "$RUN/out-client" "$RUN/out-fault" || fail "output after the fault differs from the undisturbed run"

log "4/5 DEBUG logging on the driver and the executors, $DEBUG_ROWS reviews and the canary"
# Every logger at DEBUG (Spark's, Delta's, Hadoop's, dptext's), for this run's driver (the submit
# JVM) and executors, written to files under $RUN like every other log searched below.
sed -e 's/^rootLogger.level = .*/rootLogger.level = debug/' -e '/^logger\./d' \
  "$SPARK_HOME/conf/log4j2.properties" > "$RUN/log4j2-debug.properties"
{ head -n $((DEBUG_ROWS - 1)) "$RUN/input.jsonl"; tail -n 1 "$RUN/input.jsonl"; } > "$RUN/input-debug.jsonl"
DEBUG_CONF="-Dlog4j2.configurationFile=file:$RUN/log4j2-debug.properties"
DPTEXT_DRIVER_JAVA_OPTS="$DEBUG_CONF" scripts/cluster/submit.sh client "${SPARK_OPTS[@]}" \
  --conf "spark.executor.extraJavaOptions=$DEBUG_CONF" -- \
  sanitize --input "$RUN/input-debug.jsonl" --text-column review --id-column id \
  --key-file "$RUN/key" --model default --output "$RUN/out-debug" \
  > "$RUN/debug.out" 2> "$RUN/debug.log" || { tail -n 30 "$RUN/debug.log" >&2; fail "DEBUG run"; }
n_fmt=$(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<< "$DEBUG_ROWS") # 1000 → 1,000, as the summary prints it
grep -qE "rows in / out +$n_fmt / $n_fmt\$" "$RUN/debug.out" || { cat "$RUN/debug.out" >&2; fail "DEBUG run summary"; }
app=$(grep -oE 'app-[0-9]+-[0-9]+' "$RUN/debug.log" | head -n 1)
# Control: DEBUG really was on, in the driver and in every executor of that run.
driver_debug=$(grep -c ' DEBUG ' "$RUN/debug.log" || true)
[[ $driver_debug -gt 1000 ]] || fail "the driver logged $driver_debug DEBUG lines; DEBUG is not on"
executors=0
for f in "$DPTEXT_CLUSTER_DIR"/work/worker-*/"$app"/*/stderr; do
  n=$(grep -c ' DEBUG ' "$f" || true)
  [[ $n -gt 1000 ]] || fail "$f has $n DEBUG lines; DEBUG is not on in that executor"
  executors=$((executors + 1))
done
[[ $executors -ge 2 ]] || fail "expected the DEBUG run on 2 executors, found $executors"
log "DEBUG on: $driver_debug driver lines, $executors executors ($(cat "$DPTEXT_CLUSTER_DIR"/work/worker-*/"$app"/*/stderr | wc -c) bytes of executor logs)"

log "5/5 the key in logs, event logs, work directories, outputs?"
# Control: the event logs are plain text and searchable (they hold the key file's path, from the
# command line Spark records), so finding no key in them means something.
[[ $(grep -rlF -e "$RUN/key" "$RUN/events" | wc -l) -eq 4 ]] || fail "expected 4 readable event logs naming the key file"
found=0
grep -rlF --exclude=key -e "$KEY" "$RUN" || found=$?
[[ $found -eq 1 ]] || fail "the key appears in the files above (or grep failed: exit code $found)"
log "key found nowhere under $RUN (event logs, daemon, driver and executor logs, outputs)"
found=0
grep -rlF --exclude=input.jsonl --exclude=input-debug.jsonl -e "$CANARY" "$RUN" || found=$?
[[ $found -eq 1 ]] || fail "the canary input text appears in the files above (or grep failed: exit code $found)"
log "canary input text found nowhere but in the inputs (logs, DEBUG logs, event logs, work directories, outputs)"
