package dev.dptext.evaluation;

import dev.dptext.classic.Classic;
import dev.dptext.classic.ClassicEvaluation;
import dev.dptext.runtime.ServerClasses;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * How the evaluations spread their work over Spark with what both classic and Spark Connect sessions
 * offer: a {@code spark.range} of work items, a {@code mapPartitions} function, and {@code collect} of
 * small binary results, merged on the driver in partition order. Merging in a fixed order makes the
 * floating-point sums the same on every run (an RDD {@code reduce} merged them in the order tasks
 * finished).
 */
final class EvaluationTasks {
  private EvaluationTasks() {}

  /** Spark Connect sessions' default parallelism, probed once per session. */
  private static final Map<SparkSession, Integer> PARALLELISM = new WeakHashMap<>();

  /**
   * The default parallelism the task counts are sized by: {@code SparkContext.defaultParallelism} on a
   * classic session. A Spark Connect client cannot ask for it; a {@code range} without a partition
   * count is split by the server into exactly that many partitions (its leaf-node default
   * parallelism), so the client counts them, once per session (a job of a few milliseconds).
   */
  static int parallelism(SparkSession spark) {
    if (Classic.is(spark)) {
      return ClassicEvaluation.defaultParallelism(spark);
    }
    ServerClasses.ensure(spark); // the tasks that follow run dptext's functions
    synchronized (PARALLELISM) {
      return PARALLELISM.computeIfAbsent(spark, s -> {
        // The id in a projection of its own: an aggregate may not take a non-deterministic argument.
        Row r = s.range(0, 1 << 16).select(functions.spark_partition_id().as("p")).agg(functions.max("p")).first();
        return r.isNullAt(0) ? 1 : r.getInt(0) + 1;
      });
    }
  }

  /**
   * {@code onDriver} (built from {@code model} on the driver by {@code builder}) as the tasks will find it:
   * the driver's own object in classic local mode, a broadcast on a classic cluster, and on Spark Connect
   * the model's file recipe ({@code what} names the built value in the executors' cache), or the value
   * itself in the plan when the model has no file.
   */
  static <T extends Serializable> Shipped<T> ship(SparkSession spark, EvaluationModel model, String what, T onDriver,
      ModelFile.Builder<T> builder) {
    if (Classic.is(spark)) {
      return ClassicEvaluation.isLocal(spark) ? new Shipped.Held<>(onDriver)
          : new Shipped.Broadcasted<>(ClassicEvaluation.broadcast(spark, onDriver));
    }
    // A server that has no dptext (a Databricks serverless JAR task's, any Connect server started without the jar)
    // gets this program's jar as a session artifact, as the sanitizer's UDF does.
    ServerClasses.ensure(spark);
    ModelFile file = model == null ? null : model.file(spark);
    if (file == null && onDriver == null) {
      throw new IllegalStateException(what + " could not be built here, and the model has no file to build it from "
          + "where the tasks run");
    }
    return file != null ? new Shipped.FromModelFile<>(file, what, builder) : new Shipped.Carried<>(onDriver);
  }

  /**
   * {@code builder} applied to the model on the driver; null where this program's classpath cannot build it (a
   * {@link LinkageError}: a Spark Connect client's classpath alone, a Databricks serverless JAR task's, has no
   * netlib BLAS or LAPACK, which the exact nearest-word search and the covariance name) and the tasks build it
   * themselves from the model's file ({@link #ship} then ships the recipe, and the driver's object is not used).
   * Elsewhere the error is rethrown: a classic session, or a model without a file, needs the driver's object.
   */
  static <T> T onDriver(SparkSession spark, EvaluationModel model, ModelFile.Builder<T> builder) {
    try {
      return builder.build(model.model());
    } catch (LinkageError e) {
      if (Classic.is(spark) || model.file(spark) == null) {
        throw e;
      }
      org.slf4j.LoggerFactory.getLogger(EvaluationTasks.class).debug("built where the tasks run, not here ({})",
          e.toString());
      return null;
    }
  }

  /** A test of a value the tasks build ({@link #probe}). */
  @FunctionalInterface
  interface Probe<T> extends Serializable {
    boolean test(T value);
  }

  /**
   * {@code test} of the value {@code shipped} gives the tasks, asked of one task: for what the driver needs to know
   * of a value it could not build itself ({@link #onDriver} returned null). The task builds the value into its
   * executor's cache ({@link ModelFile}), where the evaluation's own tasks then find it.
   */
  static <T> boolean probe(SparkSession spark, Shipped<T> shipped, Probe<T> test) {
    return spark.range(0, 1, 1, 1).map((MapFunction<Long, Boolean>) i -> test.test(shipped.get()), Encoders.BOOLEAN())
        .first();
  }

  /** {@code value}, which exists only in memory, as the tasks will find it (in the plan on Spark Connect). */
  static <T extends Serializable> Shipped<T> ship(SparkSession spark, T value) {
    return ship(spark, null, null, value, null);
  }

  /** Doubles as bytes, for a task's result row (a binary column crosses classic and Connect alike). */
  static byte[] bytes(double... values) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length);
    for (double v : values) {
      b.putDouble(v);
    }
    return b.array();
  }

  static double[] doubles(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    double[] v = new double[bytes.length / 8];
    for (int i = 0; i < v.length; i++) {
      v[i] = b.getDouble();
    }
    return v;
  }
}
