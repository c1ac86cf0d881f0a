package dev.dptext.embedding;

import java.io.Serializable;

/**
 * The distance between two vocabulary words that a mechanism's guarantee is stated in: Euclidean for
 * SanText, SanText+ and the Laplace mechanism, the regularized Mahalanobis distance for the
 * Mahalanobis mechanism, Hamming on binary codes for BRR, the discrete metric for a mechanism that treats every
 * pair of words alike (ε-local DP). Calibration (the privacy ratio) and the
 * evaluation statistics compute over it; each mechanism names its own.
 */
public interface WordMetric extends Serializable {
  /** The metric's name with its parameters, e.g. {@code regularized Mahalanobis (λ=0.5)}. */
  String name();

  /** The number of words. */
  int size();

  /** d(i, j) between the words of ranks i and j. */
  double distance(int i, int j);

  /** An upper bound of the largest distance between two words, in O(|V|) distance evaluations. */
  double maximumUpperBound();

  /** The Euclidean distance of the embeddings. */
  static WordMetric euclidean(Embeddings embeddings) {
    return new Euclidean("Euclidean", embeddings);
  }

  /**
   * The regularized Mahalanobis distance ‖x − y‖_RM = √((x−y)ᵀ(λΣ + (1−λ)I)^{-1}(x−y)), computed as the
   * Euclidean distance after the map (λΣ + (1−λ)I)^{-1/2}.
   */
  static WordMetric regularizedMahalanobis(Embeddings embeddings, EmbeddingCovariance covariance, double lambda) {
    double[] map = covariance.regularizedInverseSquareRoot(lambda);
    int n = embeddings.size();
    int m = embeddings.dim();
    float[] v = embeddings.rawVectors();
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
    return new Euclidean("regularized Mahalanobis (λ=" + lambda + ")",
        new Embeddings(embeddings.rawWords(), out, m));
  }

  /** The Hamming distance of the words' binary codes. */
  static WordMetric hamming(BinaryCodes codes) {
    return new Hamming(codes);
  }

  /**
   * The discrete metric over {@code size} words: d(x, x') = 1 for any two distinct words, whatever their
   * embeddings. ε·d-metric DP in it is ε-local DP, every pair of words alike.
   */
  static WordMetric discrete(int size) {
    return new Discrete(size);
  }

  /** The discrete metric: 1 between any two distinct words. */
  record Discrete(int size) implements WordMetric {
    @Override
    public String name() {
      return "discrete";
    }

    @Override
    public double distance(int i, int j) {
      return i == j ? 0 : 1;
    }

    @Override
    public double maximumUpperBound() {
      return 1;
    }
  }

  /** Euclidean distance over (possibly transformed) embeddings. */
  record Euclidean(String name, Embeddings embeddings) implements WordMetric {
    @Override
    public int size() {
      return embeddings.size();
    }

    @Override
    public double distance(int i, int j) {
      return embeddings.distance(i, j);
    }

    /** 2·max_x ‖φ(x) − μ‖: d(x, y) ≤ ‖φ(x) − μ‖ + ‖μ − φ(y)‖. Rounded up by a relative 1e-9. */
    @Override
    public double maximumUpperBound() {
      double[] mu = embeddings.mean();
      double radius2 = 0;
      for (int i = 0; i < embeddings.size(); i++) {
        radius2 = Math.max(radius2, embeddings.squaredDistanceTo(mu, 0, i));
      }
      return 2 * Math.sqrt(radius2) * (1 + 1e-9);
    }
  }

  /** Hamming distance over binary codes. */
  record Hamming(BinaryCodes codes) implements WordMetric {
    @Override
    public String name() {
      return "Hamming (" + codes.bits() + " bits)";
    }

    @Override
    public int size() {
      return codes.size();
    }

    @Override
    public double distance(int i, int j) {
      return codes.hamming(i, j);
    }

    /** min(n, 2·max_x d_H(x, x₀)): d_H(x, y) ≤ d_H(x, x₀) + d_H(x₀, y). */
    @Override
    public double maximumUpperBound() {
      int radius = 0;
      for (int i = 0; i < codes.size(); i++) {
        radius = Math.max(radius, codes.hamming(i, 0));
      }
      return Math.min(codes.bits(), 2 * radius);
    }
  }
}
