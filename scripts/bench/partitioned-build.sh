#!/usr/bin/env bash
# The partitioned model build (build-model --model-layout partitioned) of two checkouts, alternating
# old/new run by run, each run under the exclusive CPU lock and /usr/bin/time -v, with Spark's event
# log on: wall time, peak RSS, and the shuffle bytes written/read summed over every task. Then the two
# builds' neighbour tables of the last round are compared row by row (dev.dptext.tools.CompareTables, of this
# checkout's tools/ module).
#   scripts/bench/partitioned-build.sh <old checkout> <new checkout> [rounds=2] [vocab=100000] [model]
# Both checkouts must be built (./mvnw -DskipTests package). Results go to BENCHMARKS.md by hand.
set -euo pipefail
OLD="$(cd "$1" && pwd)"
NEW="$(cd "$2" && pwd)"
ROUNDS="${3:-2}"
VOCAB="${4:-100000}"
MODEL="${5:-$HOME/.cache/dptext/glove.6B.100d.txt}"
LOCK="${DPTEXT_CPU_LOCK:-/tmp/dptext-cpu.lock}"
OUT="${DPTEXT_BENCH_OUT:-/tmp/bench-partitioned-build}"
HEAP="${DPTEXT_BENCH_HEAP:--Xmx8g}"
mkdir -p "$OUT"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB, $(date -u +'%F %H:%M UTC')"
echo "== old: $OLD ($(git -C "$OLD" rev-parse --short HEAD)); new: $NEW ($(git -C "$NEW" rev-parse --short HEAD))"
echo "== build-model --model $MODEL --vocab-size $VOCAB --model-layout partitioned, $HEAP"
for ((r = 1; r <= ROUNDS; r++)); do
  for label in old new; do
    dir="$OLD"; [[ "$label" == new ]] && dir="$NEW"
    run="$OUT/$label-$r"
    rm -rf "$run" && mkdir -p "$run/events"
    DPTEXT_JAVA_OPTS="$HEAP -Dspark.eventLog.enabled=true -Dspark.eventLog.dir=file://$run/events -Dspark.eventLog.compress=false" \
      flock -x "$LOCK" /usr/bin/time -v -o "$run/time.txt" "$dir/scripts/dptext" build-model --model "$MODEL" \
      --vocab-size "$VOCAB" --model-layout partitioned --output "$run/model" >"$run/stdout.txt" 2>"$run/stderr.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$run/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$run/time.txt")
    shuffle=$(python3 - "$run/events" <<'PY'
import json, os, sys
written = read = 0
logs = [os.path.join(d, n) for d, _, names in os.walk(sys.argv[1]) for n in names if n.startswith("events_")
        or n.startswith("local-")]
for name in logs:
    with open(name) as f:
        for line in f:
            if '"SparkListenerTaskEnd"' not in line:
                continue
            m = json.loads(line).get("Task Metrics") or {}
            written += m.get("Shuffle Write Metrics", {}).get("Shuffle Bytes Written", 0)
            rm = m.get("Shuffle Read Metrics", {})
            read += rm.get("Remote Bytes Read", 0) + rm.get("Local Bytes Read", 0)
print(f"shuffle written {written / 1e6:.1f} MB, read {read / 1e6:.1f} MB")
PY
)
    echo "$label round $r: wall $wall, peak RSS $((rss / 1024)) MB, $shuffle; $(grep -o 'dptext partitioned model written.*' "$run/stdout.txt" | sed 's/.*sha256/sha256/')"
  done
done
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
JOB="$NEW/spark-job/target"
CP="$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1):$(cat "$JOB/classpath-provided.txt")"
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")
for table in "$OUT/new-$ROUNDS/model"/neighbours-*; do
  t="$(basename "$table")"
  flock -s "$LOCK" java -Xmx6g $MODULE_OPTIONS -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" -cp "$TOOLS_JAR:$CP" \
    dev.dptext.tools.CompareTables "$OUT/old-$ROUNDS/model/$t" "$table"
done
