#!/usr/bin/env bash
# The fixed cost of a small scheduled run (results in BENCHMARKS.md, "Scheduled runs"), warm: one JVM, one
# SparkSession built as the job builds its own, rounds of six appends of the same input in rotating order
# (dptext sanitize to Delta, and with --txn-app-id/--txn-version as a nightly run gives them, dptext to Parquet,
# a plain Spark job to Delta, with and without a transaction id, and to Parquet); the first round creates the tables and is not counted.
# Each dptext run's Spark queries are listed with their durations (dev.dptext.bench.SmallRuns). STREAM=1: rounds
# of one-row micro-batches instead (a new one-row file per round; dptext's sanitize --stream against a plain
# Spark stream of the same files into Delta, both available-now, both keeping their checkpoint).
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/small-runs.sh [rounds=5] [input=data/sample/support-tickets.jsonl]
#
# Model: a prebuilt model file of the embedded default vocabulary (build-model --model default, built
# once, not timed), so that the figure is the run's fixed cost, not the model's. JOB_JAR: another build's
# shaded job jar (e.g. an earlier commit's, for a before/after; the same Spark and Delta). Environment: DPTEXT_DATA
# (default ~/.cache/dptext), SMALL_RUNS_WORK (default $DPTEXT_DATA/small-runs), DPTEXT_JAVA_OPTS.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROUNDS=${1:-5}
INPUT=$(realpath "${2:-data/sample/support-tickets.jsonl}")
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${SMALL_RUNS_WORK:-$CACHE/small-runs}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
JOB="$ROOT/spark-job/target"
SHADED=${JOB_JAR:-$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1)}
BENCH_JAR=$(ls "$ROOT"/benchmarks/target/dptext-benchmarks-*.jar | head -n 1)
mkdir -p "$WORK"
bench_key_and_model "$WORK"
rm -rf "$WORK/runs"
echo "== small-runs: $(wc -l < "$INPUT") rows, job jar $SHADED; $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
java $MODULE_OPTIONS -Xlog:disable -Xlog:all=warning:stderr -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" \
  ${DPTEXT_JAVA_OPTS:--Xmx4g} -cp "$SHADED:$BENCH_JAR:$(cat "$JOB/classpath-provided.txt")" \
  dev.dptext.bench.SmallRuns "$INPUT" "$WORK/runs" "$MODEL" "$KEY" "$ROUNDS" ${STREAM:+stream} \
  2> >(grep --line-buffered -v '^WARNING: Using incubator modules' >&2)
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
