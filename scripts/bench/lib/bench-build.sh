# Sourced (not run) by the scripts/bench/*.sh that measure this checkout's own build: the steps they
# share before measuring, kept here so that the scripts cannot drift apart (one Maven command line, one
# reading of Spark's JVM flags, one benchmark classpath).
#
#   bench_data          the data sets in $DPTEXT_DATA (scripts/data/fetch-data.sh; idempotent)
#   bench_native_blas   Debian's OpenBLAS for the native SGEMM backend (scripts/setup-native-blas.sh)
#   bench_build benchmarks|job
#                       builds with `package`, never `install` (the local Maven repository may be shared
#                       by several checkouts), and writes the dependency classpath of the benchmarks
#                       module to benchmarks/target/bench.cp: `benchmarks` builds that module and what it
#                       needs (udfs), `job` the whole reactor, for scripts that also run scripts/dptext
#                       (the job's shaded jar). Skipped with DPTEXT_SKIP_BUILD=1
#                       (the checkout is already built: timed runs leave the build out of the lock);
#                       DPTEXT_MVN_ARGS adds Maven arguments (e.g. -o -Dmaven.repo.local=...).
#   bench_classpath     prints the classpath of the benchmarks' own JVMs (benchmarks and udfs classes,
#                       then their dependencies, Spark included), after bench_build
#   bench_key_and_model WORK
#                       sets KEY (a key file, made once, 0600) and MODEL (a build-model file of the embedded
#                       default vocabulary, built once, not timed) in WORK, for the scripts that time runs
#                       of the job given a prebuilt model
#
# and sets MODULE_OPTIONS: Spark's JVM flags (--add-opens..., --add-modules=jdk.incubator.vector), read
# from the parent pom's spark.module.options as scripts/dptext reads them. The callers cd to the root of
# the checkout first; the functions use paths relative to it.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"

bench_data() {
  "$BENCH_ROOT/scripts/data/fetch-data.sh" >&2
}

bench_native_blas() {
  "$BENCH_ROOT/scripts/setup-native-blas.sh" >&2
}

bench_build() {
  if [[ "${DPTEXT_SKIP_BUILD:-0}" == 1 ]]; then
    return 0
  fi
  local modules
  case "$1" in
    benchmarks) modules=(-pl benchmarks -am) ;;
    job) modules=() ;;
    *) echo "bench_build: benchmarks or job, not '$1'" >&2; return 2 ;;
  esac
  # shellcheck disable=SC2086
  ./mvnw -q -B -ntp ${DPTEXT_MVN_ARGS:-} -DskipTests "${modules[@]}" package dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=provided >/dev/null
}

bench_classpath() {
  echo "benchmarks/target/classes:udfs/target/classes:$(cat benchmarks/target/bench.cp)"
}

bench_key_and_model() {
  local work=$1
  KEY="$work/key"
  [[ -s "$KEY" ]] || (umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$KEY")
  MODEL="$work/default.dptext"
  if [[ ! -s "$MODEL" ]]; then
    "$BENCH_ROOT/scripts/dptext" build-model --model default --output "$MODEL" > "$work/build-model.out" 2>&1 \
      || { cat "$work/build-model.out" >&2; return 1; }
  fi
}

# shellcheck disable=SC2034 # used by the scripts that source this file
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$BENCH_ROOT/pom.xml")
