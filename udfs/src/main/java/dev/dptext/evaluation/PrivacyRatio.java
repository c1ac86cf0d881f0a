package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.WordMetric;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.io.Serializable;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * The privacy ratio of Carvalho et al. (§5, appendix A) for comparing mechanisms whose guarantees use
 * different metrics: P_d^max = max over word pairs of d(x, x'), P_d^avg = Σ_{x,x'} d(x, x') / |V|²
 * (all ordered pairs, the diagonal included, as the paper defines it). A mechanism B matches the
 * privacy-loss estimate ε_A·P_dA of mechanism A with ε_B = ε_A·P_dA / P_dB.
 *
 * <p>Computed exactly over all pairs, distributed over Spark by blocks of rows (a {@code range} of block
 * numbers, so that Spark Connect sessions run it too; each pair once,
 * i &lt; j): Euclidean distances in double precision, O(|V|²·m); Hamming distances by popcount,
 * O(|V|²·n/64). Each mechanism names the metric of its guarantee ({@link MechanismSpec#metric}).
 *
 * <p><b>Sampled, for very large vocabularies</b> ({@link #sampled}): P_d^avg is the mean of d(I, J)
 * for I, J independent and uniform over the vocabulary — exactly the definition above — so the mean of
 * N sampled pairs is unbiased, with standard error s/√N (s the sample standard deviation) and, by the
 * central limit theorem, an approximate confidence interval mean ± z·s/√N. P_d^max cannot be
 * estimated that way: the largest sampled distance is only a <em>lower</em> bound; an upper bound is
 * given next to it (Euclidean: 2·max_x ‖φ(x) − μ‖ by the triangle inequality through the mean μ;
 * Hamming: min(n, 2·max_x d_H(x, x₀)) through the first word x₀). Pairs are drawn in fixed blocks of
 * {@value #SAMPLE_BLOCK} from streams seeded by (seed, block), so the estimate depends only on the
 * seed and N, not on the cluster.
 */
public final class PrivacyRatio {
  private PrivacyRatio() {}

  /** P_d^avg and P_d^max of one metric over a vocabulary. */
  public record Aggregate(String metric, double average, double maximum, long words) implements Serializable {}

  /**
   * A sampled estimate of P_d^avg (mean ± standard error over {@code pairs} uniform ordered pairs) and
   * bounds on P_d^max: {@code sampledMaximum} ≤ P_d^max ≤ {@code maximumUpperBound}.
   */
  public record Estimate(String metric, double average, double standardError, long pairs, long seed,
      double sampledMaximum, double maximumUpperBound, long words) implements Serializable {}

  /** The two-sided normal quantile z with P(|Z| ≤ z) = confidence. */
  public static double zScore(double confidence) {
    if (!(confidence > 0 && confidence < 1)) {
      throw DpTextErrors.error("CONFIDENCE_INVALID", "value", confidence);
    }
    return new org.apache.commons.math3.distribution.NormalDistribution(null, 0, 1)
        .inverseCumulativeProbability(0.5 + confidence / 2);
  }

  /** Pairs per sampling block (one task each, one random stream each). */
  static final int SAMPLE_BLOCK = 1 << 18;

  /** The aggregate of the metric that {@code spec}'s guarantee is stated in, over the model's vocabulary. */
  public static Aggregate of(SparkSession spark, DpTextModel model, MechanismSpec spec) {
    return of(spark, EvaluationModel.of(model), spec);
  }

  /** As above, for a model that Spark Connect executors can load from its file ({@link EvaluationModel}). */
  public static Aggregate of(SparkSession spark, EvaluationModel model, MechanismSpec spec) {
    WordMetric metric = spec.metric(model.model());
    return aggregate(spark, metric, ship(spark, model, spec, metric));
  }

  /**
   * A sampled estimate over {@code pairs} uniform ordered pairs of the metric of {@code spec}'s
   * guarantee (see the class comment for the error and the bounds).
   */
  public static Estimate sampled(SparkSession spark, DpTextModel model, MechanismSpec spec, long pairs, long seed) {
    return sampled(spark, EvaluationModel.of(model), spec, pairs, seed);
  }

  /** As above, for a model that Spark Connect executors can load from its file ({@link EvaluationModel}). */
  public static Estimate sampled(SparkSession spark, EvaluationModel model, MechanismSpec spec, long pairs, long seed) {
    if (pairs < 2) {
      throw DpTextErrors.error("SAMPLE_PAIRS_INVALID", "value", pairs);
    }
    WordMetric metric = spec.metric(model.model());
    return sample(spark, metric, ship(spark, model, spec, metric), pairs, seed);
  }

  /** The metric of {@code spec}'s guarantee, as the tasks will find it. */
  private static Shipped<WordMetric> ship(SparkSession spark, EvaluationModel model, MechanismSpec spec,
      WordMetric metric) {
    return EvaluationTasks.ship(spark, model, "metric of " + spec.toSpecString(), metric, spec::metric);
  }

  /** ε_B = ε_A·P_dA/P_dB. */
  public static double matchingEpsilon(double epsilonA, double pdA, double pdB) {
    requireFinite(pdA, "A");
    requireFinite(pdB, "B");
    if (!(pdB > 0)) {
      throw DpTextErrors.error("PRIVACY_RATIO_UNDEFINED", "which", "B", "pd", pdB);
    }
    return epsilonA * pdA / pdB;
  }

  /**
   * Refuses an infinite P_d: a metric that puts some word pairs at +∞ (custext: words of different groups,
   * which its guarantee does not protect against each other) has no finite ratio to match ε with.
   */
  static void requireFinite(double pd, String which) {
    if (Double.isInfinite(pd) || Double.isNaN(pd)) {
      throw DpTextErrors.error("PRIVACY_RATIO_UNDEFINED", "which", which, "pd", pd);
    }
  }

  static Aggregate aggregate(SparkSession spark, WordMetric metric) {
    return aggregate(spark, metric, EvaluationTasks.ship(spark, metric));
  }

  /** {@code metric} on the driver, {@code shipped} the same metric for the tasks. */
  private static Aggregate aggregate(SparkSession spark, WordMetric metric, Shipped<WordMetric> shipped) {
    int n = metric.size();
    // Row i pairs with n−1−i words; interleaving rows over blocks balances the work. One block per task.
    int blocks = Math.max(1, Math.min(n, EvaluationTasks.parallelism(spark) * 8));
    double[] total;
    try {
      total = fold(spark.range(0, blocks, 1, blocks).mapPartitions((MapPartitionsFunction<Long, byte[]>) it -> {
        WordMetric m = shipped.get();
        double[] acc = null;
        while (it.hasNext()) {
          int k = it.next().intValue();
          double sum = 0;
          double max = 0;
          for (int i = k; i < n; i += blocks) {
            for (int j = i + 1; j < n; j++) {
              double d = m.distance(i, j);
              sum += d;
              max = Math.max(max, d);
            }
          }
          acc = acc == null ? new double[] {sum, max} : new double[] {acc[0] + sum, Math.max(acc[1], max)};
        }
        return acc == null ? Collections.emptyIterator() : List.of(EvaluationTasks.bytes(acc)).iterator();
      }, Encoders.BINARY()).collectAsList(), (x, y) -> new double[] {x[0] + y[0], Math.max(x[1], y[1])});
    } finally {
      shipped.release();
    }
    return new Aggregate(metric.name(), 2 * total[0] / ((double) n * n), total[1], n);
  }

  static Estimate sample(SparkSession spark, WordMetric metric, long pairs, long seed) {
    if (pairs < 2) {
      throw DpTextErrors.error("SAMPLE_PAIRS_INVALID", "value", pairs);
    }
    return sample(spark, metric, EvaluationTasks.ship(spark, metric), pairs, seed);
  }

  /** {@code driverMetric} on the driver, {@code shipped} the same metric for the tasks. */
  private static Estimate sample(SparkSession spark, WordMetric driverMetric, Shipped<WordMetric> shipped, long pairs,
      long seed) {
    long blocks = (pairs + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK;
    int slices = (int) Math.max(1, Math.min(blocks, EvaluationTasks.parallelism(spark) * 4L));
    double[] total;
    int n = driverMetric.size();
    try {
      total = fold(spark.range(0, blocks, 1, slices).mapPartitions((MapPartitionsFunction<Long, byte[]>) it -> {
        WordMetric m = shipped.get();
        double[] acc = null;
        while (it.hasNext()) {
          long k = it.next();
          // One stream per (seed, block): the sample does not depend on how blocks meet tasks.
          RandomStream r = new RandomStream(seed, k, 0x5A3B_1E5D_0C0F_FEE1L, 0x7F4A_7C15_9E37_79B9L);
          long count = Math.min(SAMPLE_BLOCK, pairs - k * SAMPLE_BLOCK);
          double sum = 0;
          double sumSquares = 0;
          double max = 0;
          for (long p = 0; p < count; p++) {
            double d = m.distance(r.nextInt(n), r.nextInt(n));
            sum += d;
            sumSquares += d * d;
            max = Math.max(max, d);
          }
          acc = acc == null ? new double[] {sum, sumSquares, max}
              : new double[] {acc[0] + sum, acc[1] + sumSquares, Math.max(acc[2], max)};
        }
        return acc == null ? Collections.emptyIterator() : List.of(EvaluationTasks.bytes(acc)).iterator();
      }, Encoders.BINARY()).collectAsList(), (x, y) -> new double[] {x[0] + y[0], x[1] + y[1], Math.max(x[2], y[2])});
    } finally {
      shipped.release();
    }
    double mean = total[0] / pairs;
    // An infinite distance (custext across groups) makes the mean infinite and its error undefined: say +∞.
    double variance = Double.isInfinite(mean) ? Double.POSITIVE_INFINITY
        : Math.max(0, (total[1] - pairs * mean * mean) / (pairs - 1));
    return new Estimate(driverMetric.name(), mean, Math.sqrt(variance / pairs), pairs, seed, total[2],
        driverMetric.maximumUpperBound(), n);
  }

  /**
   * The partitions' results merged in partition order (each partition already folded its blocks in
   * order): the arithmetic of the RDD reduce this replaces, in a fixed order instead of the order in which
   * tasks finished.
   */
  private static double[] fold(List<byte[]> rows, java.util.function.BinaryOperator<double[]> merge) {
    double[] total = null;
    for (byte[] row : rows) {
      double[] v = EvaluationTasks.doubles(row);
      total = total == null ? v : merge.apply(total, v);
    }
    return total;
  }
}
