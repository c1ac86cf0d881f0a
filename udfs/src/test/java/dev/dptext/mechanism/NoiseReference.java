package dev.dptext.mechanism;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.math3.analysis.integration.gauss.GaussIntegrator;
import org.apache.commons.math3.analysis.integration.gauss.GaussIntegratorFactory;

/**
 * Test-side references for the mechanisms that add noise to a word's embedding and select a word near
 * the noisy point (Laplace, Mahalanobis, Vickrey, Vickrey top-k), written from the definitions
 * (DESIGN.md; Feyisetan et al. 2020; Xu et al. 2020, 2021) without any main code: the covariance, its
 * factor, the noise, the nearest-word search and the selection rules are all computed here.
 *
 * <p><b>Noise.</b> Z has density ∝ exp(−ε·‖z‖_M) with ‖z‖_M = √(zᵀM⁻¹z): M = I is the multivariate
 * Laplace noise, M = λΣ + (1−λ)I the regularized Mahalanobis noise (Xu et al. 2020, Lemma 1), Σ the
 * words' sample covariance divided by their mean sample variance ({@link #scaledCovariance}). With
 * M = LLᵀ (Cholesky, {@link #cholesky}) and z = Lw, w has the spherical density
 * ε^m/(Γ(m)·|S^{m−1}|)·exp(−ε‖w‖): its radius is Gamma(m, 1/ε) and its direction uniform, whatever
 * factor of M is used (the product uses the symmetric square root; any factor gives the same law).
 *
 * <p><b>Exact distribution in the plane</b> ({@link #planeDistribution}). For m = 2, in polar
 * coordinates w = r·(cos θ, sin θ),
 *
 * <pre>
 *   P(y | x) = (1/2π) ∫₀^{2π} dθ ∫₀^∞ ε²·r·e^{−εr} · g_y(φ(x) + r·L(cos θ, sin θ)) dr,
 * </pre>
 *
 * g_y(p) the selection's probability of y at the noisy point p. Along one ray the order of the words by
 * distance changes only where two distances are equal (one r per pair: the bisector is a line), so the
 * ray is cut there, at each word's closest approach (where its distance bends) and on a grid in units
 * of 1/ε ({@link #RADIAL_GRID}) up to 50/ε (the radial mass beyond is (1 + 50)·e^{−50} &lt; 1e-20); each
 * piece is integrated by 10-point Gauss–Legendre, on which the integrand is smooth (a constant times
 * r·e^{−εr} for the nearest word; ratios of square roots of quadratics for Vickrey). The angle is
 * integrated by the midpoint rule over {@code angles} equally spaced rays: the inner integral is periodic
 * and continuous in θ, with kinks only where the ray crosses a vertex of the distance-order diagram, so
 * the error is O(angles⁻²). With 4,096 angles the probabilities on the test vocabulary agree with
 * 16,384 angles to within 3e-5 (absolute), and the probabilities sum to 1 within 1e-12; the radial
 * grid changes them by less than 1e-12 against a grid of step 1/ε throughout.
 *
 * <p><b>Monte Carlo in any dimension</b> ({@link #sample}): the radius as a sum of m exponentials (Gamma
 * with integer shape m), the direction as a normalised vector of m normal variates from {@link
 * SplittableRandom} (not the product's {@code RandomStream} nor its Gamma sampler), then the same
 * selection rules.
 */
final class NoiseReference {
  private NoiseReference() {}

  // ------------------------------------------------------------------------------- selections

  /** A selection rule: from the noisy point's distance to every word, each word's probability. */
  interface Selection {
    /** Adds {@code weight}·P(output = y) to {@code acc[y]} for every word y, given distances d. */
    void add(double[] d, double weight, double[] acc);

    /** The number of nearest words the rule reads. */
    int k();
  }

  /** The k words nearest by distance d, nearest first, ties to the lower index (insertion into a short list). */
  static int[] byDistance(double[] d, int k) {
    int[] out = new int[k];
    int filled = 0;
    for (int y = 0; y < d.length; y++) {
      if (filled == k && !(d[y] < d[out[k - 1]])) {
        continue;
      }
      int i = filled < k ? filled++ : k - 1;
      while (i > 0 && d[y] < d[out[i - 1]]) {
        out[i] = out[i - 1];
        i--;
      }
      out[i] = y;
    }
    return out;
  }

  /** The noisy point's nearest word (Laplace and Mahalanobis mechanisms). */
  static Selection nearest() {
    return new Selection() {
      @Override
      public void add(double[] d, double weight, double[] acc) {
        int best = 0;
        for (int y = 1; y < d.length; y++) {
          if (d[y] < d[best]) {
            best = y;
          }
        }
        acc[best] += weight;
      }

      @Override
      public int k() {
        return 1;
      }
    };
  }

  /**
   * Vickrey (Xu et al. 2021, Algorithm 1, over the whole vocabulary): the nearest word y1 with
   * probability (1−t)·d2 / (t·d1 + (1−t)·d2), else the second nearest y2.
   */
  static Selection vickrey(double t) {
    return new Selection() {
      @Override
      public void add(double[] d, double weight, double[] acc) {
        int[] two = byDistance(d, 2);
        double d1 = d[two[0]];
        double d2 = d[two[1]];
        double first = (1 - t) * d2 / (t * d1 + (1 - t) * d2);
        acc[two[0]] += weight * first;
        acc[two[1]] += weight * (1 - first);
      }

      @Override
      public int k() {
        return 2;
      }
    };
  }

  /** Vickrey's top-k form (Xu et al. 2021, Algorithm 3): the r-th nearest with probability ∝ exp(−t_r·d_r). */
  static Selection topK(double... t) {
    return new Selection() {
      @Override
      public void add(double[] d, double weight, double[] acc) {
        int[] order = byDistance(d, t.length);
        double[] w = new double[t.length];
        double total = 0;
        for (int r = 0; r < t.length; r++) {
          w[r] = Math.exp(-t[r] * d[order[r]]);
          total += w[r];
        }
        for (int r = 0; r < t.length; r++) {
          acc[order[r]] += weight * w[r] / total;
        }
      }

      @Override
      public int k() {
        return t.length;
      }
    };
  }

  // ------------------------------------------------------------------------- covariance

  /**
   * Σ by the definition (Xu et al. 2020, §3): the sample covariance of the words' embeddings, scaled by
   * the mean sample variance, so that trace Σ = m. Two passes in double precision.
   */
  static double[][] scaledCovariance(double[][] words) {
    int n = words.length;
    int m = words[0].length;
    double[] mean = new double[m];
    for (double[] w : words) {
      for (int a = 0; a < m; a++) {
        mean[a] += w[a] / n;
      }
    }
    double[][] s = new double[m][m];
    for (double[] w : words) {
      for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++) {
          s[a][b] += (w[a] - mean[a]) * (w[b] - mean[b]) / (n - 1);
        }
      }
    }
    double meanVariance = 0;
    for (int a = 0; a < m; a++) {
      meanVariance += s[a][a] / m;
    }
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        s[a][b] /= meanVariance;
      }
    }
    return s;
  }

  /** λΣ + (1−λ)I. */
  static double[][] regularized(double[][] sigma, double lambda) {
    int m = sigma.length;
    double[][] out = new double[m][m];
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        out[a][b] = lambda * sigma[a][b] + (a == b ? 1 - lambda : 0);
      }
    }
    return out;
  }

  /** The identity, the M of the Laplace noise. */
  static double[][] identity(int m) {
    return regularized(new double[m][m], 0);
  }

  /** The lower-triangular L with LLᵀ = M (Cholesky–Banachiewicz); M must be positive definite. */
  static double[][] cholesky(double[][] mat) {
    int m = mat.length;
    double[][] l = new double[m][m];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j <= i; j++) {
        double s = mat[i][j];
        for (int k = 0; k < j; k++) {
          s -= l[i][k] * l[j][k];
        }
        if (i == j) {
          if (!(s > 0)) {
            throw new IllegalArgumentException("not positive definite");
          }
          l[i][i] = Math.sqrt(s);
        } else {
          l[i][j] = s / l[j][j];
        }
      }
    }
    return l;
  }

  // -------------------------------------------------------------------- exact, in the plane

  private static final GaussIntegrator GAUSS_10 = new GaussIntegratorFactory().legendre(10);
  /**
   * Where each ray is cut besides the breakpoints, in units of 1/ε: pieces of width 1 where the radial
   * density ε²·r·e^{−εr} carries its mass, wider beyond; the integral stops at 50/ε (the mass beyond is
   * (1 + 50)·e^{−50} &lt; 1e-20).
   */
  private static final double[] RADIAL_GRID = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 50};

  /**
   * The exact P(y | x) for every word y, for noise of density ∝ exp(−ε‖z‖_M) (M = LLᵀ) and the given
   * selection, by the integral in the class comment.
   *
   * @param words the vocabulary, 2-d points
   * @param l the lower Cholesky factor of M ({@link #cholesky})
   */
  static double[] planeDistribution(double[][] words, int x, double epsilon, double[][] l, Selection selection,
      int angles) {
    if (words[0].length != 2) {
      throw new IllegalArgumentException("the exact integral is written for the plane");
    }
    int n = words.length;
    double[] p = new double[n];
    double[][] c = new double[n][]; // φ(x) − φ(y): the noisy point minus φ(y) is c_y + r·v
    for (int y = 0; y < n; y++) {
      c[y] = new double[] {words[x][0] - words[y][0], words[x][1] - words[y][1]};
    }
    double rMax = RADIAL_GRID[RADIAL_GRID.length - 1] / epsilon;
    double[] cuts = new double[n * n + n + RADIAL_GRID.length + 1];
    double[] d = new double[n];
    double[] acc = new double[n];
    for (int j = 0; j < angles; j++) {
      double theta = 2 * Math.PI * (j + 0.5) / angles;
      double u0 = Math.cos(theta);
      double u1 = Math.sin(theta);
      double v0 = l[0][0] * u0 + l[0][1] * u1;
      double v1 = l[1][0] * u0 + l[1][1] * u1;
      double vv = v0 * v0 + v1 * v1;
      int count = 0;
      cuts[count++] = 0;
      for (double s : RADIAL_GRID) {
        cuts[count++] = s / epsilon;
      }
      for (int a = 0; a < n; a++) {
        // ‖c_a + r·v‖² = ‖c_b + r·v‖² ⇔ r = (‖c_b‖² − ‖c_a‖²) / (2·v·(c_a − c_b))
        double ca2 = c[a][0] * c[a][0] + c[a][1] * c[a][1];
        double closest = -(c[a][0] * v0 + c[a][1] * v1) / vv;
        if (closest > 0 && closest < rMax) {
          cuts[count++] = closest;
        }
        for (int b = a + 1; b < n; b++) {
          double cb2 = c[b][0] * c[b][0] + c[b][1] * c[b][1];
          double den = 2 * ((c[a][0] - c[b][0]) * v0 + (c[a][1] - c[b][1]) * v1);
          double r = (cb2 - ca2) / den;
          if (den != 0 && r > 0 && r < rMax) {
            cuts[count++] = r;
          }
        }
      }
      Arrays.sort(cuts, 0, count);
      for (int piece = 0; piece < count; piece++) {
        double lo = cuts[piece];
        double hi = piece + 1 < count ? cuts[piece + 1] : rMax;
        if (hi <= lo) {
          continue;
        }
        double half = (hi - lo) / 2;
        for (int g = 0; g < GAUSS_10.getNumberOfPoints(); g++) {
          double r = lo + half * (1 + GAUSS_10.getPoint(g));
          double radial = half * GAUSS_10.getWeight(g) * epsilon * epsilon * r * Math.exp(-epsilon * r);
          for (int y = 0; y < n; y++) {
            double e0 = c[y][0] + r * v0;
            double e1 = c[y][1] + r * v1;
            d[y] = Math.sqrt(e0 * e0 + e1 * e1);
          }
          selection.add(d, radial, acc);
        }
      }
    }
    for (int y = 0; y < n; y++) {
      p[y] = acc[y] / angles;
    }
    return p;
  }

  // -------------------------------------------------------------- Monte Carlo, any dimension

  /**
   * {@code draws} outputs of the mechanism for input x, counted by word: Z = L·w, w = R·U with
   * R ~ Gamma(m, 1/ε) drawn as a sum of m Exp(ε) variates and U uniform on the sphere (a normalised
   * normal vector), then the selection at φ(x) + Z; the selection's draw uses the same generator.
   */
  static long[] sample(double[][] words, int x, double epsilon, double[][] l, Selection selection, int draws,
      long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int n = words.length;
    int m = words[0].length;
    long[] counts = new long[n];
    double[] u = new double[m];
    double[] point = new double[m];
    double[] d = new double[n];
    double[] p = new double[n];
    for (int i = 0; i < draws; i++) {
      double radius = 0;
      for (int k = 0; k < m; k++) {
        radius += -Math.log(1 - random.nextDouble()) / epsilon;
      }
      double norm2 = 0;
      for (int a = 0; a < m; a++) {
        u[a] = random.nextGaussian();
        norm2 += u[a] * u[a];
      }
      double scale = radius / Math.sqrt(norm2);
      for (int a = 0; a < m; a++) {
        double z = 0;
        for (int b = 0; b <= a; b++) {
          z += l[a][b] * u[b];
        }
        point[a] = words[x][a] + scale * z;
      }
      for (int y = 0; y < n; y++) {
        double s = 0;
        for (int a = 0; a < m; a++) {
          double e = point[a] - words[y][a];
          s += e * e;
        }
        d[y] = Math.sqrt(s);
      }
      Arrays.fill(p, 0);
      selection.add(d, 1, p);
      double v = random.nextDouble();
      int y = 0;
      double cumulative = p[0];
      while (v >= cumulative && y < n - 1) {
        cumulative += p[++y];
      }
      counts[y]++;
    }
    return counts;
  }
}
