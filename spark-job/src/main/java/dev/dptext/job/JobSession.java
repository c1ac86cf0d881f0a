package dev.dptext.job;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** The job's SparkSession: Delta enabled; {@code local[*]} when not launched by spark-submit. */
final class JobSession {
  static final String DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension";
  static final String DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog";
  /** Delta's partitions for rebuilding a table's state (the files an overwrite replaces, …); 50 by default. */
  static final String DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions";

  private static final Pattern LOCAL = Pattern.compile("local(?:\\[(\\*|\\d+)(?:,\\d+)?])?");

  private JobSession() {}

  static SparkSession get() {
    SparkConf conf = new SparkConf();
    SparkSession.Builder b = SparkSession.builder().appName("dptext");
    if (!conf.contains("spark.master")) {
      b.master("local[*]");
    }
    String ext = conf.get("spark.sql.extensions", "");
    if (!ext.contains(DELTA_EXTENSION)) {
      b.config("spark.sql.extensions", ext.isEmpty() ? DELTA_EXTENSION : ext + "," + DELTA_EXTENSION);
    }
    if (!conf.contains("spark.sql.catalog.spark_catalog")) {
      b.config("spark.sql.catalog.spark_catalog", DELTA_CATALOG);
    }
    // Delta rebuilds a table's state in 50 partitions, sized for clusters; in local mode that is 50 tasks
    // on a few cores for a small log (an overwrite of a small table: 2.4 s less with one per core on two
    // cores, BENCHMARKS.md "Fixed cost of a run"). Same state, fewer tasks; a value the user set wins.
    int cores = localCores(conf.get("spark.master", "local[*]"), Runtime.getRuntime().availableProcessors());
    if (cores > 0 && !conf.contains(DELTA_SNAPSHOT_PARTITIONS)) {
      b.config(DELTA_SNAPSHOT_PARTITIONS, String.valueOf(cores));
    }
    return b.getOrCreate();
  }

  /**
   * The cores of a local master ({@code local}, {@code local[N]}, {@code local[*]}, {@code local[N,F]}),
   * or 0 for any other master (a cluster, {@code local-cluster[…]}).
   */
  static int localCores(String master, int available) {
    Matcher m = LOCAL.matcher(master.strip());
    if (!m.matches()) {
      return 0;
    }
    if (m.group(1) == null) {
      return 1;
    }
    return m.group(1).equals("*") ? available : Math.max(1, Integer.parseInt(m.group(1)));
  }
}
