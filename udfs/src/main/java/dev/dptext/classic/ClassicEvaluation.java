package dev.dptext.classic;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * What the evaluations ({@code dev.dptext.evaluation}) take from a classic session when they have one:
 * whether tasks share the driver's JVM, the default parallelism, and a broadcast for a cluster. On a
 * Spark Connect session the evaluations use none of this (see {@code dev.dptext.evaluation.Shipped}).
 */
public final class ClassicEvaluation {
  private ClassicEvaluation() {}

  private static SparkContext context(SparkSession spark) {
    return ClassicContext.context(spark, "the evaluation's broadcast", "Spark Connect sessions ship by model path");
  }

  /** Whether tasks run in the driver's JVM (a local master). */
  public static boolean isLocal(SparkSession spark) {
    return context(spark).isLocal();
  }

  /** {@code SparkContext.defaultParallelism}: what the evaluations size their task counts by. */
  public static int defaultParallelism(SparkSession spark) {
    return context(spark).defaultParallelism();
  }

  /**
   * {@code value} broadcast (Java-serialized whatever spark.serializer says), for the evaluation to hand its
   * tasks and destroy after ({@code Shipped.Broadcasted}).
   */
  public static <T extends Serializable> BroadcastValue<T> broadcast(SparkSession spark, T value) {
    return BroadcastValue.of(spark, value, "the evaluation's broadcast", "Spark Connect sessions ship by model path");
  }
}
