package dev.dptext.embedding;

import dev.dptext.errors.DpTextErrors;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The covariance of a vocabulary's embeddings scaled to trace m, Σ = S / (trace S / m) with S the
 * sample covariance (Xu et al. 2020, §3: "scaling the sample covariance matrix of the word embeddings
 * by the mean sample variance"), and its eigendecomposition Σ = Q·diag(ξ)·Qᵀ, from which the
 * Mahalanobis mechanism's noise transform (λΣ + (1−λ)I)^{1/2} = Q·diag(√(λξ + 1 − λ))·Qᵀ follows for
 * any λ. O(m²) memory.
 *
 * <p>Every step is plain Java arithmetic in a written order (docs/engine-spec.md, "The
 * covariance and its square root"), not BLAS or LAPACK: the transform is part of what a row's noise is,
 * so it must be the same bits on every JVM (native BLAS or not, a Spark Connect client with no netlib at
 * all) and in the Python engine, which repeats these steps. The eigendecomposition is the cyclic Jacobi
 * method in round-robin order ({@link #jacobi}).
 */
public final class EmbeddingCovariance implements Serializable {
  private static final long serialVersionUID = 2L;

  /** Jacobi sweeps at most; on GloVe 100-d it converges in about ten. */
  static final int MAX_SWEEPS = 64;

  private final int m;
  private final double[] sigma;
  /** Ascending. */
  private final double[] eigenvalues;
  /** Eigenvector i (of eigenvalues[i]) is eigenvectors[i*m .. i*m+m). */
  private final double[] eigenvectors;

  /** Reconstructs from a stored Σ (row-major m × m), recomputing the eigendecomposition. */
  public EmbeddingCovariance(int m, double[] sigma) {
    if (sigma.length != m * m) { // the model readers read m·m values
      throw new IllegalStateException("Σ has " + sigma.length + " entries; expected " + m + "²");
    }
    this.m = m;
    this.sigma = sigma.clone();
    double[] a = sigma.clone();
    double[] v = new double[m * m];
    for (int d = 0; d < m; d++) {
      v[d * m + d] = 1;
    }
    jacobi(m, a, v);
    Integer[] order = IntStream.range(0, m).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> a[i * m + i]).thenComparingInt(i -> i));
    this.eigenvalues = new double[m];
    this.eigenvectors = new double[m * m];
    for (int i = 0; i < m; i++) {
      int j = order[i];
      eigenvalues[i] = a[j * m + j];
      for (int r = 0; r < m; r++) {
        eigenvectors[i * m + r] = v[r * m + j];
      }
    }
  }

  /**
   * Diagonalises the symmetric row-major {@code a} in place (its diagonal ends as the eigenvalues) and
   * accumulates the rotations into {@code v} (its column j ends as the eigenvector of a[j][j]).
   *
   * <p>A sweep is m' − 1 rounds (m' = m rounded up to even) of the circle method's disjoint pairs: in
   * round r, (r, m' − 1) and ((r + i) mod (m' − 1), (r − i) mod (m' − 1)) for i = 1 .. m'/2 − 1, each as
   * (p, q) with p &lt; q, dropping any pair with the index m when m is odd. Per round, every pair's
   * rotation is computed from the matrix as the round found it: θ = (a_qq − a_pp) / (2·a_pq), t =
   * sign(θ) / (|θ| + √(θ² + 1)) with sign(0) = 1, c = 1 / √(t² + 1), s = t·c; or c = 1, s = 0 when
   * |a_pq| ≤ 2^-52·m·√|a_pp·a_qq| (a sweep with no such rotation ends the method). Then every pair's
   * columns p, q of a are rotated (x_p ← c·x_p − s·x_q, x_q ← s·x_p + c·x_q, from the old values), then
   * every pair's rows the same way, then every pair's columns of v. The rotations of a round touch
   * disjoint columns (rows), so this order is a definition the Python engine can follow a round at a
   * time, and it is what a plain loop computes.
   */
  static void jacobi(int m, double[] a, double[] v) {
    int players = m + (m & 1);
    int pairs = players / 2;
    int[] ps = new int[pairs];
    int[] qs = new int[pairs];
    double[] cs = new double[pairs];
    double[] ss = new double[pairs];
    double tolerance = 0x1.0p-52 * m;
    for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
      boolean rotated = false;
      for (int round = 0; round < players - 1; round++) {
        int n = roundPairs(round, players, m, ps, qs);
        for (int k = 0; k < n; k++) {
          int p = ps[k];
          int q = qs[k];
          double apq = a[p * m + q];
          double app = a[p * m + p];
          double aqq = a[q * m + q];
          if (Math.abs(apq) <= tolerance * Math.sqrt(Math.abs(app * aqq))) {
            cs[k] = 1;
            ss[k] = 0;
            continue;
          }
          rotated = true;
          double theta = (aqq - app) / (2 * apq);
          double t = (theta >= 0 ? 1.0 : -1.0) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
          double c = 1 / Math.sqrt(t * t + 1);
          cs[k] = c;
          ss[k] = t * c;
        }
        for (int k = 0; k < n; k++) {
          rotateColumns(a, m, ps[k], qs[k], cs[k], ss[k]);
        }
        for (int k = 0; k < n; k++) {
          int p = ps[k];
          int q = qs[k];
          double c = cs[k];
          double s = ss[k];
          for (int j = 0; j < m; j++) {
            double x = a[p * m + j];
            double y = a[q * m + j];
            a[p * m + j] = c * x - s * y;
            a[q * m + j] = s * x + c * y;
          }
        }
        for (int k = 0; k < n; k++) {
          rotateColumns(v, m, ps[k], qs[k], cs[k], ss[k]);
        }
      }
      if (!rotated) {
        return;
      }
    }
  }

  private static void rotateColumns(double[] x, int m, int p, int q, double c, double s) {
    for (int r = 0; r < m; r++) {
      double xp = x[r * m + p];
      double xq = x[r * m + q];
      x[r * m + p] = c * xp - s * xq;
      x[r * m + q] = s * xp + c * xq;
    }
  }

  /** The pairs (p &lt; q) of one round of the circle method over {@code players}; returns how many. */
  static int roundPairs(int round, int players, int m, int[] ps, int[] qs) {
    int n = 0;
    int last = players - 1;
    for (int i = 0; i < players / 2; i++) {
      int x = i == 0 ? round : Math.floorMod(round + i, last);
      int y = i == 0 ? last : Math.floorMod(round - i, last);
      if (x >= m || y >= m) {
        continue;
      }
      ps[n] = Math.min(x, y);
      qs[n] = Math.max(x, y);
      n++;
    }
    return n;
  }

  /**
   * Computes Σ from the embeddings: S_ab = Σ_i (φ_ia − μ_a)(φ_ib − μ_b) / (n − 1), summed over the words
   * in rank order for each a ≤ b (the lower triangle mirrors it), μ = {@link Embeddings#mean()}, each
   * centred coordinate the float widened to double minus μ_a.
   */
  public static EmbeddingCovariance of(Embeddings e) {
    int n = e.size();
    int m = e.dim();
    if (n < 2) {
      throw DpTextErrors.error("COVARIANCE_TOO_FEW_WORDS", "words", n);
    }
    float[] v = e.rawVectors();
    double[] mean = e.mean();
    double[] scatter = new double[m * m];
    double[] c = new double[m];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < m; d++) {
        c[d] = v[i * m + d] - mean[d];
      }
      for (int a = 0; a < m; a++) {
        double ca = c[a];
        int row = a * m;
        for (int b = a; b < m; b++) {
          scatter[row + b] += ca * c[b];
        }
      }
    }
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < a; b++) {
        scatter[a * m + b] = scatter[b * m + a];
      }
    }
    return fromScatter(m, scatter, n);
  }
  /**
   * Σ from the scatter matrix Σ_i (φ_i − μ)(φ_i − μ)ᵀ of {@code n} words, summed elsewhere (the
   * partitioned build sums it over Spark partitions).
   */
  public static EmbeddingCovariance fromScatter(int m, double[] scatter, long n) {
    if (n < 2) {
      throw DpTextErrors.error("COVARIANCE_TOO_FEW_WORDS", "words", n);
    }
    double[] s = new double[m * m];
    for (int i = 0; i < s.length; i++) {
      s[i] = scatter[i] / (n - 1);
    }
    return scaled(m, s, n);
  }

  /** Scales the sample covariance to trace m and symmetrises it. */
  private static EmbeddingCovariance scaled(int m, double[] s, long n) {
    double trace = 0;
    for (int d = 0; d < m; d++) {
      trace += s[d * m + d];
    }
    if (!(trace > 0)) {
      throw DpTextErrors.error("COVARIANCE_NO_VARIANCE", "words", n, "dim", m);
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
    return regularizedPower(lambda, true);
  }

  /**
   * (λΣ + (1−λ)I)^{1/2}, row-major m × m: the symmetric square root, from the eigendecomposition.
   * λ = 0 gives the identity.
   */
  public double[] regularizedSquareRoot(double lambda) {
    return regularizedPower(lambda, false);
  }

  /**
   * Q·diag(g(λξ_i + 1 − λ))·Qᵀ with g = √ or 1/√, ξ_i clamped at 0: entry (a, b) is Σ_i (q_ia·g_i)·q_ib,
   * summed over i in ascending order of ξ. λ = 0 gives the identity exactly (so Mahalanobis noise at λ = 0
   * is Laplace noise, bit for bit).
   */
  private double[] regularizedPower(double lambda, boolean inverse) {
    if (!(lambda >= 0 && lambda <= 1)) { // the lambda setting is checked to [0, 1] first
      throw new IllegalStateException("λ must be in [0, 1], got " + lambda);
    }
    double[] root = new double[m * m];
    if (lambda == 0) {
      for (int d = 0; d < m; d++) {
        root[d * m + d] = 1;
      }
      return root;
    }
    for (int i = 0; i < m; i++) {
      double ev = lambda * Math.max(eigenvalues[i], 0) + (1 - lambda);
      double s = inverse ? 1 / Math.sqrt(ev) : Math.sqrt(ev);
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
