#!/usr/bin/env bash
# The serverless shape, end to end (docs/databricks.md "A server without dptext's extension"): a Spark Connect
# server with Spark and Delta only — no dptext classes, no DpTextExtensions — and the sanitize job as
# its client (spark.api.mode=connect), batch then stream. The job finds no dp_sanitize, adds its own jar
# to the session (SparkSession.addArtifact) and sanitizes with its UDF, whose executors load the model
# and read the key file. Then the same runs on a classic session; the outputs must be equal row for row
# (dev.dptext.tools.CheckOutputs, of the tools/ module). Exit 0 only then. Not part of the test suite (a second Connect
# server per run; the suite keeps one per test JVM).
#
#   ./mvnw -q -DskipTests package && scripts/connect/artifact-check.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=../lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"
WORK=$(mktemp -d /tmp/dptext-connect-artifact.XXXXXX)
PORT=${PORT:-15099}
if tr ':' '\n' <<<"$PROVIDED" | grep -q dptext; then echo "the server's classpath holds dptext" >&2; exit 2; fi

# The server logs at Spark's default INFO level: the key check below then reads everything it says.
start_connect_server "$PORT" "$WORK" "$PROVIDED" io.delta.sql.DeltaSparkSessionExtension \
  -Dlog4j2.configurationFile=org/apache/spark/log4j2-defaults.properties
echo "connect-artifact-check: server (Spark + Delta only) on port $PORT; work dir $WORK"

openssl rand -hex 32 > "$WORK/key" && chmod 600 "$WORK/key"
mkdir -p "$WORK/stream-in" && cp data/sample/support-tickets.jsonl "$WORK/stream-in/"
COMMON=(--id-column id --model default --key-file "$WORK/key" --progress-interval 0)
client() { java $MODULE_OPTIONS -Xmx1g -cp "$SHADED:$CLIENT_JAR:$PROVIDED" -Dspark.api.mode=connect \
  -Dspark.remote="sc://127.0.0.1:$PORT" dev.dptext.job.DpTextJob "$@"; }
classic() { java $MODULE_OPTIONS -Xmx1g -cp "$SHADED:$PROVIDED" -Dspark.master='local[2]' -Dspark.ui.enabled=false \
  dev.dptext.job.DpTextJob "$@"; }

for side in connect classic; do
  run=$([[ $side == connect ]] && echo client || echo classic)
  echo "== $side: batch"
  $run sanitize --input data/sample/support-tickets.jsonl --output "$WORK/$side-batch" "${COMMON[@]}"
  echo "== $side: stream"
  $run sanitize --stream --checkpoint "$WORK/$side-checkpoint" --input "$WORK/stream-in" --input-format json \
    --input-schema 'id BIGINT, customer STRING, text STRING' --output "$WORK/$side-stream" "${COMMON[@]}"
done
CHECK=(java $MODULE_OPTIONS -cp "$TOOLS_JAR:$PROVIDED" dev.dptext.tools.CheckOutputs)
"${CHECK[@]}" delta id 16 "$WORK/classic-batch" "$WORK/connect-batch"
# A Connect stream's summary has no token counts (they stay in the server's log): rows only.
java $MODULE_OPTIONS -Dcheck.summary=false -cp "$TOOLS_JAR:$PROVIDED" dev.dptext.tools.CheckOutputs delta id 16 \
  "$WORK/classic-stream" "$WORK/connect-stream"
if grep -q -f "$WORK/key" "$WORK/server.log"; then echo "the key is in the server's log" >&2; exit 1; fi
echo "connect-artifact-check: OK (outputs equal; the key is not in the server's log)"
