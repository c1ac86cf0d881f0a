#!/usr/bin/env bash
# Submits the shaded dptext job jar to the cluster of cluster.sh with SparkSubmit (no Spark
# distribution: the fake SPARK_HOME's jars are the classpath).
#
#   scripts/cluster/submit.sh client|cluster [SPARK-SUBMIT OPTIONS...] -- JOB ARGS...
#   e.g. scripts/cluster/submit.sh cluster --conf spark.executor.memory=2g -- \
#          sanitize --input in.jsonl --id-column id --key-file /secure/dptext.key --output out
#
# client:  the driver is this JVM (heap: DPTEXT_DRIVER_MEMORY, default 2g; more JVM options:
#          DPTEXT_DRIVER_JAVA_OPTS, e.g. -Dlog4j2.configurationFile=...); the job's exit code is
#          this script's exit code.
# cluster: the Master starts the driver on a Worker (spark.driver.memory, default here 2g; it takes
#          one core of that worker). Its JVM flags (Spark's module options, then
#          DPTEXT_DRIVER_JAVA_OPTS) go in spark.driver.extraJavaOptions: a standalone cluster-mode
#          driver is launched without spark.driver.defaultJavaOptions (seen with Spark 4.0.1: Kryo
#          then fails on the driver for want of --add-opens=java.base/java.nio). The job jar is
#          passed by absolute path: every worker of this one-machine cluster can read it. This
#          script waits for the driver to end, prints its stdout (the run summary), and exits 0
#          only if the worker reports that the driver exited successfully (Spark does not carry
#          the job's own exit code back; look at the driver's stderr, printed on failure).
#
# The RNG key: pass --key-file with a path that the driver can read (a file of mode 600). Not
# spark.driverEnv.DPTEXT_KEY (shown unredacted in the Environment tab of the UI and in the event
# log), not a command-line value (visible in `ps` and in the Worker's launch command).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="${DPTEXT_CLUSTER_DIR:-$ROOT/target/cluster}"
ENV_FILE="$DIR/cluster.env"
log() { echo "[submit] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

mode=${1:-}
[[ $mode == client || $mode == cluster ]] || die "usage: $0 client|cluster [SPARK-SUBMIT OPTIONS...] -- JOB ARGS..."
shift
spark_opts=()
while [[ $# -gt 0 && $1 != -- ]]; do spark_opts+=("$1"); shift; done
[[ ${1:-} == -- ]] || die "missing '--' before the job's arguments"
shift

[[ -f $ENV_FILE ]] || die "no cluster running ($ENV_FILE missing); start one: scripts/cluster/cluster.sh start"
# shellcheck disable=SC1090
source "$ENV_FILE"
JAR=$(ls "$ROOT"/spark-job/target/dptext-spark-job-*-shaded.jar 2>/dev/null | head -n 1)
[[ -n $JAR ]] || die "no shaded jar; build first: ./mvnw -B -ntp -DskipTests package"
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")
export SPARK_HOME SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1 SPARK_CONF_DIR="$SPARK_HOME/conf"

common=(--master "$MASTER_URL" --deploy-mode "$mode" --class dev.dptext.job.DpTextJob
  --conf spark.driver.host=127.0.0.1
  # Spark's JVM flags for the JVMs that the workers launch (executors; the driver in cluster mode).
  --conf "spark.executor.defaultJavaOptions=$MODULE_OPTIONS")

if [[ $mode == client ]]; then
  # shellcheck disable=SC2086
  exec java -Xmx"${DPTEXT_DRIVER_MEMORY:-2g}" $MODULE_OPTIONS ${DPTEXT_DRIVER_JAVA_OPTS:-} -cp "$SPARK_HOME/conf:$SPARK_HOME/jars/*" \
    org.apache.spark.deploy.SparkSubmit "${common[@]}" "${spark_opts[@]}" "$JAR" "$@"
fi

# cluster mode: SparkSubmit's standalone client asks the Master to launch the driver, then polls
# its state until it ends (waitAppCompletion).
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
# shellcheck disable=SC2086
java -Xmx512m $MODULE_OPTIONS -cp "$SPARK_HOME/conf:$SPARK_HOME/jars/*" \
  org.apache.spark.deploy.SparkSubmit "${common[@]}" \
  --driver-memory 2g \
  --conf "spark.driver.extraJavaOptions=$MODULE_OPTIONS ${DPTEXT_DRIVER_JAVA_OPTS:-}" \
  --conf spark.standalone.submit.waitAppCompletion=true \
  "${spark_opts[@]}" "$JAR" "$@" 2>&1 | tee "$out" >&2
submit_rc=${PIPESTATUS[0]}
set -e
driver=$(grep -oE 'driver-[0-9]+-[0-9]+' "$out" | head -n 1 || true)
[[ -n $driver ]] || die "the Master did not accept the driver (SparkSubmit exit code $submit_rc)"
ddir=$(ls -d "$DIR"/work/worker-*/"$driver" 2>/dev/null | head -n 1 || true)
[[ -n $ddir ]] || die "$driver: no work directory under $DIR/work (exit code $submit_rc)"
log "$driver ran in $ddir"
cat "$ddir/stdout"
if grep -qE "Driver $driver exited successfully" "$DIR"/logs/worker-*.log; then
  exit 0
fi
log "$driver did not exit successfully (SparkSubmit exit code $submit_rc); its stderr ends with:"
tail -n 20 "$ddir/stderr" >&2
exit 1
