package dev.dptext.classic;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * What only a classic session has: its {@code SparkContext} and what hangs off it (the Hadoop configuration,
 * accumulators, the status tracker, the application). Loaded only once {@link Classic#is} said the session is
 * classic; each method still fails on a Spark Connect session with a message naming the alternative.
 */
public final class ClassicContext {
  private ClassicContext() {}

  /**
   * The session's {@code SparkContext}, for {@code feature}.
   *
   * @param feature what needs it, for the message (e.g. "the partitioned model layout")
   * @param alternative what to use instead on Spark Connect (e.g. "modelLayout=broadcast")
   * @throws UnsupportedOperationException on a Spark Connect session, naming both
   */
  public static SparkContext context(SparkSession spark, String feature, String alternative) {
    Classic.requireClassic(spark, feature, alternative);
    return spark.sparkContext();
  }

  /** {@link Classic#describeJobs}: the thread's {@code spark.job.description}, replaced. */
  static String describeJobs(SparkSession spark, String description) {
    SparkContext sc = spark.sparkContext();
    String before = sc.getLocalProperty("spark.job.description"); // the property setJobDescription sets
    sc.setJobDescription(description);
    return before;
  }

  /** {@link Classic#tagJobs}: the thread's job tags of the {@code SparkContext}. */
  static void tagJobs(SparkSession spark, String tag, boolean add) {
    if (add) {
      spark.sparkContext().addJobTag(tag);
    } else {
      spark.sparkContext().removeJobTag(tag);
    }
  }

  /** {@link Classic#jobsTagged}. */
  static boolean jobsTagged(SparkSession spark, String tag) {
    return spark.sparkContext().getJobTags().contains(tag);
  }

  /** The application's Hadoop configuration (with its {@code spark.hadoop.*} settings); classic only. */
  public static org.apache.hadoop.conf.Configuration hadoopConfiguration(SparkSession spark) {
    return context(spark, "the application's Hadoop configuration", "Use the session's spark.hadoop.* settings")
        .hadoopConfiguration();
  }

  /** The cluster's default parallelism (its cores, for most cluster managers). */
  public static int defaultParallelism(SparkSession spark) {
    return context(spark, "the cluster's default parallelism", "").defaultParallelism();
  }

  /** The partitions {@code df} is read in (planning it, not running it). */
  public static int partitions(org.apache.spark.sql.Dataset<?> df) {
    Classic.requireClassic(df.sparkSession(), "counting a Dataset's partitions", "");
    return df.rdd().getNumPartitions();
  }

  /**
   * The application of the session's {@code SparkContext}: a JVM has one, and what a driver caches per
   * application (a broadcast handle) dies with it.
   */
  public static String applicationId(SparkSession spark) {
    return context(spark, "the application id", "").applicationId();
  }

  /**
   * The id of the streaming query whose micro-batch this thread runs (Spark's {@code sql.streaming.queryId}
   * local property), for a {@code foreachBatch} function that runs where the query runs: the driver, or a
   * Spark Connect server.
   */
  public static java.util.Optional<String> streamingQueryId(SparkSession spark) {
    return java.util.Optional.ofNullable(context(spark, "the streaming query's id", "")
        .getLocalProperty("sql.streaming.queryId"));
  }

  /** Whether the session runs in local mode (its tasks run in this JVM). */
  public static boolean isLocal(SparkSession spark) {
    return context(spark, "the master", "").isLocal();
  }

  /**
   * A row counter registered with the session's Spark context under {@code name}: exact per partition
   * ({@link RowsPerPartition}).
   */
  public static RowCounter rowCounter(SparkSession spark, String name) {
    RowsPerPartition rows = new RowsPerPartition();
    context(spark, "Counting rows in the write (" + name + ")", "").register(rows, name);
    return rows;
  }

  /** The status tracker of the session's application: its stages and tasks, for progress reports. */
  public static org.apache.spark.SparkStatusTracker statusTracker(SparkSession spark, String feature) {
    return context(spark, feature, "").statusTracker();
  }

  /**
   * The value {@code key} had in the application's start-up conf ({@code SparkConf}), if any; empty on
   * classic sessions only ({@link Classic#startupConf} is the door).
   */
  public static java.util.Optional<String> startupConf(SparkSession spark, String key) {
    scala.Option<String> v = spark.sparkContext().getConf().getOption(key);
    return v.isDefined() ? java.util.Optional.of(v.get()) : java.util.Optional.empty();
  }
}
