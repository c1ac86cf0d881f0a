package dev.dptext.classic;

import dev.dptext.evaluation.Shipped;
import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * What the evaluations ({@code dev.dptext.evaluation}) take from a classic session when they have one:
 * whether tasks share the driver's JVM, the default parallelism, and a broadcast for a cluster. On a
 * Spark Connect session the evaluations use none of this (see {@link Shipped}).
 */
public final class ClassicEvaluation {
  private ClassicEvaluation() {}

  private static SparkContext context(SparkSession spark) {
    return Classic.context(spark, "the evaluation's broadcast", "Spark Connect sessions ship by model path");
  }

  /** Whether tasks run in the driver's JVM (a local master). */
  public static boolean isLocal(SparkSession spark) {
    return context(spark).isLocal();
  }

  /** {@code SparkContext.defaultParallelism}: what the evaluations size their task counts by. */
  public static int defaultParallelism(SparkSession spark) {
    return context(spark).defaultParallelism();
  }

  /** {@code value} broadcast (Java-serialized whatever spark.serializer says), destroyed by {@link Shipped#release}. */
  public static <T extends Serializable> Shipped<T> broadcast(SparkSession spark, T value) {
    return new Broadcasted<>(BroadcastValue.of(spark, value, "the evaluation's broadcast",
        "Spark Connect sessions ship by model path"));
  }

  /** Holds only the broadcast handle, so the task's function stays small. */
  private record Broadcasted<T extends Serializable>(BroadcastValue<T> value) implements Shipped<T> {
    @Override
    public T get() {
      return value.get();
    }

    @Override
    public void release() {
      value.destroy();
    }

    @Override
    public String toString() {
      return value.toString();
    }
  }
}
