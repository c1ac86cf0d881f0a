package dev.dptext.spark;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/**
 * The privacy ratio of Carvalho et al. (§5, appendix A) for comparing mechanisms whose guarantees use
 * different metrics: P_d^max = max over word pairs of d(x, x'), P_d^avg = Σ_{x,x'} d(x, x') / |V|²
 * (all ordered pairs, the diagonal included, as the paper defines it). A mechanism B matches the
 * privacy-loss estimate ε_A·P_dA of mechanism A with ε_B = ε_A·P_dA / P_dB.
 *
 * <p>Computed exactly over all pairs, distributed over Spark by blocks of rows (each pair once,
 * i &lt; j): Euclidean distances in double precision, O(|V|²·m); Hamming distances by popcount,
 * O(|V|²·n/64). The metric of each mechanism: Euclidean for SanText, SanText+, Laplace and Vickrey
 * with Laplace noise; the regularized Mahalanobis distance for Mahalanobis (and Vickrey with λ &gt; 0),
 * computed as the Euclidean distance after the map (λΣ + (1−λ)I)^{-1/2}; Hamming on the codes for BRR.
 */
public final class PrivacyRatio {
  private PrivacyRatio() {}

  /** P_d^avg and P_d^max of one metric over a vocabulary. */
  public record Aggregate(String metric, double average, double maximum, long words) implements Serializable {}

  /** A metric over word ranks, shipped to executors. */
  interface PairMetric extends Serializable {
    int size();

    double distance(int i, int j);
  }

  /** The aggregate of the metric that {@code spec}'s guarantee is stated in, over the model's vocabulary. */
  public static Aggregate of(SparkSession spark, DpTextModel model, MechanismSpec spec) {
    PairMetric metric;
    String name;
    switch (spec.name()) {
      case MechanismSpec.BRR -> {
        BinaryCodes codes = model.binaryCodes(spec.bits());
        metric = new HammingMetric(codes);
        name = "Hamming (" + spec.bits() + " bits)";
      }
      case MechanismSpec.MAHALANOBIS, MechanismSpec.VICKREY, MechanismSpec.VICKREY_TOPK -> {
        if (spec.lambda() > 0) {
          metric = new EuclideanMetric(transformed(model.embeddings(),
              model.covariance().regularizedInverseSquareRoot(spec.lambda())));
          name = "regularized Mahalanobis (λ=" + spec.lambda() + ")";
        } else {
          metric = new EuclideanMetric(model.embeddings());
          name = "Euclidean";
        }
      }
      default -> {
        metric = new EuclideanMetric(model.embeddings());
        name = "Euclidean";
      }
    }
    return aggregate(spark, metric, name);
  }

  /** ε_B = ε_A·P_dA/P_dB. */
  public static double matchingEpsilon(double epsilonA, double pdA, double pdB) {
    if (!(pdB > 0)) {
      throw new IllegalArgumentException("P_dB must be positive, got " + pdB);
    }
    return epsilonA * pdA / pdB;
  }

  static Aggregate aggregate(SparkSession spark, PairMetric metric, String name) {
    int n = metric.size();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<PairMetric> b = jsc.broadcast(metric);
    // Row i pairs with n−1−i words; interleaving rows over blocks balances the work.
    int blocks = Math.max(1, Math.min(n, jsc.defaultParallelism() * 8));
    List<Integer> ids = new ArrayList<>();
    for (int k = 0; k < blocks; k++) {
      ids.add(k);
    }
    double[] total = jsc.parallelize(ids, blocks).map(k -> {
      PairMetric m = b.value();
      double sum = 0;
      double max = 0;
      for (int i = k; i < n; i += blocks) {
        for (int j = i + 1; j < n; j++) {
          double d = m.distance(i, j);
          sum += d;
          max = Math.max(max, d);
        }
      }
      return new double[] {sum, max};
    }).reduce((x, y) -> new double[] {x[0] + y[0], Math.max(x[1], y[1])});
    b.destroy();
    return new Aggregate(name, 2 * total[0] / ((double) n * n), total[1], n);
  }

  private static Embeddings transformed(Embeddings e, double[] map) {
    int n = e.size();
    int m = e.dim();
    float[] v = e.rawVectors();
    float[] out = new float[v.length];
    for (int i = 0; i < n; i++) {
      for (int a = 0; a < m; a++) {
        double s = 0;
        for (int c = 0; c < m; c++) {
          s += map[a * m + c] * v[i * m + c];
        }
        out[i * m + a] = (float) s;
      }
    }
    return new Embeddings(e.rawWords(), out, m);
  }

  record EuclideanMetric(Embeddings embeddings) implements PairMetric {
    @Override
    public int size() {
      return embeddings.size();
    }

    @Override
    public double distance(int i, int j) {
      return embeddings.distance(i, j);
    }
  }

  record HammingMetric(BinaryCodes codes) implements PairMetric {
    @Override
    public int size() {
      return codes.size();
    }

    @Override
    public double distance(int i, int j) {
      return codes.hamming(i, j);
    }
  }
}
