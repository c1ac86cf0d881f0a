package dev.dptext.mechanism;

import dev.dptext.random.RandomStream;
import java.io.Serializable;

/**
 * Noise Z added to a word's embedding: Z = R·T·U with R ~ Gamma(shape m, scale 1/ε), U uniform on the
 * unit sphere S^{m−1}, and T a fixed m×m transform — the identity for the multivariate Laplace
 * mechanism (density ∝ exp(−ε‖z‖)), (λΣ + (1−λ)I)^{1/2} for the Mahalanobis mechanism (density ∝
 * exp(−ε‖z‖_RM)). Not re-normalised after T.
 */
final class EmbeddingNoise implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int m;
  private final double epsilon;
  /** Row-major m×m transform, or null for the identity. */
  private final double[] transform;

  private EmbeddingNoise(int m, double epsilon, double[] transform) {
    MechanismDefinition.EPSILON.check(epsilon);
    this.m = m;
    this.epsilon = epsilon;
    this.transform = transform;
  }

  /** Spherical noise of the multivariate Laplace mechanism. */
  static EmbeddingNoise laplace(int m, double epsilon) {
    return new EmbeddingNoise(m, epsilon, null);
  }

  /** Elliptical noise of the Mahalanobis mechanism; {@code root} = (λΣ + (1−λ)I)^{1/2}. */
  static EmbeddingNoise elliptical(int m, double epsilon, double[] root) {
    return new EmbeddingNoise(m, epsilon, root.clone());
  }

  double epsilon() {
    return epsilon;
  }

  /**
   * Adds one draw of Z to {@code point[offset .. offset+m)}.
   *
   * @param scratch at least 2·m doubles of work space
   */
  void addTo(double[] point, int offset, RandomStream random, double[] scratch) {
    double radius = NoiseSampling.gamma(random, m) / epsilon;
    NoiseSampling.unitSphere(random, scratch, m);
    if (transform == null) {
      for (int d = 0; d < m; d++) {
        point[offset + d] += radius * scratch[d];
      }
      return;
    }
    for (int a = 0; a < m; a++) {
      double s = 0;
      for (int b = 0; b < m; b++) {
        s += transform[a * m + b] * scratch[b];
      }
      point[offset + a] += radius * s;
    }
  }
}
