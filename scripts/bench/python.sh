#!/usr/bin/env bash
# Python overhead against the Java API on the same data, in one session (BENCHMARKS.md).
# Needs the IMDb reviews (scripts/data/fetch-data.sh) and the Python build's venv with the package installed:
# ./mvnw -B -ntp test (or test -pl python -am) creates python/target/venv.
#   scripts/bench/python.sh [--rows 20000] [--rounds 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=python/target/venv
[ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import dptext' 2>/dev/null \
  || { echo "no Python build yet: run ./mvnw -B -ntp test -pl python -am first" >&2; exit 2; }
key=target/bench-python.key
mkdir -p target
[ -f "$key" ] || (umask 077; openssl rand -hex 32 > "$key")
exec "$venv/bin/python" scripts/bench/python_overhead.py --key-file "$PWD/$key" "$@"
