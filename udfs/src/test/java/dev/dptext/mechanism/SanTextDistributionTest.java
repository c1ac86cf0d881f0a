package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.assertMean;
import static dev.dptext.mechanism.SamplerStatistics.chiSquare;
import static dev.dptext.mechanism.SamplerStatistics.distances;
import static dev.dptext.mechanism.SamplerStatistics.exponential;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static dev.dptext.mechanism.SamplerStatistics.histogramFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SanText's sampler against the exact distribution P(y|x) ∝ exp(−ε·d(x,y)/2) over the whole
 * 2,000-word fixture, computed by brute force in the test.
 *
 * <p>Each case draws {@value #SAMPLES} outputs with a fixed seed and applies, each at level
 * α = 1e-5 (false-failure rate 1e-5 per check, see {@link SamplerStatistics}): Pearson's chi-square
 * over all words (bins with expected count &lt; 5 pooled), an exact binomial test of the mass that
 * falls in the neighbour row H_x, of P(output = x), and a z-test of the mean output distance.
 *
 * <p>K = 16 makes both branches of the rejection sampler carry real probability (the uniform proposal
 * with rejection, and the neighbour "excess" draw; {@link #bothSamplerBranchesAreExercised} checks
 * that), K = 64 is the product default, and K = 2000 = |V| puts the whole target set in the table.
 */
class SanTextDistributionTest {
  static final int SAMPLES = 100_000;
  static final int[] KS = {16, 64, 2000};
  static final double[] EPSILONS = {0.5, 1, 3, 10, 30};

  private static Embeddings emb;
  private static final Map<String, SanText> SAMPLERS = new HashMap<>();

  @BeforeAll
  static void load() {
    emb = Fixtures.gloveTop2000();
  }

  /** Inputs: most frequent word, punctuation, a number word, a mid-rank word, a rare word. */
  static int[] inputs() {
    Embeddings e = Fixtures.gloveTop2000();
    // The fixture (like the embedded default file) has no digit tokens: the npm GloVe copy drops
    // numbers, so "million" stands in for a number.
    return new int[] {
      e.indexOf("the"), e.indexOf(","), e.indexOf("million"), 1000, 1900
    };
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int k : KS) {
      for (double eps : EPSILONS) {
        for (int x : inputs()) {
          out.add(Arguments.of(k, eps, x));
        }
      }
    }
    return out.stream();
  }

  static synchronized SanText sanText(int k, double eps) {
    return SAMPLERS.computeIfAbsent(
        k + "/" + eps, key -> new SanText(Fixtures.gloveTop2000(), Fixtures.gloveNeighbours(0, k), eps));
  }

  static long seed(int k, double eps, int x) {
    return 0x5A17E47L ^ (1_000_003L * k + 7919L * Double.doubleToLongBits(eps) + x);
  }

  @Test
  void fixtureIsTheTop2000Words() {
    assertEquals(2000, emb.size());
    assertEquals(100, emb.dim());
    assertEquals("the", emb.word(0));
    for (int x : inputs()) {
      assertTrue(x >= 0, "an input word is missing from the fixture");
    }
  }

  @ParameterizedTest(name = "K={0} eps={1} x={2}")
  @MethodSource("cases")
  void matchesExactDistribution(int k, double eps, int x) {
    SanText mechanism = sanText(k, eps);
    NeighbourTable table = Fixtures.gloveNeighbours(0, k);
    String what = String.format(Locale.ROOT, "SanText K=%d eps=%s x=%d '%s'", k, eps, x, emb.word(x));
    long[] counts = histogram(mechanism, emb.size(), x, SAMPLES, RandomStream.fromSeed(seed(k, eps, x)));
    double[] p = exponential(emb, x, eps, 0);

    assertFits(counts, p, what);
    assertBinomial(counts[x], SAMPLES, p[x], what + " P(output = x)");
    if (table.k() < emb.size()) {
      long inRow = 0;
      double rowMass = 0;
      for (int j = 0; j < table.k(); j++) {
        inRow += counts[table.neighbour(x, j)];
        rowMass += p[table.neighbour(x, j)];
      }
      assertBinomial(inRow, SAMPLES, rowMass, what + " P(output in H_x)");
    }
    assertMean(counts, p, distances(emb, x), what + " mean d(x, output)");
  }

  /**
   * The grid above must really exercise both branches of the sampler at K = 16: some cases where the
   * uniform proposal (with rejection) is taken in most rounds, some where the neighbour excess is.
   */
  @Test
  void bothSamplerBranchesAreExercised() {
    NeighbourTable table = Fixtures.gloveNeighbours(0, 16);
    int uniformHeavy = 0;
    int excessHeavy = 0;
    for (double eps : EPSILONS) {
      for (int x : inputs()) {
        SamplerStatistics.Envelope env = SamplerStatistics.envelope(emb, table, x, eps);
        SamplerStatistics.log(String.format(
            Locale.ROOT,
            "envelope K=16 eps=%s x=%d '%s': P(uniform branch)=%.4f expected rounds=%.3f mass(H_x)=%.4f",
            eps, x, emb.word(x), env.uniformBranch(), env.expectedRounds(), env.neighbourMass()));
        assertTrue(env.expectedRounds() >= 1 - 1e-9, "the envelope must dominate the target");
        if (env.uniformBranch() > 0.2) {
          uniformHeavy++;
        }
        if (env.uniformBranch() < 0.8) {
          excessHeavy++;
        }
      }
    }
    assertTrue(uniformHeavy >= 3, "too few cases where the uniform branch matters: " + uniformHeavy);
    assertTrue(excessHeavy >= 3, "too few cases where the excess branch matters: " + excessHeavy);
  }

  /**
   * Power check of the test itself: the same chi-square rejects samples from a slightly wrong
   * distribution (ε off by 10%; or the neighbour row only, i.e. the tail dropped), and accepts samples
   * drawn by inverse CDF from the exact one.
   */
  @Test
  void goodnessOfFitDetectsWrongDistributions() {
    int x = 1000;
    double eps = 3;
    double[] exact = exponential(emb, x, eps, 0);

    long[] good = histogramFrom(exact, SAMPLES, RandomStream.fromSeed(11));
    assertFalse(chiSquare(good, exact).rejects(), "exact inverse-CDF samples rejected");

    long[] wrongEps = histogramFrom(exponential(emb, x, eps * 1.1, 0), SAMPLES, RandomStream.fromSeed(12));
    SamplerStatistics.Fit fitEps = chiSquare(wrongEps, exact);
    SamplerStatistics.log("power check, eps*1.1 vs eps=3 x=1000: " + fitEps);
    assertTrue(fitEps.rejects(), "a 10% error in epsilon went unnoticed: " + fitEps);

    NeighbourTable table = Fixtures.gloveNeighbours(0, 16);
    double[] rowOnly = new double[exact.length];
    for (int j = 0; j < table.k(); j++) {
      rowOnly[table.neighbour(x, j)] = exact[table.neighbour(x, j)];
    }
    long[] truncated = histogramFrom(rowOnly, SAMPLES, RandomStream.fromSeed(13));
    SamplerStatistics.Fit fitRow = chiSquare(truncated, exact);
    SamplerStatistics.log("power check, H_x only (K=16) vs exact, eps=3 x=1000: " + fitRow);
    assertTrue(fitRow.rejects(), "dropping the tail outside H_x went unnoticed: " + fitRow);
  }

  @Test
  void rejectsTablesOverAPartialTargetSet() {
    NeighbourTable partial = Fixtures.gloveNeighbours(1000, 16);
    // dptext's own wiring (the definition passes the model's table for rank 0): a bug check.
    IllegalStateException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class, () -> new SanText(emb, partial, 1.0));
    assertTrue(e.getMessage().contains("target start"), e.getMessage());
    for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      org.junit.jupiter.api.Assertions.assertThrows(
          IllegalArgumentException.class, () -> new SanText(emb, Fixtures.gloveNeighbours(0, 16), bad));
    }
  }
}
