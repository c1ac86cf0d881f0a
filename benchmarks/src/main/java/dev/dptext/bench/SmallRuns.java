package dev.dptext.bench;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * The fixed cost of a small scheduled run, warm ({@code scripts/bench/small-runs.sh}): in ONE JVM and one
 * SparkSession (built as the job builds its own), rounds of six appends of the same small input, in rotating
 * order — dptext {@code sanitize} to Delta ({@code --mode append}; and a nightly's shape, with
 * {@code --txn-app-id}/{@code --txn-version}), dptext to Parquet, and a plain Spark job writing the same JSON to
 * Delta (also with Delta's {@code txnAppId}/{@code txnVersion} writer options) and to Parquet. The first round creates the six tables and is not counted.
 *
 * <p>Prints each run's wall time and, per dptext run, the Spark actions it made (a {@link QueryExecutionListener}:
 * one line per query with its kind and duration), so that the Delta run's extra round trips show by name.
 *
 * <p>The job is called through {@code dev.dptext.job.DpTextJob.execute(SparkSession, String...)}, found by
 * reflection: the benchmarks module does not depend on the job, and the job's shaded jar is on the classpath.
 *
 * <p>With {@code stream}: rounds of one-row micro-batches instead, each a new file of the input's first row in a
 * landing directory, taken by an available-now query — dptext's {@code sanitize --stream} against a plain Spark
 * stream of the same files into Delta (both keep their checkpoint across rounds).
 *
 * <p>Usage: {@code SmallRuns INPUT.jsonl WORK_DIR MODEL KEY_FILE ROUNDS [stream]}.
 */
public final class SmallRuns {
  private SmallRuns() {}

  /** One query the session ran: what kind, and how long. */
  private record Query(String name, long nanos, String plan) {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: SmallRuns INPUT.jsonl WORK_DIR MODEL KEY_FILE ROUNDS");
      System.exit(2);
    }
    String input = args[0];
    Path work = Path.of(args[1]);
    String model = args[2];
    String key = args[3];
    int rounds = Integer.parseInt(args[4]);
    Class<?> job = Class.forName("dev.dptext.job.DpTextJob");
    Method execute = job.getMethod("execute", SparkSession.class, String[].class);
    SparkSession spark = (SparkSession) Class.forName("dev.dptext.job.base.JobSession").getMethod("get").invoke(null);
    ConcurrentLinkedQueue<Query> queries = new ConcurrentLinkedQueue<>();
    spark.listenerManager().register(new QueryExecutionListener() {
      @Override
      public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
        queries.add(new Query(funcName, durationNs, firstLine(qe.analyzed().toString())));
      }

      @Override
      public void onFailure(String funcName, QueryExecution qe, Exception exception) {
        queries.add(new Query(funcName + " FAILED", 0, firstLine(qe.analyzed().toString())));
      }
    });
    Files.createDirectories(work);
    boolean streams = args.length > 5 && args[5].equals("stream");
    String[] sides = streams ? new String[] {"dptext-stream", "plain-stream"}
        : new String[] {"dptext-delta", "dptext-delta-txn", "dptext-parquet", "plain-delta", "plain-delta-txn",
          "plain-parquet"};
    List<String> oneRow = Files.readAllLines(Path.of(input)).subList(0, 1);
    Map<String, List<Double>> times = new LinkedHashMap<>();
    for (String s : sides) {
      times.put(s, new ArrayList<>());
    }
    System.out.println("== SmallRuns: " + input + ", " + rounds + " counted rounds after one that creates the tables");
    for (int round = 0; round <= rounds; round++) {
      for (int k = 0; k < sides.length; k++) {
        String side = sides[(k + round) % sides.length];
        Path out = work.resolve(side);
        queries.clear();
        long t0 = System.nanoTime();
        switch (side) {
          case "dptext-delta", "dptext-delta-txn", "dptext-parquet" -> {
            boolean delta = side.contains("delta");
            List<String> a = new ArrayList<>(List.of("sanitize", "--input", input, "--id-column", "id", "--model", model,
                "--key-file", key, "--output", out.toString(), "--output-format", delta ? "delta" : "parquet", "--mode",
                "append", "--progress-interval", "0"));
            if (side.endsWith("txn")) {
              a.addAll(List.of("--txn-app-id", "small-runs", "--txn-version", Integer.toString(round)));
            }
            int code = (int) execute.invoke(null, spark, a.toArray(new String[0]));
            if (code != 0) {
              throw new IllegalStateException(side + " exited " + code);
            }
          }
          case "dptext-stream" -> {
            Path landing = newFile(work, side, round, oneRow);
            int code = (int) execute.invoke(null, spark, new String[] {"sanitize", "--stream", "--checkpoint",
                work.resolve(side + "-checkpoint").toString(), "--input", landing.toString(), "--input-format", "json",
                "--input-schema", SCHEMA, "--id-column", "id", "--model", model, "--key-file", key, "--output",
                out.toString(), "--progress-interval", "0"});
            if (code != 0) {
              throw new IllegalStateException(side + " exited " + code);
            }
          }
          case "plain-stream" -> {
            Path landing = newFile(work, side, round, oneRow);
            spark.readStream().schema(SCHEMA).json(landing.toString()).writeStream().format("delta")
                .option("checkpointLocation", work.resolve(side + "-checkpoint").toString())
                .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).start(out.toString()).awaitTermination();
          }
          case "plain-delta" -> spark.read().json(input).write().format("delta").mode("append").save(out.toString());
          case "plain-delta-txn" -> spark.read().json(input).write().format("delta").option("txnAppId", "small-runs")
              .option("txnVersion", round).mode("append").save(out.toString());
          case "plain-parquet" -> spark.read().json(input).write().mode("append").parquet(out.toString());
          default -> throw new IllegalStateException(side);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(200); // the listener is called on the listener bus, after the action returns
        if (round > 0) {
          times.get(side).add(s);
        }
        System.out.printf("round %d %-15s %7.3f s  %d queries%n", round, side, s, queries.size());
        if (side.startsWith("dptext") && round > 0) {
          for (Query q : queries) {
            System.out.printf("      %7.1f ms  %-10s %s%n", q.nanos() / 1e6, q.name(), q.plan());
          }
        }
      }
    }
    System.out.println();
    for (Map.Entry<String, List<Double>> e : times.entrySet()) {
      System.out.printf("median %-15s %7.3f s  (%s)%n", e.getKey(), median(e.getValue()), e.getValue());
    }
    if (streams) {
      System.out.printf("a one-row micro-batch into Delta: dptext - plain Spark %+.3f s%n",
          median(times.get("dptext-stream")) - median(times.get("plain-stream")));
      spark.stop();
      return;
    }
    double dt = median(times.get("dptext-delta-txn"));
    double dd = median(times.get("dptext-delta"));
    double dp = median(times.get("dptext-parquet"));
    double pd = median(times.get("plain-delta"));
    double pt = median(times.get("plain-delta-txn"));
    double pp = median(times.get("plain-parquet"));
    System.out.printf("Delta - Parquet: dptext %+.3f s, plain Spark %+.3f s; with a transaction id: dptext %+.3f s, "
        + "plain Spark %+.3f s%n", dd - dp, pd - pp, dt - dp, pt - pp);
    spark.stop();
  }

  /** The schema of the sample tickets, which a stream of JSON needs up front. */
  private static final String SCHEMA = "id BIGINT, customer STRING, text STRING";

  /** A new one-row file in {@code side}'s landing directory: the next micro-batch's input. */
  private static Path newFile(Path work, String side, int round, List<String> row) throws java.io.IOException {
    Path landing = Files.createDirectories(work.resolve(side + "-landing"));
    Files.write(landing.resolve("part-" + round + ".json"), row);
    return landing;
  }

  private static String firstLine(String s) {
    String line = s.lines().findFirst().orElse("");
    return line.length() > 110 ? line.substring(0, 110) + "…" : line;
  }

  private static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (a.length == 0) {
      return Double.NaN;
    }
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }
}
