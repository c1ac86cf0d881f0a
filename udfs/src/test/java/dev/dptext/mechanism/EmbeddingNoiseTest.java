package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.Arrays;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.apache.commons.math3.distribution.GammaDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.RealDistribution;
import org.junit.jupiter.api.Test;

/**
 * The embedding noise against its exact distribution. Kolmogorov–Smirnov tests at α = 1e-4 each
 * (critical value 2.2·√(1/n) is conservative for α = 1e-4: K(1−1e-4) ≈ 2.15): the radius
 * ‖Z‖ ~ Gamma(m, 1/ε) and, for a uniform direction, U_1² ~ Beta(1/2, (m−1)/2). The covariance Σ is
 * checked against the definition computed in the test ({@link NoiseReference#scaledCovariance}), and the
 * Mahalanobis noise's covariance against (m+1)/ε² · (λΣ + (1−λ)I) of that reference Σ (E[R²] =
 * m(m+1)/ε², E[UUᵀ] = I/m), every entry, with its exact standard error.
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

  /** The fixture's embeddings as rows of doubles (the float values, widened exactly). */
  static double[][] rows(Embeddings e) {
    int m = e.dim();
    float[] v = e.rawVectors();
    double[][] rows = new double[e.size()][m];
    for (int i = 0; i < rows.length; i++) {
      for (int a = 0; a < m; a++) {
        rows[i][a] = v[i * m + a];
      }
    }
    return rows;
  }

  @Test
  void covarianceIsTheScaledSampleCovarianceOfTheDefinition() {
    Embeddings e = Fixtures.gloveTop2000();
    int m = e.dim();
    double[][] reference = NoiseReference.scaledCovariance(rows(e));
    double[] sigma = EmbeddingCovariance.of(e).sigma();
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        assertEquals(reference[a][b], sigma[a * m + b], 1e-9, "Σ[" + a + "," + b + "]");
      }
    }
  }

  /**
   * The Mahalanobis mechanism's noise, built from a spec as the job builds it, against the covariance of
   * the definition computed here ({@link NoiseReference#scaledCovariance}, not the product's Σ): for
   * Z = R·T·U with TTᵀ = M = λΣ + (1−λ)I, R ~ Gamma(m, 1/ε) and U uniform on the sphere,
   * E[Z_a·Z_b] = (m+1)/ε²·M_ab and, from E[R⁴] = m(m+1)(m+2)(m+3)/ε⁴ and the sphere's fourth moments
   * (δ_ab·δ_cd + δ_ac·δ_bd + δ_ad·δ_bc)/(m(m+2)), Var(Z_a·Z_b) = (m+1)/ε⁴·((m+3)(M_aa·M_bb + 2M_ab²) −
   * (m+1)·M_ab²). Every one of the m(m+1)/2 = 5,050 distinct entries of the sample second moment of
   * 40,000 draws is z-tested against that, with the Bonferroni level 1e-5 / 5,050 each (z = 6.0): the
   * false-failure rate is at most 1e-5 per λ (normal approximation; the sample means are of 40,000
   * products). λ = 0.3 and 1 (not 0.5, which a λ ↔ 1 − λ mix-up would leave unchanged).
   */
  @Test
  void mahalanobisNoiseCovarianceMatchesTheDefinitionInEveryEntry() {
    Embeddings e = Fixtures.gloveTop2000();
    int m = e.dim();
    double[][] sigma = NoiseReference.scaledCovariance(rows(e));
    DpTextModel model = DpTextModel.of(e, "glove-top2000", 16);
    double eps = 10;
    int entries = m * (m + 1) / 2;
    double z = new NormalDistribution(null, 0, 1).inverseCumulativeProbability(1 - 1e-5 / (2 * entries));
    for (double lambda : new double[] {0.3, 1}) {
      NearestWordMechanism mechanism = (NearestWordMechanism)
          MechanismSpec.parse("mahalanobis:epsilon=" + eps + ",lambda=" + lambda).build(model);
      double[][] target = NoiseReference.regularized(sigma, lambda);
      RandomStream r = RandomStream.fromSeed(99);
      int n = 40_000;
      int batch = 1_000;
      double[] second = new double[m * m];
      double[] points = new double[batch * m];
      for (int done = 0; done < n; done += batch) {
        Arrays.fill(points, 0);
        mechanism.addNoise(points, batch, r);
        for (int i = 0; i < batch; i++) {
          for (int a = 0; a < m; a++) {
            double za = points[i * m + a];
            for (int b = a; b < m; b++) {
              second[a * m + b] += za * points[i * m + b];
            }
          }
        }
      }
      double scale = (m + 1) / (eps * eps);
      int worstA = -1;
      int worstB = -1;
      double worst = 0;
      for (int a = 0; a < m; a++) {
        for (int b = a; b < m; b++) {
          double mab = target[a][b];
          double expected = scale * mab;
          double variance = (m + 1) / (eps * eps * eps * eps)
              * ((m + 3) * (target[a][a] * target[b][b] + 2 * mab * mab) - (m + 1) * mab * mab);
          double zab = Math.abs(second[a * m + b] / n - expected) / Math.sqrt(variance / n);
          if (zab > worst) {
            worst = zab;
            worstA = a;
            worstB = b;
          }
        }
      }
      assertTrue(worst <= z, "λ=" + lambda + ": E[Z_a·Z_b] differs from (m+1)/ε²·(λΣ + (1−λ)I)_ab by " + worst
          + " standard errors at [" + worstA + "," + worstB + "] (allowed " + z + ")");
    }
  }

  @Test
  void squareRootSquaresToTheRegularizedSigmaAndLambdaZeroIsTheIdentity() {
    Embeddings e = Fixtures.gloveTop2000();
    EmbeddingCovariance cov = EmbeddingCovariance.of(e);
    int m = e.dim();
    double[][] target = NoiseReference.regularized(NoiseReference.scaledCovariance(rows(e)), 0.3);
    double[] root = cov.regularizedSquareRoot(0.3);
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        assertEquals(root[a * m + b], root[b * m + a], 1e-12, "the square root is symmetric");
        double s = 0;
        for (int c = 0; c < m; c++) {
          s += root[a * m + c] * root[c * m + b];
        }
        assertEquals(target[a][b], s, 1e-9, "(root²)[" + a + "," + b + "]");
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
