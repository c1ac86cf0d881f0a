package dev.dptext.mechanism;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import java.util.LinkedHashMap;
import java.util.Map;

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

  private final double lambda;

  public MahalanobisMechanism(
      Embeddings embeddings, NearestWords nearest, EmbeddingCovariance covariance, double epsilon, double lambda) {
    super(embeddings, nearest,
        EmbeddingNoise.elliptical(embeddings.dim(), epsilon, covariance.regularizedSquareRoot(lambda)), 1);
    this.lambda = lambda;
  }

  @Override
  int choose(int[] words, double[] distances, int offset, RandomStream random) {
    return words[offset];
  }

  @Override
  public String name() {
    return "mahalanobis";
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("epsilon", epsilon());
    p.put("lambda", lambda);
    return p;
  }

  @Override
  public String guarantee() {
    return "Mahalanobis: " + epsilon() + "·d_RM metric DP per token (regularized Mahalanobis norm, λ="
        + lambda + "); token count, layout and verbatim opt-ins are not covered";
  }
}
