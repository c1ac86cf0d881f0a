#!/usr/bin/env bash
# The output of `sanitize` on a real corpus, hashed table by table, for checking that a refactoring changes
# no row: run it before and after (or with JOB_JAR=<another build's shaded jar>) and compare the lists.
#
#   scripts/check/output-hashes.sh [reviews=2000] > after.txt
#   JOB_JAR=/path/to/older-shaded.jar scripts/check/output-hashes.sh 2000 > before.txt; diff before.txt after.txt
#
# Each case is one run of the job's main class in a JVM of its own (no class-data archive), over the first N
# IMDb reviews (~/.cache/dptext/imdb-reviews.jsonl, from scripts/data/fetch-data.sh) with one fixed key
# (created once in the work directory, kept between runs: the hashes depend on it) and the prebuilt model of
# the embedded default vocabulary. The cases cover every mechanism, the id modes, the text options, the
# write modes (Parquet, Delta, merge after a first write, in place with purge-history), rejected records,
# the private-corpus opt-in, the ledger and a stream. Runs with fresh randomness are left out: their output
# is meant to differ. scripts/check/TableHash.java hashes each table (rows as JSON, sorted).
# Environment: DPTEXT_DATA (default ~/.cache/dptext), OUTPUT_HASHES_WORK (default $DPTEXT_DATA/output-hashes),
# JOB_JAR, CASES (a space-separated subset of the case names).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
REVIEWS=${1:-2000}
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${OUTPUT_HASHES_WORK:-$CACHE/output-hashes}"
JOB="$ROOT/spark-job/target"
JAR=${JOB_JAR:-$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1)}
[[ -f "$JOB/classpath-provided.txt" && -f "$JAR" ]] || { echo "output-hashes: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
[[ -f "$CACHE/imdb-reviews.jsonl" ]] || { echo "output-hashes: no $CACHE/imdb-reviews.jsonl; run scripts/data/fetch-data.sh" >&2; exit 2; }
CP="$JAR:$(cat "$JOB/classpath-provided.txt")"
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")
# shellcheck disable=SC2206
JAVA=(java $MODULE_OPTIONS -Xlog:disable -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" -Xmx3g)

mkdir -p "$WORK"
KEY="$WORK/key"
[[ -s "$KEY" ]] || (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$KEY")
MODEL="$WORK/default.dptext"
if [[ ! -s "$MODEL" ]]; then
  "${JAVA[@]}" -cp "$CP" dev.dptext.job.DpTextJob build-model --model default --output "$MODEL" > "$WORK/build-model.out" 2>&1 \
    || { cat "$WORK/build-model.out" >&2; exit 1; }
fi
RUN="$WORK/run"
rm -rf "$RUN"
mkdir -p "$RUN/input"
head -n "$REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$RUN/input/reviews.json"
# The same rows with two malformed records among them, for --on-corrupt reject.
mkdir -p "$RUN/corrupt"
{ head -n 10 "$RUN/input/reviews.json"; echo '{"id": "not a number", "review": "x"}'; echo '{broken';
  tail -n +11 "$RUN/input/reviews.json"; } > "$RUN/corrupt/reviews.json"

COMMON=(--input-format json --input-schema "id BIGINT, review STRING, sentiment STRING" --text-column review
  --model "$MODEL" --key-file "$KEY" --progress-interval 0)
HASHED=()
# job NAME ARGS...: one run; its stdout and stderr go to $RUN/NAME.log, a failure stops the script.
job() {
  local name=$1; shift
  if ! "${JAVA[@]}" -cp "$CP" dev.dptext.job.DpTextJob "$@" > "$RUN/$name.log" 2>&1; then
    echo "output-hashes: case $name failed:" >&2; tail -n 30 "$RUN/$name.log" >&2; exit 1
  fi
}
# case NAME FORMAT ARGS...: a run of sanitize over the reviews into $RUN/out-NAME, hashed.
case_() {
  local name=$1 format=$2; shift 2
  if [[ -n "${CASES:-}" && " $CASES " != *" $name "* ]]; then return; fi
  job "$name" sanitize --input "$RUN/input" "${COMMON[@]}" --output "$RUN/out-$name" --output-format "$format" "$@"
  HASHED+=("$name=$format:$RUN/out-$name")
}

case_ santext            parquet --id-column id
case_ santext-plus       delta   --id-column id --mechanism santext+ --epsilon 2 --w 0.8 --p 0.4
case_ laplace            parquet --id-column id --mechanism laplace --epsilon 12
case_ mahalanobis        parquet --id-column id --mechanism mahalanobis --epsilon 12 --lambda 0.3
case_ vickrey            parquet --id-column id --mechanism vickrey --epsilon 12 --t 0.6
case_ vickrey-topk       parquet --id-column id --mechanism vickrey-topk --epsilon 12 --t 0.5,1,2
case_ brr                parquet --id-column id --mechanism brr --epsilon 40 --bits 128
case_ tem                parquet --id-column id --mechanism tem --epsilon 2 --gamma 4.5
case_ custext            parquet --id-column id --mechanism custext --group-size 12
case_ custext-plus       parquet --id-column id --mechanism custext+ --verbatim "a;an;the;of;to;and"
case_ diffractor         parquet --id-column id --mechanism 1-diffractor
case_ diffractor-tem     parquet --id-column id --mechanism 1-diffractor --list-noise tem --lists 2
case_ content-hash       parquet --id-mode content-hash --output-column review_dp
case_ oov-restore        parquet --id-column id --oov keep --case-policy restore --epsilon 1
case_ private-corpus     parquet --id-column id --mechanism santext+ --frequency-source private-corpus
case_ ledger             delta   --id-column id --ledger "$RUN/ledger" --epsilon-budget 10
case_ where-then-merge   delta   --id-column id --where "id < 700"
if [[ -z "${CASES:-}" || " $CASES " == *" where-then-merge "* ]]; then
  job where-then-merge-2 sanitize --input "$RUN/input" "${COMMON[@]}" --output "$RUN/out-where-then-merge" \
    --id-column id --mode merge
fi
if [[ -z "${CASES:-}" || " $CASES " == *" rejects "* ]]; then
  job rejects sanitize --input "$RUN/corrupt" "${COMMON[@]}" --output "$RUN/out-rejects" --output-format delta \
    --id-column id --on-corrupt reject --rejects "$RUN/rejects"
  HASHED+=("rejects=delta:$RUN/out-rejects" "rejects-raw=delta:$RUN/rejects")
fi
if [[ -z "${CASES:-}" || " $CASES " == *" in-place "* ]]; then
  # A Delta table of the reviews to sanitize in place: a first run's output (Laplace, large ε), sanitized again.
  job in-place-source sanitize --input "$RUN/input" "${COMMON[@]}" --output "$RUN/out-in-place" --id-column id \
    --mechanism laplace --epsilon 30
  job in-place sanitize --input "$RUN/out-in-place" --input-format delta --text-column review --model "$MODEL" \
    --key-file "$KEY" --progress-interval 0 --output "$RUN/out-in-place" --id-column id --in-place purge-history \
    --mode overwrite
  HASHED+=("in-place=delta:$RUN/out-in-place")
fi
if [[ -z "${CASES:-}" || " $CASES " == *" stream "* ]]; then
  job stream sanitize --stream --trigger available-now --checkpoint "$RUN/checkpoint" --input "$RUN/input" \
    "${COMMON[@]}" --output "$RUN/out-stream" --id-column id
  HASHED+=("stream=delta:$RUN/out-stream")
fi
echo "# scripts/check/output-hashes.sh $REVIEWS  (jar: $(basename "$JAR"), $(sha256sum "$JAR" | cut -c1-12))"
"${JAVA[@]}" -cp "$CP" "$ROOT/scripts/check/TableHash.java" "${HASHED[@]}" 2>/dev/null
