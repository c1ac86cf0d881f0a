package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.assertHomogeneous;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.Embeddings;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Laplace, Mahalanobis, Vickrey and Vickrey top-k as whole mechanisms — input word → output word, built
 * from a spec as the job builds them — against output distributions computed in the test from the
 * definitions ({@link NoiseReference}: its own covariance, Cholesky factor, noise law, nearest-word
 * search and selection rules; nothing from main code).
 *
 * <p><b>In the plane</b> ({@link #matchesTheExactDistributionInThePlane}): six words placed unevenly
 * (their scaled covariance has eigenvalues 1.66 and 0.34, so the Mahalanobis noise is clearly
 * elliptical), ε = 3, inputs w0 (in the middle: kept with probability 0.40–0.50, the rest spread over all
 * five others) and w5 (on the edge: kept with probability 0.52–0.86). The reference is the exact
 * P(y | x), integrated numerically ({@link NoiseReference#planeDistribution}, 4,096 rays; its error,
 * below 3e-5 absolute, moves the chi-square statistic by less than 0.03; it agrees with Monte Carlo
 * samples of 2,000,000 to 10,000,000 draws of {@link NoiseReference#sample}). Each case draws
 * {@value #SAMPLES} outputs with a fixed seed and applies Pearson's chi-square test over the six words at
 * α = 1e-5 ({@link SamplerStatistics}).
 *
 * <p>Power at 200,000 draws (non-central chi-square with the exact distributions of the altered
 * mechanisms; x = w0 / w5): ε·1.05 instead of ε: 1.00 / 1.00 for every mechanism (ε·1.02: 1.00 / 0.85
 * for Laplace); Mahalanobis with λ = 0.7 instead of 0.8: 1.00 / 0.55, with 1 − λ, with the uncentred
 * second moment for Σ, with λΣ + (1−λ)I instead of its square root, or with Laplace noise: 1.00 / 1.00;
 * Vickrey with t = 0.45 instead of 0.4: 0.21 / 1.00, t = 0.5: 1.00 / 1.00; top-k with t_1 = 0.6
 * instead of 0.5: 0.00 / 0.98, t_3 = 2.5 instead of 2 or the thresholds reversed: 1.00 / 1.00.
 *
 * <p><b>In three dimensions</b> ({@link #matchesAMonteCarloReferenceInThreeDimensions}): seven words,
 * Gamma(3) radii, a full 3×3 covariance; the reference is a Monte Carlo sample of
 * {@value #REFERENCE_DRAWS} draws from the definition ({@link NoiseReference#sample}: its own generator,
 * radius and direction), compared with {@value #SAMPLES} draws of the product by a chi-square test of
 * homogeneity at α = 1e-5 ({@link SamplerStatistics#homogeneity}). Power (effective sample 167,000):
 * ε·1.05: 1.00 for each case; Mahalanobis with λ = 0.7 instead of 0.8: 0.99 (w0) / 0.62 (w5), with
 * Laplace noise: 1.00.
 *
 * <p><b>False-failure rate.</b> 10 + 4 checks at α = 1e-5 each: at most 1.4e-4 for the class (the
 * chi-square approximation aside; every expected count is at least 100). The seeds are fixed, so a
 * passing run keeps passing until the mechanisms' consumption of random numbers changes.
 *
 * <p><b>Cost.</b> About 0.2 s per case on an idle machine (the exact integral or the reference sample,
 * and 200,000 product draws in batches of 10,000).
 */
class NoiseMechanismDistributionTest {
  static final int SAMPLES = 200_000;
  static final int REFERENCE_DRAWS = 1_000_000;
  static final int ANGLES = 4096;
  static final double EPSILON = 3;
  static final double LAMBDA = 0.8;

  /** Six words in the plane, coordinates exact in float. */
  static final double[][] PLANE = {
    {0, 0}, {1, 0.25}, {0.25, 0.875}, {-0.75, 0.5}, {-0.5, -0.75}, {1.75, 1.25}
  };

  /** Seven words in space, coordinates exact in float. */
  static final double[][] SPACE = {
    {0, 0, 0}, {1, 0.25, -0.5}, {0.25, 0.875, 0.5}, {-0.75, 0.5, 0.25}, {-0.5, -0.75, 0.75}, {1.75, 1.25, 0.5},
    {0.5, -0.5, -1}
  };

  /** One mechanism setting: its spec, the reference's noise (identity or λ) and selection rule. */
  record Setting(String spec, double lambda, NoiseReference.Selection selection) {
    double[][] factor(double[][] words) {
      int m = words[0].length;
      return lambda == 0
          ? NoiseReference.identity(m)
          : NoiseReference.cholesky(NoiseReference.regularized(NoiseReference.scaledCovariance(words), lambda));
    }

    @Override
    public String toString() {
      return spec;
    }
  }

  static List<Setting> settings() {
    String eps = "epsilon=" + EPSILON;
    return List.of(
        new Setting("laplace:" + eps, 0, NoiseReference.nearest()),
        new Setting("mahalanobis:" + eps + ",lambda=" + LAMBDA, LAMBDA, NoiseReference.nearest()),
        new Setting("vickrey:" + eps + ",t=0.4", 0, NoiseReference.vickrey(0.4)),
        new Setting("vickrey:" + eps + ",t=0.7,lambda=" + LAMBDA, LAMBDA, NoiseReference.vickrey(0.7)),
        new Setting("vickrey-topk:" + eps + ",t=0.5;1;2", 0, NoiseReference.topK(0.5, 1, 2)));
  }

  static Stream<Arguments> planeCases() {
    List<Arguments> out = new ArrayList<>();
    for (Setting s : settings()) {
      for (int x : new int[] {0, 5}) {
        out.add(Arguments.of(s, x));
      }
    }
    return out.stream();
  }

  static Stream<Arguments> spaceCases() {
    List<Setting> all = settings();
    return Stream.of(
        Arguments.of(all.get(0), 0), // Laplace: Gamma(3) radius, uniform direction on S²
        Arguments.of(all.get(1), 0), // Mahalanobis: the full 3×3 Σ
        Arguments.of(all.get(1), 5),
        Arguments.of(new Setting("vickrey-topk:epsilon=" + EPSILON + ",t=0.5;1;2,lambda=" + LAMBDA, LAMBDA,
            NoiseReference.topK(0.5, 1, 2)), 0));
  }

  static DpTextModel model(double[][] words) {
    int m = words[0].length;
    String[] names = new String[words.length];
    float[] vectors = new float[words.length * m];
    for (int i = 0; i < words.length; i++) {
      names[i] = "w" + i;
      for (int a = 0; a < m; a++) {
        vectors[i * m + a] = (float) words[i][a];
        assertEquals(words[i][a], vectors[i * m + a], 0, "test coordinates must be exact in float");
      }
    }
    return DpTextModel.of(new Embeddings(names, vectors, m), "test-" + m + "d", words.length);
  }

  /** {@code n} outputs of the product's mechanism for input x, counted by word. */
  static long[] productHistogram(WordMechanism mechanism, int size, int x, int n, long seed) {
    RandomStream random = RandomStream.fromSeed(seed);
    int batch = 10_000;
    int[] in = new int[batch];
    Arrays.fill(in, x);
    int[] out = new int[batch];
    long[] counts = new long[size];
    for (int done = 0; done < n; done += batch) {
      int count = Math.min(batch, n - done);
      mechanism.sanitize(in, count, random, out);
      for (int i = 0; i < count; i++) {
        counts[out[i]]++;
      }
    }
    return counts;
  }

  @ParameterizedTest(name = "{0} x=w{1}")
  @MethodSource("planeCases")
  void matchesTheExactDistributionInThePlane(Setting setting, int x) {
    double[] p = NoiseReference.planeDistribution(PLANE, x, EPSILON, setting.factor(PLANE), setting.selection(),
        ANGLES);
    double total = 0;
    for (double v : p) {
      total += v;
    }
    assertEquals(1, total, 1e-9, "the reference is a distribution");
    WordMechanism mechanism = MechanismSpec.parse(setting.spec()).build(model(PLANE));
    long seed = 0x2D_0000L + 31L * setting.spec().hashCode() + x;
    long[] counts = productHistogram(mechanism, PLANE.length, x, SAMPLES, seed);
    assertFits(counts, p, String.format(Locale.ROOT, "%s x=w%d (2-d, exact reference %s)", setting.spec(), x,
        Arrays.toString(p)));
  }

  @ParameterizedTest(name = "{0} x=w{1}")
  @MethodSource("spaceCases")
  void matchesAMonteCarloReferenceInThreeDimensions(Setting setting, int x) {
    long seed = 0x3D_0000L + 31L * setting.spec().hashCode() + x;
    long[] reference = NoiseReference.sample(SPACE, x, EPSILON, setting.factor(SPACE), setting.selection(),
        REFERENCE_DRAWS, seed);
    WordMechanism mechanism = MechanismSpec.parse(setting.spec()).build(model(SPACE));
    long[] counts = productHistogram(mechanism, SPACE.length, x, SAMPLES, seed);
    assertHomogeneous(counts, reference, String.format(Locale.ROOT, "%s x=w%d (3-d, Monte Carlo reference %s)",
        setting.spec(), x, Arrays.toString(reference)));
  }
}
