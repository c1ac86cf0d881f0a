#!/usr/bin/env bash
# What the ledger's release identity costs against today's file digest, side by side in one JVM
# (benchmarks/single-file/LedgerContentCost.java): the input's check-and-count pass over the 50,000 IMDb
# reviews (one 68 MB JSON-lines file) without and with the rows' content sums, and the file digest of the
# same file. Results go to BENCHMARKS.md by hand.
#
#   ./mvnw -q -DskipTests package && ROUNDS=5 scripts/bench/ledger-content.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROUNDS=${ROUNDS:-5}
REVIEWS=${REVIEWS:-$HOME/.cache/dptext/imdb-reviews.jsonl}
[[ -d spark-job/target/classes ]] || { echo "bench-ledger-content: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
# Spark is provided to the job at run time: the job's test classpath has it (this checkout's classes first).
[[ -f spark-job/target/bench-ledger.cp ]] || ./mvnw -B -ntp -q -pl spark-job dependency:build-classpath \
  -Dmdep.outputFile=target/bench-ledger.cp -Dmdep.includeScope=test
[[ -f "$REVIEWS" ]] || { echo "bench-ledger-content: no $REVIEWS; run scripts/data/fetch-data.sh" >&2; exit 2; }
MODULE_OPTIONS=$(sed -n 's:.*<spark.module.options>\(.*\)</spark.module.options>.*:\1:p' pom.xml)
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
# shellcheck disable=SC2086
java $MODULE_OPTIONS -Xmx4g -cp "spark-job/target/classes:udfs/target/classes:$(cat spark-job/target/bench-ledger.cp)" \
  benchmarks/single-file/LedgerContentCost.java "$REVIEWS" "$ROUNDS"
