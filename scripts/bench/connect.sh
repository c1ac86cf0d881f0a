#!/usr/bin/env bash
# The sanitize job as a Spark Connect client against the same job on a classic session (docs/databricks.md "The
# DataFrame API, the ML stage and streams from a JVM Connect client"; results in BENCHMARKS.md): the first
# ROWS IMDb reviews (~/.cache/dptext/imdb-reviews.jsonl, scripts/data/fetch-data.sh), SanText+ ε=3, the
# embedded default model, a key file, Delta out, in ALTERNATING pairs (classic first in odd pairs, Connect
# first in even ones) so both sides share the machine's state of the moment. The Connect server (local[*],
# Spark + Delta + the dptext jar, DpTextExtensions) is started once and stays up, as a cluster would: its
# first run builds the sampler, later runs find it in the server's cache. Prints each run's wall time
# (client JVM start to exit), the medians and their ratio; checks that every output equals the first
# classic one row for row (dev.dptext.tools.CheckOutputs, of the tools/ module).
#
# COLD=1: a new server before every Connect run (started and ready before the run's clock starts): what a
# freshly started cluster pays on its first job. MODEL (default: default) names the model both sides use.
# The server gets the settings the classic job gives its own local session (Delta's state rebuilt in one
# partition per core, shuffles sized to the machine), as a cluster's admin sets them, so that both sides
# run like for like.
#
#   ./mvnw -q -DskipTests package && scripts/bench/connect.sh [rows=2000] [pairs=3]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROWS=${1:-2000}
PAIRS=${2:-3}
REVIEWS=${REVIEWS:-$HOME/.cache/dptext/imdb-reviews.jsonl}
[[ -f "$REVIEWS" ]] || { echo "bench-connect: no $REVIEWS; run scripts/data/fetch-data.sh" >&2; exit 2; }
# shellcheck source=../lib/connect.sh
source "$ROOT/scripts/lib/connect.sh"
# shellcheck source=../lib/tools.sh
source "$ROOT/scripts/lib/tools.sh"
WORK=$(mktemp -d /tmp/dptext-bench-connect.XXXXXX)
PORT=${PORT:-15098}
head -n "$ROWS" "$REVIEWS" > "$WORK/reviews.jsonl"
openssl rand -hex 32 > "$WORK/key"

server() {
  start_connect_server "$PORT" "$WORK" "$SHADED:$PROVIDED" \
    io.delta.sql.DeltaSparkSessionExtension,dev.dptext.spark.DpTextExtensions \
    -Dspark.databricks.delta.snapshotPartitions="$(nproc)" -Dspark.sql.shuffle.partitions="$(( 2 * $(nproc) ))"
}
server

ARGS=(sanitize --input "$WORK/reviews.jsonl" --text-column review --id-column id --mechanism santext+
  --epsilon 3 --model "${MODEL:-default}" --key-file "$WORK/key" --progress-interval 0)
# Classic as a user runs it: scripts/dptext with its class-data archive (primed by one untimed run).
classic() { scripts/dptext "${ARGS[@]}" --output "$1"; }
connect() { java $MODULE_OPTIONS -Xmx1g -Xlog:disable -cp "$SHADED:$CLIENT_JAR:$PROVIDED" \
  -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" -Dspark.api.mode=connect \
  -Dspark.remote="sc://127.0.0.1:$PORT" dev.dptext.job.DpTextJob "${ARGS[@]}" --output "$1"; }
timed() { local side=$1 out=$2 t0 t1; t0=$(date +%s.%N); "$side" "$out" > "$out.log" 2>&1; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc; }

classic "$WORK/classic-prime" > "$WORK/classic-prime.log" 2>&1
echo "bench-connect: $ROWS reviews, $PAIRS pairs, server $([[ "${COLD:-0}" == 1 ]] && echo "new for every Connect run" || echo "kept up"), model ${MODEL:-default}; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); work $WORK"
declare -a C K
for p in $(seq 1 "$PAIRS"); do
  if (( p % 2 == 1 )); then order=(classic connect); else order=(connect classic); fi
  for side in "${order[@]}"; do
    if [[ $side == connect && "${COLD:-0}" == 1 && $p -gt 1 ]]; then
      kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
      server
    fi
    s=$(timed "$side" "$WORK/$side-$p")
    [[ $side == classic ]] && C+=("$s") || K+=("$s")
    printf 'pair %d %-8s %6.1f s\n' "$p" "$side" "$s"
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mc=$(median "${C[@]}"); mk=$(median "${K[@]}")
printf 'median classic %.1f s, Connect %.1f s, Connect/classic %.2f; load %s\n' "$mc" "$mk" "$(echo "$mk / $mc" | bc -l)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
others=()
for p in $(seq 1 "$PAIRS"); do
  others+=("$WORK/connect-$p"); [[ $p -gt 1 ]] && others+=("$WORK/classic-$p")
done
java $MODULE_OPTIONS -cp "$TOOLS_JAR:$PROVIDED" dev.dptext.tools.CheckOutputs delta id "$ROWS" "$WORK/classic-1" "${others[@]}" \
  | tail -n 2
