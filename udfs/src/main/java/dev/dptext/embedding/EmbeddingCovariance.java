package dev.dptext.embedding;

import dev.ludovic.netlib.blas.BLAS;
import dev.ludovic.netlib.lapack.LAPACK;
import java.io.Serializable;
import org.netlib.util.intW;

/**
 * The covariance of a vocabulary's embeddings scaled to trace m, Σ = S / (trace S / m) with S the
 * sample covariance (Xu et al. 2020, §3: "scaling the sample covariance matrix of the word embeddings
 * by the mean sample variance"), and its eigendecomposition Σ = Q·diag(ξ)·Qᵀ, from which the
 * Mahalanobis mechanism's noise transform (λΣ + (1−λ)I)^{1/2} = Q·diag(√(λξ + 1 − λ))·Qᵀ follows for
 * any λ. Computed once at model build (a BLAS product and a LAPACK symmetric eigensolver), stored in
 * the model: O(m²) memory.
 */
public final class EmbeddingCovariance implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int m;
  private final double[] sigma;
  private final double[] eigenvalues;
  private final double[] eigenvectors;

  /** Reconstructs from a stored Σ (row-major m × m), recomputing the eigendecomposition. */
  public EmbeddingCovariance(int m, double[] sigma) {
    if (sigma.length != m * m) {
      throw new IllegalArgumentException("Σ has " + sigma.length + " entries; expected " + m + "²");
    }
    this.m = m;
    this.sigma = sigma.clone();
    this.eigenvectors = sigma.clone(); // symmetric: row- and column-major agree
    this.eigenvalues = new double[m];
    intW info = new intW(0);
    double[] query = new double[1];
    LAPACK lapack = LAPACK.getInstance();
    lapack.dsyev("V", "U", m, eigenvectors, m, eigenvalues, query, -1, info);
    double[] work = new double[(int) query[0]];
    lapack.dsyev("V", "U", m, eigenvectors, m, eigenvalues, work, work.length, info);
    if (info.val != 0) {
      throw new IllegalStateException("the eigensolver failed on the embedding covariance (info " + info.val + ")");
    }
  }

  /** Computes Σ from the embeddings. */
  public static EmbeddingCovariance of(Embeddings e) {
    int n = e.size();
    int m = e.dim();
    if (n < 2) {
      throw new IllegalArgumentException("a covariance needs at least 2 words, got " + n);
    }
    float[] v = e.rawVectors();
    double[] mean = e.mean();
    double[] centred = new double[n * m];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < m; d++) {
        centred[i * m + d] = v[i * m + d] - mean[d];
      }
    }
    // Column-major view of the row-major n×m matrix is Xᵀ (m×n); S = Xᵀ·X / (n−1) is m×m.
    double[] s = new double[m * m];
    BLAS.getInstance().dgemm("N", "T", m, m, n, 1.0 / (n - 1), centred, m, centred, m, 0.0, s, m);
    return scaled(m, s);
  }

  /**
   * Σ from the scatter matrix Σ_i (φ_i − μ)(φ_i − μ)ᵀ of {@code n} words, summed elsewhere (the
   * partitioned build sums it over Spark partitions).
   */
  public static EmbeddingCovariance fromScatter(int m, double[] scatter, long n) {
    if (n < 2) {
      throw new IllegalArgumentException("a covariance needs at least 2 words, got " + n);
    }
    double[] s = new double[m * m];
    for (int i = 0; i < s.length; i++) {
      s[i] = scatter[i] / (n - 1);
    }
    return scaled(m, s);
  }

  /** Scales the sample covariance to trace m and symmetrises it. */
  private static EmbeddingCovariance scaled(int m, double[] s) {
    double trace = 0;
    for (int d = 0; d < m; d++) {
      trace += s[d * m + d];
    }
    if (!(trace > 0)) {
      throw new IllegalArgumentException("the embeddings have no variance; Σ cannot be scaled to trace m");
    }
    double scale = m / trace;
    for (int i = 0; i < s.length; i++) {
      s[i] *= scale;
    }
    // Symmetrise exactly (the product is symmetric up to rounding).
    for (int a = 0; a < m; a++) {
      for (int b = a + 1; b < m; b++) {
        double avg = 0.5 * (s[a * m + b] + s[b * m + a]);
        s[a * m + b] = avg;
        s[b * m + a] = avg;
      }
    }
    return new EmbeddingCovariance(m, s);
  }

  public int dim() {
    return m;
  }

  /** Σ, row-major m × m (a copy). */
  public double[] sigma() {
    return sigma.clone();
  }

  /** The eigenvalues ξ of Σ, ascending (a copy). */
  public double[] eigenvalues() {
    return eigenvalues.clone();
  }

  /**
   * (λΣ + (1−λ)I)^{-1/2}, row-major m × m: maps embeddings to a space where the Euclidean distance
   * is the regularized Mahalanobis distance d_RM (for the privacy ratio of the Mahalanobis mechanism).
   */
  public double[] regularizedInverseSquareRoot(double lambda) {
    return regularizedPower(lambda, -0.5);
  }

  /**
   * (λΣ + (1−λ)I)^{1/2}, row-major m × m: the symmetric square root, from the eigendecomposition.
   * λ = 0 gives the identity.
   */
  public double[] regularizedSquareRoot(double lambda) {
    return regularizedPower(lambda, 0.5);
  }

  private double[] regularizedPower(double lambda, double power) {
    if (!(lambda >= 0 && lambda <= 1)) {
      throw new IllegalArgumentException("λ must be in [0, 1], got " + lambda);
    }
    double[] root = new double[m * m];
    for (int i = 0; i < m; i++) {
      double ev = lambda * Math.max(eigenvalues[i], 0) + (1 - lambda);
      double s = Math.pow(ev, power);
      // Column i of the column-major eigenvector matrix is eigenvectors[i*m .. i*m+m).
      for (int a = 0; a < m; a++) {
        double qa = eigenvectors[i * m + a] * s;
        for (int b = 0; b < m; b++) {
          root[a * m + b] += qa * eigenvectors[i * m + b];
        }
      }
    }
    return root;
  }
}
