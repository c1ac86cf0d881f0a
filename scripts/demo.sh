#!/usr/bin/env bash
# The fresh-machine demo: build (first time only), then sanitize the bundled sample tickets with
# SanText+ (ε=3) over the embedded GloVe subset, print the run summary and the sanitized rows.
# The RNG key is generated once into target/demo.key (a secret: it is never printed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
if ! ls spark-job/target/dptext-spark-job-*-shaded.jar >/dev/null 2>&1; then
  ./mvnw -q -B -DskipTests package
fi
mkdir -p target
if [[ ! -s target/demo.key ]]; then
  (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > target/demo.key)
fi
exec scripts/dptext sanitize --config conf/demo.properties --key-file target/demo.key "$@"
