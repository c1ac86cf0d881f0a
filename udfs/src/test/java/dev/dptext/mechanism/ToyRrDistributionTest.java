package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.WordMetric;
import dev.dptext.random.RandomStream;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ToyRr} against its exact distribution P(x | x) = e^ε/(e^ε + n − 1), P(y | x) = 1/(e^ε + n − 1)
 * for y ≠ x, over a vocabulary of n = {@value #N} words (the sampler reads only n).
 *
 * <p>Each case draws {@value #SAMPLES} outputs at a fixed seed and applies Pearson's chi-square over all
 * words and an exact binomial test of P(output = x), each at level α = 1e-5 ({@link SamplerStatistics}):
 * 18 checks, so a correct sampler fails one by chance with probability below 2e-4 for a given set of seeds.
 * The inputs are the first word, a middle one and the last, the edges of the skip over x. The guarantee's
 * ratio bound, P(y | x) ≤ e^{ε·d(x, x')}·P(y | x') over all pairs with the toy's discrete metric, is
 * checked on the exact distribution, and that it is tight.
 */
class ToyRrDistributionTest {
  static final int N = 50;
  static final int SAMPLES = 40_000;

  /** The exact P(· | x). */
  static double[] exact(int x, double epsilon) {
    double z = Math.exp(epsilon) + N - 1;
    double[] p = new double[N];
    Arrays.fill(p, 1 / z);
    p[x] = Math.exp(epsilon) / z;
    return p;
  }

  @ParameterizedTest
  @CsvSource({"0.5, 0", "0.5, 17", "0.5, 49", "2, 0", "2, 17", "2, 49", "8, 0", "8, 17", "8, 49"})
  void drawsFollowTheExactDistribution(double epsilon, int x) {
    RandomStream random = RandomStream.fromSeed(1000L * x + Math.round(10 * epsilon)); // a stream per case
    long[] counts = histogram(new ToyRr(N, epsilon), N, x, SAMPLES, random);
    double[] p = exact(x, epsilon);
    String what = "toy-rr ε=" + epsilon + " x=" + x;
    assertFits(counts, p, what);
    assertBinomial(counts[x], SAMPLES, p[x], what + " P(x|x)");
  }

  @ParameterizedTest
  @CsvSource({"0.5", "2", "8"})
  void theGuaranteeHoldsOverEveryPairAndIsTight(double epsilon) {
    WordMetric d = WordMetric.discrete(N);
    double worst = 0;
    for (int x = 0; x < N; x++) {
      double[] px = exact(x, epsilon);
      for (int x2 = 0; x2 < N; x2++) {
        double[] px2 = exact(x2, epsilon);
        for (int y = 0; y < N; y++) {
          double loss = Math.log(px[y] / px2[y]);
          assertTrue(loss <= epsilon * d.distance(x, x2) + 1e-12, x + "," + x2 + "," + y + ": " + loss);
          worst = Math.max(worst, loss);
        }
      }
    }
    assertEquals(epsilon, worst, 1e-12);
  }
}
