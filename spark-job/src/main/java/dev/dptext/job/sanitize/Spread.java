package dev.dptext.job.sanitize;

import dev.dptext.classic.Classic;
import dev.dptext.classic.ClassicContext;
import dev.dptext.job.base.JobException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * How many partitions a run sanitizes in ({@code --partitions}): rows are independent, each keyed by its
 * id, so the output does not depend on it.
 */
public final class Spread {
  private Spread() {}

  /**
   * The rows to sanitize, over enough partitions to keep every core busy: sanitizing is CPU-bound per
   * row, and a single input file smaller than a split is one partition.
   */
  public static Dataset<Row> spread(int partitions, SparkSession spark, Dataset<Row> in) {
    int to = target(partitions, spark, in);
    return to > 0 ? in.repartition(to) : in;
  }

  /**
   * The partitions {@link #spread} repartitions {@code in} to for {@code --partitions partitions}, or 0
   * when it keeps the read's own.
   */
  static int target(int partitions, SparkSession spark, Dataset<Row> in) {
    if (partitions < 0) {
      throw JobException.of("PARTITIONS_NEGATIVE", "value", partitions);
    }
    if (partitions > 0) {
      return partitions;
    }
    // Three tasks per core: with one task per core a core that finishes early idles (3 partitions on 2
    // cores take as long as 4); the shuffle costs far less than sanitizing.
    if (!Classic.is(spark)) {
      // A Connect client can ask neither the cores nor the input's partitions (no SparkContext, no RDD):
      // the server's default parallelism is what its range() is split into, and the input is always
      // spread (the output does not depend on it; a classic run skips the shuffle for an input already
      // in enough partitions).
      return 3 * serverParallelism(spark);
    }
    int target = 3 * ClassicContext.defaultParallelism(spark);
    return ClassicContext.partitions(in) < target ? target : 0;
  }

  /**
   * The Connect server's default parallelism: the partitions of a {@code range} without a partition
   * count (one small job; ranges are split into the default parallelism).
   */
  static int serverParallelism(SparkSession spark) {
    Row r = spark.range(0, 1 << 16).select(org.apache.spark.sql.functions.spark_partition_id().as("p"))
        .agg(org.apache.spark.sql.functions.max("p")).first();
    return r.isNullAt(0) ? 1 : r.getInt(0) + 1;
  }
}
