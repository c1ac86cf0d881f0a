package dev.dptext.classic;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The one door to what only a classic Spark session has: its {@link SparkContext} (RDDs, broadcasts,
 * accumulators, the Hadoop configuration, the status tracker).
 *
 * <p>Why a door: Databricks standard access mode, serverless compute and serverless JAR tasks run
 * user code as a Spark Connect client, where a session has no {@code SparkContext} at all. Everything
 * in dptext outside {@code dev.dptext.classic} uses only what a Connect session offers (DataFrames,
 * SQL, the session conf); a build rule ({@code ClassicOnlyRuleTest}) keeps it so. What genuinely needs
 * classic Spark asks here and, under Connect, fails before it reads anything with a message that names
 * the alternative.
 */
public final class Classic {
  /** The class of a Spark Connect client session (Spark 4.0). */
  private static final String CONNECT_PACKAGE = "org.apache.spark.sql.connect.";

  private Classic() {}

  /**
   * Whether {@code spark} is a classic session (it has a {@code SparkContext}). Decided by the session's
   * class name, so that a Connect-only classpath never loads a classic class.
   */
  public static boolean is(SparkSession spark) {
    return !spark.getClass().getName().startsWith(CONNECT_PACKAGE);
  }

  /**
   * The session's {@code SparkContext}, for {@code feature}.
   *
   * @param feature what needs it, for the message (e.g. "the partitioned model layout")
   * @param alternative what to use instead on Spark Connect (e.g. "modelLayout=broadcast")
   * @throws UnsupportedOperationException on a Spark Connect session, naming both
   */
  public static SparkContext context(SparkSession spark, String feature, String alternative) {
    requireClassic(spark, feature, alternative);
    return spark.sparkContext();
  }

  /** The application's Hadoop configuration (with its {@code spark.hadoop.*} settings); classic only. */
  public static org.apache.hadoop.conf.Configuration hadoopConfiguration(SparkSession spark) {
    return context(spark, "the application's Hadoop configuration", "Use the session's spark.hadoop.* settings")
        .hadoopConfiguration();
  }

  /**
   * The value {@code key} had in the application's start-up conf ({@code SparkConf}), if any; empty on
   * a Spark Connect session, whose start-up conf is the server's and is never asked for here.
   */
  public static java.util.Optional<String> startupConf(SparkSession spark, String key) {
    if (!is(spark)) {
      return java.util.Optional.empty();
    }
    scala.Option<String> v = spark.sparkContext().getConf().getOption(key);
    return v.isDefined() ? java.util.Optional.of(v.get()) : java.util.Optional.empty();
  }

  /** The cluster's default parallelism (its cores, for most cluster managers). */
  public static int defaultParallelism(SparkSession spark) {
    return context(spark, "the cluster's default parallelism", "").defaultParallelism();
  }

  /** The partitions {@code df} is read in (planning it, not running it). */
  public static int partitions(org.apache.spark.sql.Dataset<?> df) {
    requireClassic(df.sparkSession(), "counting a Dataset's partitions", "");
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
   * Registers a SQL function in a running classic session's function registry (its session state, which a
   * Connect client does not have: there, the server's {@code spark.sql.extensions} registers it).
   */
  public static void registerFunction(SparkSession spark, org.apache.spark.sql.catalyst.FunctionIdentifier name,
      org.apache.spark.sql.catalyst.expressions.ExpressionInfo info,
      scala.Function1<scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression>,
          org.apache.spark.sql.catalyst.expressions.Expression> builder) {
    requireClassic(spark, "Registering a SQL function in a running session", "On Spark Connect, start the server with "
        + "spark.sql.extensions=dev.dptext.spark.DpTextExtensions and the dptext jar on its classpath.");
    ((org.apache.spark.sql.classic.SparkSession) spark).sessionState().functionRegistry()
        .registerFunction(name, info, builder);
  }

  /**
   * The catalyst expression of a user-defined function applied to {@code args}: what a SQL function's
   * builder returns. Runs where functions are resolved, which is always a classic session (the driver, or
   * the Spark Connect server).
   */
  public static org.apache.spark.sql.catalyst.expressions.Expression udfExpression(
      org.apache.spark.sql.expressions.UserDefinedFunction udf,
      scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression> args) {
    return org.apache.spark.sql.classic.UserDefinedFunctionUtils.toScalaUDF(
        (org.apache.spark.sql.expressions.SparkUserDefinedFunction) udf, args);
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
   * Fails on a Spark Connect session with a message naming {@code feature} and {@code alternative};
   * call it before any data is read.
   */
  public static void requireClassic(SparkSession spark, String feature, String alternative) {
    if (!is(spark)) {
      throw new UnsupportedOperationException(feature + " needs a classic Spark session (a SparkContext), and this "
          + "is a Spark Connect session (Databricks standard access mode or serverless, or spark.api.mode=connect). "
          + alternative);
    }
  }
}
