#!/usr/bin/env bash
# The test suite's time and where its CPU goes: README's test command (.ci/run) on a fresh clone of
# HEAD, with a sampler that records once a second the machine's CPU counters and every java/python
# process's CPU time. Then scripts/bench/suite_profile.py prints the wall time, the CPU-seconds and
# the 2-core use per test class, and the CPU of each JVM the suite started (Surefire, the Connect
# server, launcher and kill-test children, PySpark). BENCHMARKS.md, "Test suite".
#
#   scripts/bench/suite.sh [workdir=/tmp/dptext-suite]      # as long as the suite; run it alone
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${1:-/tmp/dptext-suite}"
rm -rf "$WORK" && mkdir -p "$WORK"
git clone -q "$ROOT" "$WORK/clone"
echo "== bench-suite: commit $(git -C "$WORK/clone" rev-parse --short HEAD); $(date -u +%FT%TZ); $(nproc) cores," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
sample() {
  while true; do
    echo "T $(date +%s) $(head -1 /proc/stat)"
    ps -e -o pid=,ppid=,cputimes=,args= | awk '$4 ~ /java|python|pytest/ {
      printf "P %s %s %s ", $1, $2, $3; for (i = 4; i <= NF && i < 40; i++) printf "%s ", $i; print "" }' | cut -c1-1500
    sleep 1
  done
}
sample > "$WORK/samples.txt" 2>&1 &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null || true' EXIT
start=$(date +%s)
set +e
(cd "$WORK/clone" && .ci/run) 2>&1 | while IFS= read -r line; do echo "$(($(date +%s) - start)) $line"; done > "$WORK/ci.log"
status=${PIPESTATUS[0]}
set -e
kill $SAMPLER 2>/dev/null || true
python3 "$ROOT/scripts/bench/suite_profile.py" "$WORK" | tee "$WORK/profile.txt"
echo "== bench-suite: .ci/run exit $status; log $WORK/ci.log"
exit "$status"
