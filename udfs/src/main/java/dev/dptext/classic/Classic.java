package dev.dptext.classic;

import dev.dptext.errors.DpTextErrors;
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
 *
 * <p>This class is the door itself: its signatures and bodies name no classic type (no {@code SparkContext},
 * catalyst, accumulator or Hadoop class), so that a Spark Connect client's classpath, which has none of them,
 * loads it and asks it. What a classic session has is in {@link ClassicContext} and {@link ClassicFunctions},
 * loaded only once the session is known to be classic.
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
   * Fails on a Spark Connect session with a message naming {@code feature} and {@code alternative};
   * call it before any data is read.
   */
  public static void requireClassic(SparkSession spark, String feature, String alternative) {
    if (!is(spark)) {
      String instead = alternative.strip().replaceAll("\\.$", ""); // the entry ends the sentence
      throw DpTextErrors.error("CLASSIC_SESSION_REQUIRED", "feature", feature, "alternative",
          instead.isEmpty() ? "Run it on a classic Spark session" : instead);
    }
  }

  /**
   * Sets the description the Spark UI gives the jobs this thread starts from now on, and returns the one
   * it replaces (null: none). On a Spark Connect session it does nothing and returns null: the client
   * has no {@code SparkContext}, and the server describes each job by its plan (the session's tags,
   * {@link SparkSession#addTag}, name them there).
   */
  public static String describeJobs(SparkSession spark, String description) {
    return is(spark) ? ClassicContext.describeJobs(spark, description) : null;
  }

  /**
   * Adds ({@code add}) or removes a tag of the jobs this thread starts from now on, on a classic session:
   * the {@code SparkContext}'s job tags. Not {@link SparkSession#addTag}: on a classic session (Spark 4.0)
   * that initialises a thread-local in the session that cannot be serialized, and every later closure that
   * captures the session (an MLlib model's training summary does) fails with "Task not serializable". A
   * Spark Connect session tags with {@link SparkSession#addTag}; here it does nothing.
   */
  public static void tagJobs(SparkSession spark, String tag, boolean add) {
    if (is(spark)) {
      ClassicContext.tagJobs(spark, tag, add);
    }
  }

  /** Whether this thread's jobs carry {@code tag} ({@link #tagJobs}); false on a Spark Connect session. */
  public static boolean jobsTagged(SparkSession spark, String tag) {
    return is(spark) && ClassicContext.jobsTagged(spark, tag);
  }

  /**
   * The value {@code key} had in the application's start-up conf ({@code SparkConf}), if any; empty on
   * a Spark Connect session, whose start-up conf is the server's and is never asked for here.
   */
  public static java.util.Optional<String> startupConf(SparkSession spark, String key) {
    return is(spark) ? ClassicContext.startupConf(spark, key) : java.util.Optional.empty();
  }
}
