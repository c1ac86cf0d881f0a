#!/usr/bin/env bash
# A Spark standalone cluster on 127.0.0.1 from the Maven-resolved jars (no Spark distribution):
# one Master and N Workers (1 core each), each a JVM whose PID is recorded.
#
#   scripts/cluster/cluster.sh start [WORKERS]   # default 2 workers; prints the master URL
#   scripts/cluster/cluster.sh status            # the recorded processes and whether they run
#   scripts/cluster/cluster.sh stop              # kills exactly the recorded PIDs and waits for them
#
# Build first: ./mvnw -B -ntp -DskipTests package (writes spark-job/target/classpath-provided.txt).
# State lives in $DPTEXT_CLUSTER_DIR (default target/cluster):
#   spark-home/jars    symlinks to the jars of classpath-provided.txt (Spark, Scala, Delta): the
#                      "distribution" that the Worker puts on every executor's and driver's classpath
#   spark-home/conf    log4j2.properties for every JVM of the cluster (daemons, executors, drivers)
#   cluster.env        MASTER_URL, ports and PIDs, read by submit.sh and by `stop`
#   logs/, work/       daemon logs; each worker's work dir (executor and cluster-mode driver logs)
# Settings (environment): DPTEXT_WORKER_MEMORY (default 3g, what a worker may give its executors
# and drivers), DPTEXT_DAEMON_OPTS (default -Xmx512m), DPTEXT_PIN_WORKERS=1 (pin worker i, with
# its executors and drivers, to CPU i-1 with taskset).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="${DPTEXT_CLUSTER_DIR:-$ROOT/target/cluster}"
SPARK_HOME="$DIR/spark-home"
ENV_FILE="$DIR/cluster.env"
log() { echo "[cluster] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# free_port: a TCP port on 127.0.0.1 that nothing listens on (random in 20000-59999).
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  die "no free port found"
}

alive() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null; }

# make_spark_home: the fake SPARK_HOME, rebuilt on every start so that it follows the pom.
make_spark_home() {
  local cp="$ROOT/spark-job/target/classpath-provided.txt" jar
  [[ -s $cp ]] || die "$cp is missing; build first: ./mvnw -B -ntp -DskipTests package"
  rm -rf "$SPARK_HOME" && mkdir -p "$SPARK_HOME/jars" "$SPARK_HOME/conf"
  tr ':' '\n' < "$cp" | while read -r jar || [[ -n $jar ]]; do
    [[ -f $jar ]] || die "jar of classpath-provided.txt not found: $jar (rebuild)"
    ln -s "$jar" "$SPARK_HOME/jars/$(basename "$jar")"
  done
  # Spark's own chatter at WARN, except the lines the cluster test reads (task starts, ends and
  # losses; executor launches; driver states), broadcast read times, and dptext's INFO lines.
  # Nothing here logs row content.
  cat > "$SPARK_HOME/conf/log4j2.properties" <<'EOF'
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
logger.dptext.name = dev.dptext
logger.dptext.level = info
logger.deploy.name = org.apache.spark.deploy
logger.deploy.level = info
logger.tsm.name = org.apache.spark.scheduler.TaskSetManager
logger.tsm.level = info
logger.dag.name = org.apache.spark.scheduler.DAGScheduler
logger.dag.level = info
logger.backend.name = org.apache.spark.scheduler.cluster
logger.backend.level = info
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = info
logger.broadcast.name = org.apache.spark.broadcast.TorrentBroadcast
logger.broadcast.level = info
EOF
}

# The environment every daemon gets. SPARK_SCALA_VERSION: without it the Worker's launcher looks
# for a source tree's build directories and every executor fails ("Cannot find any build
# directories"). SPARK_LOCAL_IP keeps every port and UI on loopback.
daemon_env() {
  export SPARK_HOME SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1 SPARK_CONF_DIR="$SPARK_HOME/conf"
}

module_options() {
  sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml"
}

# wait_for_line FILE REGEX PID SECONDS: until FILE has a line matching REGEX; fails if PID dies.
wait_for_line() {
  local file=$1 re=$2 pid=$3 secs=$4 i
  for i in $(seq 1 $((secs * 5))); do
    if grep -qE "$re" "$file" 2>/dev/null; then return 0; fi
    alive "$pid" || { tail -n 30 "$file" >&2 || true; die "process $pid exited; log: $file"; }
    sleep 0.2
  done
  tail -n 30 "$file" >&2 || true
  die "timed out after ${secs}s waiting for /$re/ in $file"
}

start() {
  local workers=${1:-2} i pid port ui
  [[ $workers =~ ^[1-9][0-9]*$ ]] || die "WORKERS must be a positive integer, got '$workers'"
  if [[ -f $ENV_FILE ]]; then
    # shellcheck disable=SC1090
    source "$ENV_FILE"
    for pid in $MASTER_PID $WORKER_PIDS; do
      alive "$pid" && die "a cluster recorded in $ENV_FILE is still running (PID $pid); run: $0 stop"
    done
    rm -f "$ENV_FILE"
  fi
  make_spark_home
  rm -rf "$DIR/logs" "$DIR/work" && mkdir -p "$DIR/logs" "$DIR/work"
  daemon_env
  local opts="${DPTEXT_DAEMON_OPTS:--Xmx512m} $(module_options)"
  local cp="$SPARK_HOME/conf:$SPARK_HOME/jars/*"
  local mport; mport=$(free_port)
  local mui; mui=$(free_port)
  MASTER_URL="spark://127.0.0.1:$mport"
  # Record each PID as soon as it exists, so that `stop` (or a failing start's trap) finds it.
  {
    echo "MASTER_URL=$MASTER_URL"
    echo "MASTER_WEBUI=http://127.0.0.1:$mui"
    echo "SPARK_HOME=$SPARK_HOME"
  } > "$ENV_FILE"
  # shellcheck disable=SC2086
  java $opts -cp "$cp" org.apache.spark.deploy.master.Master \
    --host 127.0.0.1 --port "$mport" --webui-port "$mui" > "$DIR/logs/master.log" 2>&1 &
  MASTER_PID=$!
  echo "MASTER_PID=$MASTER_PID" >> "$ENV_FILE"
  STARTED=0
  trap '[[ $STARTED == 1 ]] || { log "start failed; stopping what it started"; stop; }' EXIT
  wait_for_line "$DIR/logs/master.log" "I have been elected leader" "$MASTER_PID" 90
  WORKER_PIDS=""
  for i in $(seq 1 "$workers"); do
    ui=$(free_port)
    port=$(free_port)
    mkdir -p "$DIR/work/worker-$i"
    # DPTEXT_PIN_WORKERS=1: worker i and everything it launches (CPU affinity is inherited) run on
    # CPU (i-1) mod nproc only, so that "1 core" means one CPU, as on a 1-CPU machine; unpinned,
    # an executor's GC and JIT threads also use the other CPUs.
    local pin=()
    [[ ${DPTEXT_PIN_WORKERS:-0} == 1 ]] && pin=(taskset -c $(((i - 1) % $(nproc))))
    # shellcheck disable=SC2086
    "${pin[@]}" java $opts -cp "$cp" org.apache.spark.deploy.worker.Worker \
      --host 127.0.0.1 --port "$port" --webui-port "$ui" --cores 1 \
      --memory "${DPTEXT_WORKER_MEMORY:-3g}" --work-dir "$DIR/work/worker-$i" \
      "$MASTER_URL" > "$DIR/logs/worker-$i.log" 2>&1 &
    pid=$!
    WORKER_PIDS="$WORKER_PIDS $pid"
    echo "WORKER_PID_$i=$pid" >> "$ENV_FILE"
  done
  WORKER_PIDS=${WORKER_PIDS# }
  echo "WORKER_PIDS=\"$WORKER_PIDS\"" >> "$ENV_FILE"
  i=0
  for pid in $WORKER_PIDS; do
    i=$((i + 1))
    wait_for_line "$DIR/logs/worker-$i.log" "Successfully registered with master" "$pid" 90
  done
  STARTED=1
  log "master $MASTER_URL (PID $MASTER_PID, UI http://127.0.0.1:$mui), $workers worker(s) of 1 core (PIDs $WORKER_PIDS)"
  echo "$MASTER_URL"
}

# stop: kills the recorded PIDs (workers first, then the master), first with TERM, then with
# KILL after 20 s, and waits until each has gone. Executors and cluster-mode drivers are the
# workers' children: a worker kills them when it receives TERM; stragglers (children still alive
# after their worker is gone) are killed by PID too.
stop() {
  [[ -f $ENV_FILE ]] || { log "no cluster recorded in $ENV_FILE"; return 0; }
  # shellcheck disable=SC1090
  source "$ENV_FILE"
  local pid children="" i
  for pid in ${WORKER_PIDS:-}; do
    alive "$pid" && children="$children $(pgrep -P "$pid" || true)"
  done
  for pid in ${WORKER_PIDS:-} ${MASTER_PID:-}; do
    alive "$pid" && kill "$pid" 2>/dev/null || true
  done
  for pid in ${WORKER_PIDS:-} ${MASTER_PID:-} $children; do
    for i in $(seq 1 100); do
      alive "$pid" || break
      sleep 0.2
    done
    if alive "$pid"; then
      log "PID $pid did not stop after TERM; killing it"
      kill -9 "$pid" 2>/dev/null || true
      while alive "$pid"; do sleep 0.2; done
    fi
  done
  rm -f "$ENV_FILE"
  log "stopped (master ${MASTER_PID:-none}, workers ${WORKER_PIDS:-none})"
}

status() {
  [[ -f $ENV_FILE ]] || { echo "no cluster (no $ENV_FILE)"; return 3; }
  # shellcheck disable=SC1090
  source "$ENV_FILE"
  local pid down=0
  echo "master $MASTER_URL, UI $MASTER_WEBUI"
  for pid in $MASTER_PID $WORKER_PIDS; do
    if alive "$pid"; then echo "  PID $pid running: $(ps -o args= -p "$pid" | grep -oE 'deploy\.(master\.Master|worker\.Worker)')"
    else echo "  PID $pid NOT running"; down=1; fi
  done
  return $down
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start [WORKERS] | stop | status" >&2; exit 2 ;;
esac
