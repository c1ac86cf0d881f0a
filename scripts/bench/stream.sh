#!/usr/bin/env bash
# Stream versus batch on the same IMDb reviews (docs/streaming.md; results in BENCHMARKS.md):
# splits ROWS reviews of ~/.cache/dptext/imdb-reviews.jsonl (scripts/data/fetch-data.sh) into FILES JSON
# files, sanitizes them once as a batch run and once as `sanitize --stream` (trigger available-now,
# PER_TRIGGER files per micro-batch), both with the same key and ids, prints each run's wall time and
# summary, and checks that the two tables are equal row for row (dev.dptext.tools.CheckOutputs of the tools/ module,
# every column). Exit 0 only if they are.
#
#   ./mvnw -q -DskipTests package && scripts/bench/stream.sh        # ROWS=5000 FILES=50 PER_TRIGGER=10
#
# Environment: ROWS, FILES, PER_TRIGGER, MODEL (default: the embedded model), EXTRA (more options for
# both runs, e.g. "--mechanism santext+").
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROWS=${ROWS:-5000}
FILES=${FILES:-50}
PER_TRIGGER=${PER_TRIGGER:-10}
MODEL=${MODEL:-default}
REVIEWS=${REVIEWS:-$HOME/.cache/dptext/imdb-reviews.jsonl}
JOB="$ROOT/spark-job/target"
[[ -f "$JOB/classpath.txt" ]] || { echo "bench-stream: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
[[ -f "$REVIEWS" ]] || { echo "bench-stream: no $REVIEWS; run scripts/data/fetch-data.sh" >&2; exit 2; }
CP="$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1):$(cat "$JOB/classpath-provided.txt")"
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")
WORK=$(mktemp -d /tmp/dptext-bench-stream.XXXXXX)

# The files, oldest first in the order of the reviews (Spark's file source takes new files by
# modification time).
python3 - "$REVIEWS" "$ROWS" "$FILES" "$WORK/in" <<'PY'
import os, sys
src, rows, files, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.makedirs(out)
lines = []
with open(src) as f:
    for line in f:
        lines.append(line)
        if len(lines) == rows:
            break
per = -(-len(lines) // files)
for i in range(files):
    path = os.path.join(out, "part-%05d.json" % i)
    with open(path, "w") as o:
        o.writelines(lines[i * per:(i + 1) * per])
    os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
PY
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$WORK/key"
COMMON=(--input "$WORK/in" --input-format json --input-schema "id BIGINT, review STRING, sentiment INT"
  --text-column review --id-column id --model "$MODEL" --key-file "$WORK/key" --progress-interval 0 ${EXTRA:-})

run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  scripts/dptext sanitize "${COMMON[@]}" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
  t1=$(date +%s.%N)
  printf '%s: wall %.1f s (JVM start to exit)\n' "$name" "$(echo "$t1 - $t0" | bc)"
  grep -E 'rows in / out|tokens  |elapsed|throughput|micro-batch' "$WORK/$name.out" | sed 's/^/  /'
}

echo "bench-stream: $ROWS reviews in $FILES files, $PER_TRIGGER files per micro-batch, model $MODEL ($WORK)"
run batch --output "$WORK/batch"
run stream --stream --checkpoint "$WORK/checkpoint" --max-files-per-trigger "$PER_TRIGGER" --output "$WORK/stream"
grep -h 'stream: micro-batch' "$WORK/stream.err" | sed 's/^/  /'
if java $MODULE_OPTIONS -cp "$TOOLS_JAR:$CP" dev.dptext.tools.CheckOutputs delta id "$ROWS" "$WORK/batch" "$WORK/stream" \
    > "$WORK/check.out" 2>&1; then
  echo "bench-stream: the stream's table equals the batch run's, row for row"
  rm -rf "$WORK"
else
  echo "bench-stream: TABLES DIFFER (details in $WORK/check.out)"
  exit 1
fi
