#!/usr/bin/env bash
# Scale benchmark of the partitioned path; results go to BENCHMARKS.md by hand.
#   1. build-model --model-layout partitioned on real GloVe 6B 100-d, V = the first 25,000 / 100,000 /
#      341,479 words (tables for SanText and SanText+ w=0.9): wall time and peak memory.
#   2. sanitize the first $REVIEWS IMDb reviews with SanText+ (ε=3, w=0.9, p=0.3) and Laplace (ε=10) on
#      both layouts of the same model ($MECHANISMS, $LAYOUTS choose): tokens/s per core and peak memory.
#   3. SYNTHETIC vocabularies of $SYNTHETIC words (default "1000000 2000000"): SyntheticEmbeddings writes a
#      GloVe-format text file (GloVe's own words and vectors mixed, mapped to 300 d, perturbed; then
#      syn<rank> words; seeded), build-model --model-layout partitioned --neighbour-tables on-demand
#      builds the model from it (timed, peak memory), and $SYNTHETIC_MECHANISMS (default Laplace and
#      SanText+) run on $SYNTHETIC_LAYOUTS (default partitioned) over the first $SYNTHETIC_REVIEWS reviews
#      (Laplace's search costs 2·V·m flops a token: 1.2 GFLOP at 2M × 300 d; SanText+ computes the
#      candidate rows of the distinct words used, 2·V·m flops each).
# Usage: scripts/bench/scale.sh [sizes...]   e.g. scripts/bench/scale.sh 25000 100000 ("none": synthetic only)
#   REVIEWS=2000 SYNTHETIC="" MECHANISMS="" (builds only) DPTEXT_DATA=~/.cache/dptext DPTEXT_JAVA_OPTS=-Xmx8g
#
# RUNNER=local (default): master local[*], driver and executors one JVM; "peak" is that JVM's
#   maximum resident set (/usr/bin/time -v).
# RUNNER=cluster: a standalone cluster of scripts/cluster/ (2 workers of 1 core, one executor each,
#   heap $EXECUTOR_MEMORY, default 4g; the driver in client mode, heap $DRIVER_MEMORY, default 2g): every
#   step runs with the same heaps whatever V, and a sampler reads each JVM's VmHWM (the kernel's peak
#   resident set) every 0.5 s: "driver peak" is SparkSubmit's, "executor peak" the larger of the two
#   executors'.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${SCALE_WORK:-$CACHE/scale}"
REVIEWS="${REVIEWS:-2000}"
SIZES=("${@:-25000 100000 341479}")
SYNTHETIC="${SYNTHETIC-1000000 2000000}"
SYNTHETIC_REVIEWS="${SYNTHETIC_REVIEWS:-100}"
SYNTHETIC_LAYOUTS="${SYNTHETIC_LAYOUTS:-partitioned}"
SYNTHETIC_MECHANISMS="${SYNTHETIC_MECHANISMS:-laplace santext+}"
MECHANISMS="${MECHANISMS-santext+ laplace}"   # empty: the real-GloVe builds only, no sanitize runs
LAYOUTS="${LAYOUTS:-broadcast partitioned}"
RUNNER="${RUNNER:-local}"
DRIVER_MEMORY="${DRIVER_MEMORY:-2g}"
EXECUTOR_MEMORY="${EXECUTOR_MEMORY:-4g}"
export DPTEXT_JAVA_OPTS="${DPTEXT_JAVA_OPTS:--Xmx8g}"
mkdir -p "$WORK"
KEY_FILE=$(mktemp)
chmod 600 "$KEY_FILE"
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$KEY_FILE"
trap 'rm -f "$KEY_FILE"; [[ $RUNNER == cluster ]] && scripts/cluster/cluster.sh stop >/dev/null 2>&1 || true' EXIT
bench_data
bench_build job   # the job's shaded jar and the benchmarks' classpath (DPTEXT_SKIP_BUILD=1: already built)
CORES=$(nproc)
echo "== machine: $CORES cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), runner $RUNNER"
if [[ $RUNNER == cluster ]]; then
  echo "== cluster: 2 workers × 1 core, executor heap $EXECUTOR_MEMORY, driver heap $DRIVER_MEMORY"
  DPTEXT_WORKER_MEMORY="${WORKER_MEMORY:-6g}" scripts/cluster/cluster.sh start 2 >/dev/null
fi

# job_command JOB-ARGS...: sets JOB to the command line that runs dptext with these arguments on RUNNER.
job_command() {
  if [[ $RUNNER == cluster ]]; then
    JOB=(env DPTEXT_DRIVER_MEMORY="$DRIVER_MEMORY" scripts/cluster/submit.sh client
      --conf spark.executor.memory="$EXECUTOR_MEMORY" --conf spark.executor.cores=1 -- "$@")
  else
    JOB=(scripts/dptext "$@")
  fi
}

# peak_sampler FILE: until killed, every 0.5 s appends "<role> <pid> <VmHWM kB>" for the driver
# (SparkSubmit) and executor (CoarseGrainedExecutorBackend) JVMs; VmHWM only grows, so the last line
# of a pid is its peak up to the last 0.5 s.
peak_sampler() {
  local file=$1 pid role
  while true; do
    for role in driver:deploy.SparkSubmit executor:CoarseGrainedExecutorBackend; do
      for pid in $(pgrep -f "${role#*:}" || true); do
        awk -v r="${role%%:*}" -v p="$pid" '/^VmHWM/ {print r, p, $2}' "/proc/$pid/status" 2>/dev/null >> "$file" || true
      done
    done
    sleep 0.5
  done
}

# measure LABEL JOB-ARGS...: runs the job; prints its interesting lines, the wall time and the peaks.
measure() {
  local label="$1"; shift
  local log samples sampler wall
  log=$(mktemp); samples=$(mktemp)
  if [[ $RUNNER == cluster ]]; then
    peak_sampler "$samples" & sampler=$!
  fi
  local start=$SECONDS load_before
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  job_command "$@"
  if ! /usr/bin/time -v -o "$log.time" "${JOB[@]}" > "$log.out" 2> "$log"; then
    [[ -n ${sampler:-} ]] && kill "$sampler" 2>/dev/null
    cat "$log.out" "$log" | grep -v WARN | tail -30
    echo "$label: FAILED after $((SECONDS - start)) s"
    return 0
  fi
  [[ -n ${sampler:-} ]] && { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true; }
  grep -E "written to|throughput|tokens  |out of vocabulary|elapsed|built in|rows on demand|rounds" "$log.out" "$log" | sed "s/^[^:]*:/  /" || true
  wall=$(grep 'Elapsed (wall clock)' "$log.time" | awk '{print $NF}')
  if [[ $RUNNER == cluster ]]; then
    local driver executor
    driver=$(awk '$1 == "driver" && $3 > m {m = $3} END {printf "%.0f", m / 1024}' "$samples")
    executor=$(awk '$1 == "executor" && $3 > m {m = $3} END {printf "%.0f", m / 1024}' "$samples")
    echo "$label: wall $wall, driver peak $driver MiB, executor peak $executor MiB (heaps $DRIVER_MEMORY / $EXECUTOR_MEMORY), load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  else
    echo "$label: wall $wall, peak RSS $(grep 'Maximum resident set size' "$log.time" | awk '{printf "%.0f", $NF/1024}') MiB (one JVM), load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  fi
  rm -f "$log" "$log.out" "$log.time" "$samples"
}

sanitize() {
  local model="$1" layout="$2" mechanism="$3" input="$4"; shift 4
  local out; out=$(mktemp -d)
  measure "sanitize $mechanism $layout" sanitize --input "$input" --text-column review \
    --id-column id --model "$model" --model-layout "$layout" --mechanism "$mechanism" "$@" \
    --key-file "$KEY_FILE" --output "$out/o" --output-format parquet --progress-interval 0
  rm -rf "$out"
}

mechanism_args() {
  case "$1" in
    santext+) echo "--epsilon 3 --w 0.9 --p 0.3" ;;
    laplace) echo "--epsilon 10" ;;
    *) echo "unknown mechanism $1" >&2; return 1 ;;
  esac
}

INPUT="$WORK/imdb-$REVIEWS.jsonl"
head -n "$REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$INPUT"
for V in ${SIZES[@]}; do
  [[ $V == none ]] && continue
  MODEL="$WORK/glove-100d-$V"
  echo "== real GloVe 100-d, V = $V"
  if [[ ! -s "$MODEL/manifest.properties" || "${REBUILD:-0}" == 1 ]]; then
    rm -rf "$MODEL"
    measure "build-model partitioned V=$V" build-model --model "$CACHE/glove.6B.100d.txt" \
      --vocab-size "$V" --model-layout partitioned --output "$MODEL"
  fi
  for mechanism in $MECHANISMS; do
    for layout in $LAYOUTS; do
      # shellcheck disable=SC2046
      sanitize "$MODEL" "$layout" "$mechanism" "$INPUT" $(mechanism_args "$mechanism")
    done
  done
done

if [[ -n "$SYNTHETIC" ]]; then
  SYNTHETIC_INPUT="$WORK/imdb-$SYNTHETIC_REVIEWS.jsonl"
  head -n "$SYNTHETIC_REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$SYNTHETIC_INPUT"
  for V in $SYNTHETIC; do
    FILE="$WORK/synthetic-300d-$V.txt"
    MODEL="$WORK/synthetic-300d-$V"
    echo "== SYNTHETIC 300-d, V = $V (seed 16)"
    if [[ ! -s "$FILE" ]]; then
      /usr/bin/time -v java -Xmx6g -cp "$(bench_classpath)" \
        dev.dptext.bench.SyntheticEmbeddings "$CACHE/glove.6B.100d.txt" "$V" 300 16 "$FILE" 2>&1 \
        | grep -E "synthetic embeddings|Elapsed" | sed "s/^/  /"
    fi
    if [[ ! -s "$MODEL/manifest.properties" || "${REBUILD:-0}" == 1 ]]; then
      rm -rf "$MODEL"
      measure "build-model partitioned, tables on demand, V=$V" build-model --model "$FILE" \
        --model-layout partitioned --neighbour-tables on-demand --output "$MODEL"
    fi
    for mechanism in $SYNTHETIC_MECHANISMS; do
      for layout in $SYNTHETIC_LAYOUTS; do
        # shellcheck disable=SC2046
        sanitize "$MODEL" "$layout" "$mechanism" "$SYNTHETIC_INPUT" $(mechanism_args "$mechanism")
      done
    done
  done
fi
