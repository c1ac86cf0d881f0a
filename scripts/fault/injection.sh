#!/usr/bin/env bash
# Fault injection for the write path: runs `sanitize` as a real process, kill -9s it by PID
# at a named point, re-runs the SAME command, and checks that the final table is row for row the table
# of an undisturbed run, that rows in = rows out (the run summary), and that no version, file or log
# entry of it holds raw text.
#
#   ./mvnw -q -DskipTests package && scripts/fault/injection.sh      # ~10-15 min on 2 cores
#
# Kill points, found from the job's own log lines (INFO, dev.dptext):
#   before-write  at "phase: writing"            (model built, nothing written)
#   mid-write     2 s after "phase: writing"     (tasks writing files, nothing committed)
#   after-commit  at "phase: committed"          (the commit landed, the summary not yet written)
# Scenarios: a new table (errorifexists; after-commit is left out: a re-run is then refused with exit
# 2 "already exists", by design), append with --txn-app-id/--txn-version, overwrite, and in-place
# --in-place purge-history (a re-run within 120 s of the kill is refused, exit 5, while the killed run's lock
# is fresh, as its message says; the script then waits for the lock to be abandoned and runs once more). Environment: ROWS (default 40000), ONLY (a scenario name prefix: new, txn,
# overwrite, purge). Exit 0 only if every scenario holds.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROWS=${ROWS:-40000}
CANARY=zqxcanaryraw
JOB="$ROOT/spark-job/target"
[[ -f "$JOB/classpath.txt" ]] || { echo "fault-injection: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
CP="$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1):$(cat "$JOB/classpath-provided.txt")"
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")
WORK=$(mktemp -d /tmp/dptext-fault.XXXXXX)
# scripts/dptext must exec java so that the PID killed below is the JVM; the run that saves a class-data
# archive does not (it renames the archive after the JVM exits), so the archive is left out here.
export DPTEXT_CDS=0
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# Input: the sample tickets repeated with new ids; every text starts with the canary, so Delta's file
# statistics (the smallest value of the column) would carry it too.
python3 - "$ROWS" "$CANARY" > "$WORK/in.jsonl" <<'PY'
import json, sys
rows, canary = int(sys.argv[1]), sys.argv[2]
texts = [json.loads(l).get("text") for l in open("data/sample/support-tickets.jsonl")]
texts = [t for t in texts if t]
for i in range(rows):
    print(json.dumps({"id": i, "text": canary + " " + texts[i % len(texts)]}))
PY
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$WORK/key"
COMMON=(--id-column id --key-file "$WORK/key" --progress-interval 0)
java_run() { java $MODULE_OPTIONS -cp "$TOOLS_JAR:$CP" "$@"; }

echo "fault-injection: $ROWS rows in $WORK"
scripts/dptext sanitize --input "$WORK/in.jsonl" --output "$WORK/clean" "${COMMON[@]}" > "$WORK/clean.out" 2>&1

FAILED=0
# scenario NAME KILL_POINT INPUT OUTPUT ARGS...
# ONLY=<prefix> runs the scenarios whose name starts with it (e.g. ONLY=purge).
wanted() { [[ -z "${ONLY:-}" || "$1" == "$ONLY"* ]]; }

scenario() {
  wanted "$1" || return 0
  local name=$1 point=$2 input=$3 output=$4; shift 4
  local cmd=(scripts/dptext sanitize --input "$input" --output "$output" "${COMMON[@]}" "$@")
  local marker delay=0
  case $point in
    before-write) marker="phase: writing" ;;
    mid-write) marker="phase: writing"; delay=2 ;;
    after-commit) marker="phase: committed" ;;
  esac
  "${cmd[@]}" > "$WORK/$name.1.out" 2> "$WORK/$name.1.err" &
  local pid=$! killed=no
  PIDS+=("$pid")
  for _ in $(seq 1 1200); do
    if grep -q "$marker" "$WORK/$name.1.err" 2>/dev/null; then
      sleep "$delay"
      # scripts/dptext execs java, so $pid is the JVM itself.
      kill -9 "$pid" 2>/dev/null && killed=yes
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  wait "$pid" 2>/dev/null || true
  local rerun=0
  "${cmd[@]}" > "$WORK/$name.2.out" 2> "$WORK/$name.2.err" || rerun=$?
  if [[ $rerun == 5 ]] && grep -q "Another --in-place purge-history of .* is running" "$WORK/$name.2.err"; then
    # A killed purge's lock holds off every other purge of the table until it is abandoned (120 s without
    # a refresh: InPlaceSwap.LOCK_STALE_MS); the message says to run again after that, as a scheduler's
    # retry would. The first re-run changed nothing; the second must complete.
    sleep 125
    rerun=0
    "${cmd[@]}" > "$WORK/$name.2.out" 2> "$WORK/$name.2.err" || rerun=$?
  fi
  local rows=FAIL raw=FAIL summary=-Dcheck.summary=true
  if [[ ! -f "$output/_dptext_summary.json" ]] \
      && grep -q "Nothing to do\|Completed the interrupted in-place run" "$WORK/$name.2.out"; then
    # The killed run's summary was never written (the re-run found its commit, or finished its purge's
    # swap from the ready staging table without sanitizing again); its rows are checked.
    summary=-Dcheck.summary=false
  fi
  if java_run "$summary" dev.dptext.tools.CheckOutputs delta id "$ROWS" "$WORK/clean" "$output" > "$WORK/$name.check" 2>&1; then
    rows=ok
  fi
  if java_run dev.dptext.tools.NoRawText "$CANARY" "$output" > "$WORK/$name.raw" 2>&1; then
    raw=ok
  fi
  local last
  last=$(grep -h '^dptext: \|rows in / out' "$WORK/$name.2.out" "$WORK/$name.2.err" | tail -n 1 || true)
  printf '%-28s killed=%-3s re-run exit=%s rows-vs-clean=%s no-raw-text=%s  (%s)\n' \
    "$name@$point" "$killed" "$rerun" "$rows" "$raw" "$last"
  if [[ $killed != yes || $rerun != 0 || $rows != ok || $raw != ok ]]; then FAILED=1; fi
}

for point in before-write mid-write; do
  scenario "new-$point" "$point" "$WORK/in.jsonl" "$WORK/new-$point"
done
for point in before-write mid-write after-commit; do
  scenario "txn-$point" "$point" "$WORK/in.jsonl" "$WORK/txn-$point" --mode append --txn-app-id fault --txn-version 1
done
scenario "overwrite-after-commit" after-commit "$WORK/in.jsonl" "$WORK/overwrite" --mode overwrite
for point in before-write mid-write after-commit; do
  wanted "purge-$point" || continue
  java_run dev.dptext.tools.RawDeltaTable "$WORK/in.jsonl" "$WORK/inplace-$point" > /dev/null 2>&1
  scenario "purge-$point" "$point" "$WORK/inplace-$point" "$WORK/inplace-$point" --mode overwrite --in-place purge-history
done
if [[ $FAILED == 0 ]]; then
  echo "fault-injection: PASSED"
  rm -rf "$WORK"
else
  echo "fault-injection: FAILED (details in $WORK)"
  exit 1
fi
