# Shared by the scripts that run dptext against a local Spark Connect server (sourced, with ROOT set):
#   SHADED, PROVIDED       the job's shaded jar and the Spark + Delta classpath of the build
#   SERVER_JAR, CLIENT_JAR spark-connect (server) and spark-connect-client-jvm, from the Maven cache
#   MODULE_OPTIONS         Spark's JVM flags, from the parent pom
#   start_connect_server PORT WORK CLASSPATH SQL_EXTENSIONS [more -D...]
#                          starts SparkConnectServer (local[*]) in the background, sets SERVER (its pid)
#                          and a trap that stops it, and returns once the port accepts connections
JOB="$ROOT/spark-job/target"
if [[ ! -f "$JOB/classpath-provided.txt" ]]; then
  echo "$(basename "$0"): build first: ./mvnw -q -DskipTests package" >&2
  exit 2
fi
SHADED=$(ls "$JOB"/dptext-spark-job-*-shaded.jar | head -n 1)
PROVIDED=$(cat "$JOB/classpath-provided.txt")
M2_SPARK="${M2_REPO:-$HOME/.m2/repository}/org/apache/spark"
SERVER_JAR="$M2_SPARK/spark-connect_2.13/4.0.1/spark-connect_2.13-4.0.1.jar"
CLIENT_JAR="$M2_SPARK/spark-connect-client-jvm_2.13/4.0.1/spark-connect-client-jvm_2.13-4.0.1.jar"
if [[ ! -f "$SERVER_JAR" || ! -f "$CLIENT_JAR" ]]; then
  echo "$(basename "$0"): no spark-connect jars in the Maven cache; run the tests once (they fetch them)" >&2
  exit 2
fi
MODULE_OPTIONS=$(sed -n 's#.*<spark.module.options>\(.*\)</spark.module.options>.*#\1#p' "$ROOT/pom.xml")

start_connect_server() {
  local port=$1 work=$2 classpath=$3 extensions=$4
  shift 4
  # shellcheck disable=SC2086
  java $MODULE_OPTIONS -Xmx4g -cp "$classpath:$SERVER_JAR" \
    -Dspark.master='local[*]' -Dspark.ui.enabled=false -Dspark.connect.grpc.binding.port="$port" \
    -Dspark.connect.grpc.binding.address=127.0.0.1 -Dspark.driver.host=127.0.0.1 \
    -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" -Dspark.sql.extensions="$extensions" \
    -Dspark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog \
    -Dderby.system.home="$work/derby" -Dspark.sql.warehouse.dir="$work/warehouse" "$@" \
    org.apache.spark.sql.connect.service.SparkConnectServer >"$work/server.log" 2>&1 &
  SERVER=$!
  trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
  for _ in $(seq 1 120); do
    (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && return 0
    kill -0 "$SERVER" 2>/dev/null || { echo "the Connect server stopped; see $work/server.log" >&2; exit 1; }
    sleep 1
  done
  echo "the Connect server did not open port $port in 120 s; see $work/server.log" >&2
  exit 1
}
