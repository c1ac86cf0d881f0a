# Sourced (with ROOT set to the checkout) by the scripts that run the checking programs of the tools/
# Maven module (dev.dptext.tools: CheckOutputs, NoRawText, RawDeltaTable, CompareTables, CpuScaling):
#   TOOLS_JAR   tools/target/dptext-tools-<v>.jar, built by ./mvnw -q -DskipTests package (the whole
#               reactor; alone: ./mvnw -q -DskipTests -pl tools package). The programs need Spark and Delta
#               on the class path besides it (CpuScaling needs nothing else):
#               java $MODULE_OPTIONS -cp "$TOOLS_JAR:<Spark and Delta>" dev.dptext.tools.CheckOutputs ...
TOOLS_JAR=$(ls "$ROOT"/tools/target/dptext-tools-*.jar 2>/dev/null | head -n 1 || true)
if [[ -z "$TOOLS_JAR" ]]; then
  echo "$(basename "$0"): no tools/target/dptext-tools-*.jar; build first: ./mvnw -q -DskipTests package" >&2
  exit 2
fi
