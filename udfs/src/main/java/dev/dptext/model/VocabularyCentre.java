package dev.dptext.model;

import java.io.Serializable;

/**
 * The vocabulary's mean vector μ and mean squared distance to it, R² = (1/|V|)·Σ‖φ(y) − μ‖². For a
 * uniformly drawn word y, E‖φ(x) − φ(y)‖² = ‖φ(x) − μ‖² + R²: the partitioned path's best guess of a
 * uniform proposal's distance before its vector arrives (a guess only: the decision waits for the
 * vector, see {@code dev.dptext.classic.partitioned}).
 */
public record VocabularyCentre(double[] mean, double meanSquaredRadius) implements Serializable {
  /** E d(x, y)² over a uniform y, for the input vector {@code x}. */
  public double expectedSquaredDistance(float[] x) {
    double s = 0;
    for (int d = 0; d < mean.length; d++) {
      double c = x[d] - mean[d];
      s += c * c;
    }
    return s + meanSquaredRadius;
  }
}
