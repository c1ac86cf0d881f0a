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
