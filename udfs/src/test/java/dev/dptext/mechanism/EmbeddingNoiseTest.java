package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.Arrays;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.apache.commons.math3.distribution.GammaDistribution;
import org.apache.commons.math3.distribution.RealDistribution;
import org.junit.jupiter.api.Test;

/**
 * The embedding noise against its exact distribution. Kolmogorov–Smirnov tests at α = 1e-4 each
 * (critical value 2.2·√(1/n) is conservative for α = 1e-4: K(1−1e-4) ≈ 2.15): the radius
 * ‖Z‖ ~ Gamma(m, 1/ε) and, for a uniform direction, U_1² ~ Beta(1/2, (m−1)/2). The Mahalanobis
 * noise's covariance is (m+1)/ε² · (λΣ + (1−λ)I) (E[R²] = m(m+1)/ε², E[UUᵀ] = I/m), checked entry by
 * entry within 6 standard errors.
 */
class EmbeddingNoiseTest {
  static final double KS_CRITICAL = 2.2;

  static void assertKs(double[] sample, RealDistribution dist, String what) {
    double[] s = sample.clone();
    Arrays.sort(s);
    int n = s.length;
    double d = 0;
    for (int i = 0; i < n; i++) {
      double f = dist.cumulativeProbability(s[i]);
      d = Math.max(d, Math.max((i + 1.0) / n - f, f - (double) i / n));
    }
    assertTrue(d * Math.sqrt(n) < KS_CRITICAL, what + ": KS √n·D = " + d * Math.sqrt(n));
  }

  @Test
  void laplaceNoiseHasGammaRadiusAndUniformDirection() {
    for (int m : new int[] {2, 10, 100}) {
      for (double eps : new double[] {0.5, 5, 50}) {
        EmbeddingNoise noise = EmbeddingNoise.laplace(m, eps);
        RandomStream r = RandomStream.fromSeed(m * 1000L + (long) eps);
        int n = 20_000;
        double[] radius = new double[n];
        double[] firstSquared = new double[n];
        double[] z = new double[m];
        double[] scratch = new double[2 * m];
        for (int i = 0; i < n; i++) {
          Arrays.fill(z, 0);
          noise.addTo(z, 0, r, scratch);
          double norm2 = 0;
          for (double c : z) {
            norm2 += c * c;
          }
          radius[i] = Math.sqrt(norm2);
          firstSquared[i] = z[0] * z[0] / norm2;
        }
        assertKs(radius, new GammaDistribution(null, m, 1 / eps), "radius m=" + m + " ε=" + eps);
        assertKs(firstSquared, new BetaDistribution(null, 0.5, (m - 1) / 2.0), "direction m=" + m + " ε=" + eps);
      }
    }
  }

  @Test
  void mahalanobisNoiseCovarianceIsProportionalToTheRegularizedSigma() {
    Embeddings e = Fixtures.gloveTop2000();
    EmbeddingCovariance cov = EmbeddingCovariance.of(e);
    int m = e.dim();
    double trace = 0;
    double[] sigma = cov.sigma();
    for (int d = 0; d < m; d++) {
      trace += sigma[d * m + d];
    }
    assertEquals(m, trace, 1e-9 * m, "Σ is scaled to trace m");
    for (double lambda : new double[] {0.5, 1}) {
      double eps = 10;
      EmbeddingNoise noise = EmbeddingNoise.elliptical(m, eps, cov.regularizedSquareRoot(lambda));
      RandomStream r = RandomStream.fromSeed(99);
      int n = 40_000;
      double[] sum = new double[m * m];
      double[] z = new double[m];
      double[] scratch = new double[2 * m];
      for (int i = 0; i < n; i++) {
        Arrays.fill(z, 0);
        noise.addTo(z, 0, r, scratch);
        for (int a = 0; a < m; a++) {
          for (int b = 0; b < m; b++) {
            sum[a * m + b] += z[a] * z[b];
          }
        }
      }
      double scale = (m + 1) / (eps * eps);
      for (int a = 0; a < m; a += 7) {
        for (int b = 0; b < m; b += 11) {
          double expected = scale * (lambda * sigma[a * m + b] + (a == b ? 1 - lambda : 0));
          double observed = sum[a * m + b] / n;
          // Var(Z_a Z_b) ≤ sqrt(E Z_a^4 E Z_b^4); bound the standard error generously by the diagonal.
          double se = Math.sqrt(3.5 * (scale * (lambda * sigma[a * m + a] + 1 - lambda))
              * (scale * (lambda * sigma[b * m + b] + 1 - lambda)) / n);
          assertEquals(expected, observed, 6 * se, "Cov[" + a + "," + b + "] λ=" + lambda);
        }
      }
    }
  }

  @Test
  void squareRootSquaresToTheRegularizedSigmaAndLambdaZeroIsTheIdentity() {
    Embeddings e = Fixtures.gloveTop2000();
    EmbeddingCovariance cov = EmbeddingCovariance.of(e);
    int m = e.dim();
    double[] sigma = cov.sigma();
    double[] root = cov.regularizedSquareRoot(0.3);
    for (int a = 0; a < m; a += 13) {
      for (int b = 0; b < m; b += 17) {
        double s = 0;
        for (int c = 0; c < m; c++) {
          s += root[a * m + c] * root[c * m + b];
        }
        assertEquals(0.3 * sigma[a * m + b] + (a == b ? 0.7 : 0), s, 1e-9);
      }
    }
    double[] identity = cov.regularizedSquareRoot(0);
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        assertEquals(a == b ? 1 : 0, identity[a * m + b], 1e-12);
      }
    }
  }

  @Test
  void lambdaZeroAndTZeroReduceToLaplace() {
    Embeddings e = Fixtures.gloveTop2000();
    NearestWords nearest = new NearestWords(e);
    EmbeddingCovariance cov = EmbeddingCovariance.of(e);
    int[] words = new int[300];
    for (int i = 0; i < words.length; i++) {
      words[i] = (i * 37) % e.size();
    }
    for (double eps : new double[] {1, 10}) {
      int[] laplace = new int[words.length];
      int[] mahalanobis = new int[words.length];
      int[] vickrey = new int[words.length];
      new LaplaceMechanism(e, nearest, eps).sanitize(words, words.length, RandomStream.fromSeed(7), laplace);
      new MahalanobisMechanism(e, nearest, cov, eps, 0).sanitize(words, words.length, RandomStream.fromSeed(7), mahalanobis);
      VickreyMechanism.of(e, nearest, null, eps, 0, java.util.List.of(0.0))
          .sanitize(words, words.length, RandomStream.fromSeed(7), vickrey);
      assertArrayEquals(laplace, mahalanobis, "λ = 0 is Laplace, ε=" + eps);
      assertArrayEquals(laplace, vickrey, "t = 0 is Laplace, ε=" + eps);
    }
  }
}
