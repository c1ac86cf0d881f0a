package dev.dptext.model;

import dev.dptext.embedding.EmbeddingCovariance;
import java.io.Serializable;

/**
 * What a mechanism needs to know about a model whose vectors it does not hold (the partitioned
 * path): |V|, m and, for the Mahalanobis noise, the covariance (m×m, small, kept in the manifest's
 * directory).
 *
 * @param covariance null when the model has none
 */
public record ModelShape(int size, int dim, EmbeddingCovariance covariance) implements Serializable {
  public EmbeddingCovariance requireCovariance() {
    if (covariance == null) {
      throw new IllegalStateException("the partitioned model has no covariance; rebuild it with build-model");
    }
    return covariance;
  }
}
