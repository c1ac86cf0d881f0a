#!/usr/bin/env bash
# Fixed cost of a small run (results in BENCHMARKS.md, "Fixed cost of a run"):
# dptext sanitize against a plain Spark job that reads the same JSON and writes it as Parquet, each a
# cold JVM, in ALTERNATING pairs (dptext first in odd pairs, the identity job first in even ones), so
# that both sides of a pair share the machine's state of the moment.
#
#   DPTEXT_SKIP_BUILD=1 flock -x /tmp/dptext-cpu.lock scripts/bench/fixed-cost.sh [reviews=5000] [pairs=5]
#
# (without DPTEXT_SKIP_BUILD=1 it first builds with `package`, as scripts/bench/lib/bench-build.sh does; build
# outside the lock and skip it inside)
#
# (a) dptext sanitize: the first N IMDb reviews (~/.cache/dptext/imdb-reviews.jsonl, from
#     scripts/data/fetch-data.sh), SanText+ ε=3 (w=0.9, p=0.3), a prebuilt model artifact of the embedded
#     default vocabulary (build-model --model default, built once, outside the timing), key from a
#     file, Parquet out, every other option at its default (schema inferred, as the identity job does).
# (b) dev.dptext.bench.IdentityJob: spark.read().json(input).write().parquet(output).
# dptext is launched by scripts/dptext itself (a cold JVM per run: it execs java), with
# DPTEXT_JAVA_OPTS = ${DPTEXT_JAVA_OPTS:--Xmx4g}; the identity job as scripts/dptext launches the job:
# the same java, JVM options, Spark's module flags from the pom, conf/log4j2.properties, master
# local[*], with the benchmarks jar and the same Spark classpath (not the shaded jar: a plain Spark job
# does not carry dptext's classes).
#
# Prints per run the wall time (JVM start to exit, from this script) and CPU time (user + sys), per
# pair the difference, then the medians. Then, unless BREAKDOWN=0, one instrumented run of each
# (scripts/bench/lib/fixed-cost-log4j2.properties: every line stamped with the ms since the JVM started,
# Spark's job and code-generation lines, dptext's DEBUG phase lines; -Xlog:class+load) and the
# breakdown of where dptext's extra seconds go (scripts/bench/lib/fixed_cost_breakdown.py). The
# instrumented runs log more than the timed ones and are not in the medians.
#
# The launcher's class-data archive (scripts/dptext) is primed by one untimed run; IDENTITY_CDS=1 gives
# the identity job an archive of its own too (the same JVM feature, like for like).
#
# BASELINE=<another checkout, built>: its dptext runs too, by its own scripts/dptext (its jar, Spark
# classpath and log configuration), in rotating triples (dptext, baseline, identity), for measuring a
# change side by side.
# PROFILE=1: one more dptext run under JDK Flight Recorder, not in the medians, and its top frames
# (scripts/bench/lib/jfr_top.py): what the whole job spends its CPU on.
# Environment: DPTEXT_DATA (default ~/.cache/dptext), FIXED_COST_WORK (default $DPTEXT_DATA/fixed-cost),
# REBUILD=1 (rebuild the model artifact), BREAKDOWN=0, PROFILE=1, DPTEXT_JAVA_OPTS, DPTEXT_SKIP_BUILD, DPTEXT_MVN_ARGS.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
REVIEWS=${1:-5000}
PAIRS=${2:-5}
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
WORK="${FIXED_COST_WORK:-$CACHE/fixed-cost}"
# shellcheck source-path=SCRIPTDIR source=lib/bench-build.sh
source scripts/bench/lib/bench-build.sh
bench_build job
JOB="$ROOT/spark-job/target"
BENCH_JAR=$(ls "$ROOT"/benchmarks/target/dptext-benchmarks-*.jar 2>/dev/null | head -n 1 || true)
[[ -f "$JOB/classpath-provided.txt" && -n "$BENCH_JAR" ]] \
  || { echo "bench-fixed-cost: not built (run it without DPTEXT_SKIP_BUILD=1)" >&2; exit 2; }
[[ -f "$CACHE/imdb-reviews.jsonl" ]] || { echo "bench-fixed-cost: no $CACHE/imdb-reviews.jsonl; run scripts/data/fetch-data.sh" >&2; exit 2; }
IDENTITY_CP="$BENCH_JAR:$(cat "$JOB/classpath-provided.txt")"
if [[ -n "${BASELINE:-}" ]]; then
  # Another build of dptext (e.g. an earlier commit's checkout, built with package) in the same pairs.
  [[ -x "$BASELINE/scripts/dptext" ]] || { echo "bench-fixed-cost: no $BASELINE/scripts/dptext" >&2; exit 2; }
fi
JAVA_OPTS=${DPTEXT_JAVA_OPTS:--Xmx4g}

mkdir -p "$WORK"
INPUT="$WORK/imdb-$REVIEWS.jsonl"
head -n "$REVIEWS" "$CACHE/imdb-reviews.jsonl" > "$INPUT"
KEY="$WORK/key"
if [[ ! -s "$KEY" ]]; then
  (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$KEY")
fi
MODEL="$WORK/default.dptext"
if [[ ! -s "$MODEL" || "${REBUILD:-0}" == 1 ]]; then
  echo "bench-fixed-cost: building the model artifact of the embedded default vocabulary (once, not timed)"
  rm -f "$MODEL"
  scripts/dptext build-model --model default --output "$MODEL" > "$WORK/build-model.out" 2>&1 \
    || { cat "$WORK/build-model.out"; exit 1; }
  tail -n 1 "$WORK/build-model.out"
fi

# run NAME LOG_CONFIG EXTRA_JVM_OPTS: one cold JVM — dptext (or the baseline) by scripts/dptext, the
# identity job as scripts/dptext launches the job (java, the JVM options, Spark's module flags, the log
# configuration, the classpath, the main class); sets WALL (JVM start to exit, seconds) and CPU (user +
# sys of the JVM, seconds).
run() {
  local name=$1 log_config=$2 extra=$3 out="$WORK/out-$1" t0 t1 cmd env=()
  rm -rf "$out"
  if [[ $name == dptext* || $name == baseline* ]]; then
    # scripts/dptext puts DPTEXT_JAVA_OPTS last, so this log configuration replaces its default.
    env=(env "DPTEXT_JAVA_OPTS=$JAVA_OPTS $extra -Dlog4j2.configurationFile=$log_config")
    cmd=("$([[ $name == dptext* ]] && echo "$ROOT" || echo "$BASELINE")/scripts/dptext" sanitize --input "$INPUT"
      --text-column review --id-column id --model "$MODEL" --mechanism santext+ --epsilon 3 --key-file "$KEY"
      --output-format parquet --output "$out")
  else
    # shellcheck disable=SC2206
    cmd=(java $JAVA_OPTS $MODULE_OPTIONS $extra ${IDENTITY_CDS_OPTS:-} -Dlog4j2.configurationFile="$log_config"
      -cp "$IDENTITY_CP" dev.dptext.bench.IdentityJob "$INPUT" "$out")
  fi
  t0=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$WORK/$name.time" "${env[@]}" "${cmd[@]}" > "$WORK/$name.out" 2> "$WORK/$name.err" \
    || { echo "bench-fixed-cost: $name failed"; tail -n 20 "$WORK/$name.err"; exit 1; }
  t1=$(date +%s%N)
  if [[ $name != identity* ]] && ! grep -q "rows in / out      $(commas "$REVIEWS") / $(commas "$REVIEWS")" "$WORK/$name.out"; then
    echo "bench-fixed-cost: $name did not write every row"; cat "$WORK/$name.out"; exit 1
  fi
  WALL=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
  CPU=$(awk '{printf "%.1f", $1 + $2}' "$WORK/$name.time")
}

commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# scripts/dptext keeps a class-data archive of its build (JDK AppCDS), saved by the first `sanitize` of a
# build: one untimed run first, so that every timed run is what a user's second and later runs are (a
# baseline checkout whose launcher does the same gets its archive here too).
for side in dptext ${BASELINE:+baseline}; do
  run "$side-prime" "$ROOT/conf/log4j2.properties" ""
done
# IDENTITY_CDS=1: the identity job gets the same JVM feature (its own archive, from one untimed run), for
# comparing like with like.
if [[ "${IDENTITY_CDS:-0}" == 1 ]]; then
  rm -f "$WORK/identity.jsa"
  IDENTITY_CDS_OPTS="-Xlog:cds*=off -XX:ArchiveClassesAtExit=$WORK/identity.jsa" run identity-prime "$ROOT/conf/log4j2.properties" ""
  IDENTITY_CDS_OPTS="-XX:SharedArchiveFile=$WORK/identity.jsa"
fi

echo "== bench-fixed-cost: $REVIEWS reviews ($(wc -c < "$INPUT") bytes), $PAIRS $([[ -n "${BASELINE:-}" ]] && echo "triples (dptext, baseline, identity)" || echo pairs); $(date -u +%FT%TZ)," \
  "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), flags:" \
  "$(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma)' | tr '\n' ' ')"
echo "== java: $(java -version 2>&1 | head -n 1); JVM options: $JAVA_OPTS + Spark's module flags; identity job's class-data archive: $([[ -n "${IDENTITY_CDS_OPTS:-}" ]] && echo yes || echo no); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
SIDES=(dptext identity)
if [[ -n "${BASELINE:-}" ]]; then
  SIDES=(dptext baseline identity)
fi
if [[ -n "${BASELINE:-}" ]]; then
  echo "| pair | order | dptext wall | baseline wall | identity wall | dptext − identity | baseline − identity | dptext − baseline | dptext CPU | baseline CPU | identity CPU |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
else
  echo "| pair | order | dptext wall | identity wall | difference | dptext CPU | identity CPU |"
  echo "|---:|---|---:|---:|---:|---:|---:|"
fi
declare -A W C
D_WALL=(); B_WALL=(); I_WALL=(); DIFF=(); B_DIFF=(); AB=(); D_CPU=(); B_CPU=(); I_CPU=()
for ((p = 1; p <= PAIRS; p++)); do
  # Rotate the order: each side leads in turn (dptext first in pair 1).
  n=${#SIDES[@]}
  order=()
  for ((k = 0; k < n; k++)); do order+=("${SIDES[$(( (k + p - 1) % n ))]}"); done
  for side in "${order[@]}"; do
    run "$side-$p" "$ROOT/conf/log4j2.properties" ""
    W[$side]=$WALL; C[$side]=$CPU
  done
  diff=$(echo "scale=3; ${W[dptext]} - ${W[identity]}" | bc)
  D_WALL+=("${W[dptext]}"); I_WALL+=("${W[identity]}"); DIFF+=("$diff"); D_CPU+=("${C[dptext]}"); I_CPU+=("${C[identity]}")
  if [[ -n "${BASELINE:-}" ]]; then
    bdiff=$(echo "scale=3; ${W[baseline]} - ${W[identity]}" | bc)
    ab=$(echo "scale=3; ${W[dptext]} - ${W[baseline]}" | bc)
    B_WALL+=("${W[baseline]}"); B_DIFF+=("$bdiff"); AB+=("$ab"); B_CPU+=("${C[baseline]}")
    printf '| %d | %s | %.2f s | %.2f s | %.2f s | %+.2f s | %+.2f s | %+.2f s | %s s | %s s | %s s |\n' "$p" \
      "$(echo "${order[*]}" | sed 's/ /, /g')" "${W[dptext]}" "${W[baseline]}" "${W[identity]}" "$diff" "$bdiff" "$ab" \
      "${C[dptext]}" "${C[baseline]}" "${C[identity]}"
  else
    printf '| %d | %s first | %.2f s | %.2f s | %+.2f s | %s s | %s s |\n' "$p" "${order[0]}" "${W[dptext]}" \
      "${W[identity]}" "$diff" "${C[dptext]}" "${C[identity]}"
  fi
done
if [[ -n "${BASELINE:-}" ]]; then
  printf '| **median** | | **%.2f s** | **%.2f s** | **%.2f s** | **%+.2f s** | **%+.2f s** | **%+.2f s** | %.1f s | %.1f s | %.1f s |\n' \
    "$(median "${D_WALL[@]}")" "$(median "${B_WALL[@]}")" "$(median "${I_WALL[@]}")" "$(median "${DIFF[@]}")" \
    "$(median "${B_DIFF[@]}")" "$(median "${AB[@]}")" "$(median "${D_CPU[@]}")" "$(median "${B_CPU[@]}")" "$(median "${I_CPU[@]}")"
else
  printf '| **median** | | **%.2f s** | **%.2f s** | **%+.2f s** | %.1f s | %.1f s |\n' "$(median "${D_WALL[@]}")" \
    "$(median "${I_WALL[@]}")" "$(median "${DIFF[@]}")" "$(median "${D_CPU[@]}")" "$(median "${I_CPU[@]}")"
fi
echo
echo "dptext − identity per pair: $(printf '%+.2f ' "${DIFF[@]}")s; median ratio of walls: $(echo "scale=2; $(median "${D_WALL[@]}") / $(median "${I_WALL[@]}")" | bc)"
if [[ -n "${BASELINE:-}" ]]; then
  echo "dptext − baseline per pair: $(printf '%+.2f ' "${AB[@]}")s"
fi
echo "dptext's own summary, last timed run: $(grep -h 'elapsed' "$WORK/dptext-$PAIRS.out" | sed 's/^ *//')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ "${PROFILE:-0}" == 1 ]]; then
  # One dptext run under JDK Flight Recorder (its "profile" settings: a CPU sample every 10 ms per thread),
  # not in the medians; its top frames by scripts/bench/lib/jfr_top.py.
  echo
  echo "== profile: one dptext run under JFR, not in the medians"
  run dptext-profile "$ROOT/conf/log4j2.properties" \
    "-XX:StartFlightRecording=filename=$WORK/dptext-profile.jfr,settings=profile,dumponexit=true"
  echo "dptext-profile: wall $WALL s, CPU $CPU s"
  python3 scripts/bench/lib/jfr_top.py "$WORK/dptext-profile.jfr" 25
fi

if [[ "${BREAKDOWN:-1}" != 0 ]]; then
  echo
  echo "== breakdown: one instrumented run of each (ms-stamped INFO/DEBUG log, -Xlog:class+load), not in the medians"
  for side in dptext identity; do
    run "$side-breakdown" "$ROOT/scripts/bench/lib/fixed-cost-log4j2.properties" \
      "-Xlog:class+load=info:file=$WORK/$side-breakdown.classes:uptime"
    echo "$side-breakdown: wall $WALL s, CPU $CPU s" > "$WORK/$side-breakdown.wall"
  done
  python3 scripts/bench/lib/fixed_cost_breakdown.py "$WORK" "$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1)"
fi
