package dev.dptext.classic;

import java.io.Serializable;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;

/**
 * A sum over tasks: a Spark long accumulator (shown in the Spark UI under its name), held here so that code
 * outside {@code dev.dptext.classic} never names an accumulator. Classic sessions only. Serialized into a
 * task with the closure that holds it, the accumulator registers with that task, as any accumulator does.
 */
public final class LongCounter implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LongAccumulator sum;

  private LongCounter(LongAccumulator sum) {
    this.sum = sum;
  }

  /**
   * A counter registered with the session's Spark context.
   *
   * @throws UnsupportedOperationException on a Spark Connect session, naming {@code name}
   */
  public static LongCounter register(SparkSession spark, String name) {
    return new LongCounter(ClassicContext.context(spark, "An accumulator (" + name + ")", "").longAccumulator(name));
  }

  public void add(long v) {
    sum.add(v);
  }

  public long value() {
    return sum.value();
  }
}
