package dev.dptext.mechanism;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import dev.dptext.config.ValueType;
import dev.dptext.config.Setting;
import dev.dptext.config.Check;
import java.util.List;
import dev.dptext.model.DpTextModel;
import dev.dptext.embedding.WordMetric;
import static dev.dptext.mechanism.MechanismDefinition.EPSILON;
import dev.dptext.mechanism.MechanismDefinition.Parameter;

/**
 * The regularized Mahalanobis mechanism (Xu et al., "A Differentially Private Text Perturbation
 * Method Using a Regularized Mahalanobis Metric", 2020): y = argmin_y ‖φ(y) − (φ(x) + Z)‖ with
 * Z = R·(λΣ + (1−λ)I)^{1/2}·U, R ~ Gamma(m, 1/ε), U uniform on the unit sphere, Σ the embeddings'
 * covariance scaled to trace m ({@link EmbeddingCovariance}). Elliptical noise stretched along the
 * directions of largest variance replaces words in sparse regions more often than spherical noise at
 * the same ε. λ = 0 is the multivariate Laplace mechanism.
 *
 * <p><b>Guarantee.</b> ε·d_RM metric DP per token, d_RM(x, x') = ‖φ(x) − φ(x')‖_RM =
 * √((φ(x)−φ(x'))ᵀ(λΣ + (1−λ)I)^{-1}(φ(x)−φ(x'))) (the paper's Theorem 1); in Euclidean terms,
 * P(y|x) ≤ exp(ε·‖φ(x)−φ(x')‖/√(λ·ξ_min + 1 − λ))·P(y|x') with ξ_min Σ's smallest eigenvalue.
 * <b>Not covered:</b> token count and layout, verbatim opt-ins.
 */
public final class MahalanobisMechanism extends NoisyEmbeddingMechanism {
  private static final long serialVersionUID = 1L;

  /** λ: the regularisation of the covariance (shared with Vickrey's Mahalanobis noise). */
  public static final Setting<Double> LAMBDA = Setting.define("lambda").symbol("λ")
      .doc("The regularisation λ in [0, 1] of the Mahalanobis noise (λΣ + (1 − λ)I); 0 is spherical Laplace noise.")
      .hint("0 is Laplace noise, 1 the plain covariance")
      .withoutDefaultMeaning("the mechanism's")
      .createOptional(ValueType.DOUBLE, Check.unitInterval());

  /** The regularized Mahalanobis mechanism: ε, λ (default 0.5). */
  public static final MechanismDefinition DEFINITION = new MechanismDefinition("mahalanobis", List.of(),
      "Regularized Mahalanobis (Xu et al. 2020): as laplace with Z = R·(λΣ + (1 − λ)I)^{1/2}·U, Σ the "
          + "embeddings' covariance scaled to trace m; d_RM(x,x') = √((φ(x)−φ(x'))ᵀ(λΣ + (1 − λ)I)^{-1}(φ(x)−φ(x'))); "
          + "λ = 0 is laplace.",
      List.of(Parameter.of(EPSILON), Parameter.withDefault(LAMBDA, 0.5))) {
    @Override
    public String example() {
      return "mahalanobis:epsilon=8,lambda=0.3";
    }

    @Override
    public WordMechanism build(MechanismSpec spec, DpTextModel model) {
      return new MahalanobisMechanism(model.embeddings(), model.nearestWords(), model.covariance(), spec.epsilon(),
          spec.get(LAMBDA));
    }

    @Override
    public WordMechanism buildForShards(MechanismSpec spec, dev.dptext.model.ModelShape shape) {
      return MahalanobisMechanism.forShards(shape.dim(), shape.requireCovariance(), spec.epsilon(), spec.get(LAMBDA));
    }

    @Override
    public boolean acceptsApproximateSearch() {
      return true; // the nearest-word step is post-processing of the noisy vector
    }

    @Override
    public WordMetric metric(MechanismSpec spec, DpTextModel model) {
      return metricOf(model, spec.get(LAMBDA));
    }

    @Override
    protected String guarantee(Rendering r) {
      return "Mahalanobis: " + r.text(EPSILON) + "·d_RM metric DP per token (regularized Mahalanobis norm"
          + (r.isSymbolic() ? "" : ", λ=" + r.text(LAMBDA)) + "; the nearest-word step is post-processing)";
    }
  };

  /** The metric of noise regularized by λ: d_RM, which for λ = 0 is the Euclidean distance. */
  static WordMetric metricOf(DpTextModel model, double lambda) {
    return lambda > 0
        ? WordMetric.regularizedMahalanobis(model.embeddings(), model.covariance(), lambda)
        : WordMetric.euclidean(model.embeddings());
  }

  private final double lambda;

  private MahalanobisMechanism(int dim, EmbeddingCovariance covariance, double epsilon, double lambda) {
    super(dim, EmbeddingNoise.elliptical(dim, epsilon, covariance.regularizedSquareRoot(lambda)), 1);
    this.lambda = lambda;
  }

  /** The mechanism's steps for the partitioned path, which searches on shards. */
  public static MahalanobisMechanism forShards(int dim, EmbeddingCovariance covariance, double epsilon, double lambda) {
    return new MahalanobisMechanism(dim, covariance, epsilon, lambda);
  }

  public MahalanobisMechanism(
      Embeddings embeddings, NearestWords nearest, EmbeddingCovariance covariance, double epsilon, double lambda) {
    super(embeddings, nearest,
        EmbeddingNoise.elliptical(embeddings.dim(), epsilon, covariance.regularizedSquareRoot(lambda)), 1);
    this.lambda = lambda;
  }

  @Override
  public int choose(int[] words, double[] distances, int offset, RandomStream random) {
    return words[offset];
  }

  @Override
  public String name() {
    return "mahalanobis";
  }


}
