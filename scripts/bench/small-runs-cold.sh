#!/usr/bin/env bash
# The fixed cost of a small scheduled run, cold (results in BENCHMARKS.md, "Scheduled runs"): each run a new JVM,
# as a scheduler starts one. Six sides in rotating order per round, each appending the same small input to a
# table of its own that an untimed first round created:
#   dptext-delta       scripts/dptext sanitize --output-format delta --mode append
#   dptext-delta-txn   the same with --txn-app-id/--txn-version (a nightly run's shape)
#   dptext-parquet     scripts/dptext sanitize --output-format parquet --mode append
#   plain-delta        dev.dptext.bench.IdentityJob: spark.read.json, write.format("delta").mode("append")
#   plain-delta-txn    the same with Delta's txnAppId/txnVersion writer options
#   plain-parquet      the same to Parquet
# dptext runs through scripts/dptext with its class-data archive (primed by the untimed round); the plain
# job as scripts/dptext launches the job (java, Spark's module flags, conf/log4j2.properties, the same
# Spark and Delta classpath, Delta's state in one partition per core as the job sets it) without an archive
# unless IDENTITY_CDS=1. Model: a prebuilt model file of the default vocabulary, key from a file.
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/small-runs-cold.sh [rounds=3] [input=data/sample/support-tickets.jsonl]
#
# Environment: DPTEXT_DATA (default ~/.cache/dptext), SMALL_RUNS_WORK (default $DPTEXT_DATA/small-runs-cold),
# DPTEXT_JAVA_OPTS, IDENTITY_CDS=1, SIDES (a subset, space-separated).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROUNDS=${1:-3}
INPUT=$(realpath "${2:-data/sample/support-tickets.jsonl}")
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${SMALL_RUNS_WORK:-$CACHE/small-runs-cold}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
JOB="$ROOT/spark-job/target"
BENCH_JAR=$(ls "$ROOT"/benchmarks/target/dptext-benchmarks-*.jar | head -n 1)
IDENTITY_CP="$BENCH_JAR:$(cat "$JOB/classpath-provided.txt")"
JAVA_OPTS=${DPTEXT_JAVA_OPTS:--Xmx4g}
mkdir -p "$WORK"
bench_key_and_model "$WORK"
rm -rf "$WORK/runs"
mkdir -p "$WORK/runs"
read -r -a SIDES <<< "${SIDES:-dptext-delta dptext-delta-txn dptext-parquet plain-delta plain-delta-txn plain-parquet}"

# run SIDE ROUND: one cold JVM; sets WALL (seconds, JVM start to exit).
run() {
  local side=$1 round=$2 out="$WORK/runs/$1" t0 t1 cmd
  case $side in
    dptext-*)
      cmd=(env "DPTEXT_JAVA_OPTS=$JAVA_OPTS" scripts/dptext sanitize --input "$INPUT" --id-column id --model "$MODEL"
        --key-file "$KEY" --output "$out" --mode append --progress-interval 0
        --output-format "$([[ $side == *parquet ]] && echo parquet || echo delta)")
      [[ $side == *txn ]] && cmd+=(--txn-app-id small-runs --txn-version "$round")
      ;;
    plain-*)
      # shellcheck disable=SC2206
      cmd=(java $JAVA_OPTS $MODULE_OPTIONS ${IDENTITY_CDS_OPTS:-} -Xlog:disable -Xlog:all=warning:stderr
        -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" -cp "$IDENTITY_CP" dev.dptext.bench.IdentityJob
        "$INPUT" "$out" "$([[ $side == *parquet ]] && echo parquet || echo delta)")
      [[ $side == *txn ]] && cmd+=("$round")
      ;;
  esac
  t0=$(date +%s%N)
  "${cmd[@]}" > "$WORK/$side.out" 2> "$WORK/$side.err" || { echo "small-runs-cold: $side failed"; tail -n 20 "$WORK/$side.err"; exit 1; }
  t1=$(date +%s%N)
  WALL=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# Round 0, untimed: creates every table and primes scripts/dptext's class-data archive (its first sanitize).
if [[ "${IDENTITY_CDS:-0}" == 1 ]]; then
  rm -f "$WORK/identity.jsa"
  IDENTITY_CDS_OPTS="-XX:ArchiveClassesAtExit=$WORK/identity.jsa" run plain-delta-txn 0
  IDENTITY_CDS_OPTS="-XX:SharedArchiveFile=$WORK/identity.jsa"
fi
for side in "${SIDES[@]}"; do run "$side" 0; done
echo "== small-runs-cold: $(wc -l < "$INPUT") rows, $ROUNDS rounds of ${#SIDES[@]} cold JVMs; $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); plain job's class-data archive: $([[ -n "${IDENTITY_CDS_OPTS:-}" ]] && echo yes || echo no); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A TIMES
for ((r = 1; r <= ROUNDS; r++)); do
  n=${#SIDES[@]}
  line="round $r:"
  for ((k = 0; k < n; k++)); do
    side=${SIDES[$(( (k + r - 1) % n ))]}
    run "$side" "$r"
    TIMES[$side]="${TIMES[$side]:-} $WALL"
    line+=" $side $WALL s;"
  done
  echo "$line"
done
declare -A MED
for side in "${SIDES[@]}"; do
  # shellcheck disable=SC2086
  MED[$side]=$(median ${TIMES[$side]})
  printf 'median %-17s %6.2f s  (%s )\n' "$side" "${MED[$side]}" "${TIMES[$side]}"
done
d() { echo "scale=2; ${MED[$1]:-0} - ${MED[$2]:-0}" | bc; }
echo "Delta over Parquet: dptext $(d dptext-delta dptext-parquet) s, plain $(d plain-delta plain-parquet) s;" \
  "with a transaction id: dptext $(d dptext-delta-txn dptext-parquet) s, plain $(d plain-delta-txn plain-parquet) s"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
