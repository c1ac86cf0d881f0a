#!/usr/bin/env bash
# Rewrites the documents' generated blocks (the mechanisms table of docs/mechanisms.md, the settings table
# of docs/settings.md, the error catalogue of docs/errors.md) from the tables they document
# (dev.dptext.settings.GeneratedBlocks): run it after adding a setting, a mechanism or an error; the parity
# test (SettingsParityTest) fails until the committed documents match.
#
#   ./mvnw -q -DskipTests package && scripts/regenerate-docs.sh [FILE...]
#                                       (default: GeneratedBlocks.DOCUMENTS, the documents that hold blocks)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
JOB="$ROOT/spark-job/target"
[[ -f "$JOB/classpath-provided.txt" ]] || { echo "regenerate-docs: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
java -cp "$ROOT/udfs/target/classes:$(cat "$JOB/classpath-provided.txt")" dev.dptext.settings.GeneratedBlocks "$@"
