#!/usr/bin/env bash
# What the ledger's file digest costs (docs/ledger.md#what-a-repeat-is): a run over files with --ledger
# reads every input byte once more on the driver (SHA-256 per file) and once more after its write (the
# check that the files did not change meanwhile). Measured on
#   - the 50,000 IMDb reviews (one JSON-lines file, 68 MB): the whole sanitize with and without --ledger,
#     ROUNDS rounds alternating, each a fresh JVM; and the digest alone, from the run's own log line;
#   - a 1 GB input (16 files of those reviews, ids made distinct): a --dry-run with --ledger (it reads the
#     input's schema, aggregates the ids and digests the files, and sanitizes nothing), the digest's share
#     of it from the log line.
# The reference for the digest is coreutils' sha256sum over the same files (native code, one core).
# Results go to BENCHMARKS.md by hand.
#
#   ./mvnw -q -DskipTests package && scripts/bench/ledger-digest.sh      # ROUNDS=2
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
ROUNDS=${ROUNDS:-2}
REVIEWS=${REVIEWS:-$HOME/.cache/dptext/imdb-reviews.jsonl}
[[ -f spark-job/target/classpath.txt ]] || { echo "bench-ledger-digest: build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
[[ -f "$REVIEWS" ]] || { echo "bench-ledger-digest: no $REVIEWS; run scripts/data/fetch-data.sh" >&2; exit 2; }
WORK=$(mktemp -d /tmp/dptext-bench-digest.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$WORK/key"
mkdir -p "$WORK/one" "$WORK/big"
cp "$REVIEWS" "$WORK/one/reviews.jsonl"
python3 - "$REVIEWS" "$WORK/big" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
for part in range(16):
    with open(f"{sys.argv[2]}/part-{part:02d}.jsonl", "w", encoding="utf-8") as out:
        for line in lines:
            row = json.loads(line)
            row["id"] += part * len(lines)
            out.write(json.dumps(row) + "\n")
PY
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +'%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
echo "== inputs: one $(du -sm "$WORK/one" | cut -f1) MB file; $(ls "$WORK/big" | wc -l) files, $(du -sm "$WORK/big" | cut -f1) MB"
sums() { # <dir>: seconds for sha256sum over its files (page cache warm: run twice, keep the second)
  sha256sum "$1"/* > /dev/null
  local t0 t1; t0=$(date +%s.%N); sha256sum "$1"/* > /dev/null; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
run() { # <label> <input> [options...]: wall seconds, and the digest line of its log
  local label="$1" input="$2"; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  scripts/dptext sanitize --input "$input" --input-format json --text-column review --id-column id \
    --key-file "$WORK/key" --output "$WORK/out-$label" --output-format parquet --mode overwrite \
    --progress-interval 0 "$@" > "$WORK/last.log" 2>&1 || { cat "$WORK/last.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  printf '%s %.1f s%s\n' "$label" "$(echo "$t1 - $t0" | bc)" \
    "$(grep -o 'digested .*' "$WORK/last.log" | sed 's/^/; /' | tr '\n' ' ')" | tee -a "$WORK/times"
}
echo "sha256sum, 68 MB: $(sums "$WORK/one") s; 1 GB: $(sums "$WORK/big") s"
for ((round = 1; round <= ROUNDS; round++)); do
  run without "$WORK/one/reviews.jsonl"
  run with "$WORK/one/reviews.jsonl" --ledger "$WORK/ledger-$round"
done
run big-dry-run "$WORK/big" --ledger "$WORK/ledger-big" --dry-run
for label in without with; do
  printf '%s median %s s\n' "$label" "$(grep "^$label " "$WORK/times" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
done
