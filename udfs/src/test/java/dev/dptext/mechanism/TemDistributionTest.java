package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TEM's sampler against its exact distribution P(y|x) ∝ exp(−ε·min(d(x,y), γ)/2) over the 2,000-word
 * fixture, computed by brute force here (not by the sampler's own {@code conditional}): Pearson's χ² over
 * all words and an exact binomial test of the mass beyond γ, each at level α = 1e-5 (see
 * {@link SamplerStatistics}). γ is taken below the neighbour rows' reach (the flat part of the envelope is
 * then γ's: every uniform proposal beyond the row is accepted), inside it, beyond every distance (TEM is
 * then SanText, draw for draw), and by the β rule. Then the guarantee on every pair of 300 words.
 */
class TemDistributionTest {
  static final int SAMPLES = 50_000;
  static final int K = 16;
  static final Embeddings EMB = Fixtures.gloveTop2000();

  /** Inputs: the most frequent word, punctuation, a number word, a mid-rank and a rare word. */
  static int[] inputs() {
    return new int[] {EMB.indexOf("the"), EMB.indexOf(","), EMB.indexOf("million"), 1000, 1900};
  }

  /** Brute force: exp(−ε·min(d, γ)/2), normalised in log space. */
  static double[] exact(Embeddings e, int x, double epsilon, double gamma) {
    int n = e.size();
    double[] logW = new double[n];
    double max = Double.NEGATIVE_INFINITY;
    for (int y = 0; y < n; y++) {
      logW[y] = -0.5 * epsilon * Math.min(e.distance(x, y), gamma);
      max = Math.max(max, logW[y]);
    }
    double sum = 0;
    for (int y = 0; y < n; y++) {
      sum += Math.exp(logW[y] - max);
    }
    double[] p = new double[n];
    for (int y = 0; y < n; y++) {
      p[y] = Math.exp(logW[y] - max) / sum;
    }
    return p;
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (double eps : new double[] {1, 3, 10}) {
      for (double gamma : new double[] {2.5, 4.0, 1e6}) {
        for (int x : inputs()) {
          out.add(Arguments.of(eps, gamma, x));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "eps={0} gamma={1} x={2}")
  @MethodSource("cases")
  void matchesExactDistribution(double eps, double gamma, int x) {
    TruncatedExponentialMechanism tem = new TruncatedExponentialMechanism(EMB, Fixtures.gloveNeighbours(0, K), eps,
        gamma);
    String what = String.format(Locale.ROOT, "TEM eps=%s gamma=%s x=%d '%s'", eps, gamma, x, EMB.word(x));
    long seed = 0x7E3L ^ (7919L * Double.doubleToLongBits(eps) + 31L * Double.doubleToLongBits(gamma) + x);
    long[] counts = histogram(tem, EMB.size(), x, SAMPLES, RandomStream.fromSeed(seed));
    double[] p = exact(EMB, x, eps, gamma);
    assertFits(counts, p, what);
    long beyond = 0;
    double beyondMass = 0;
    for (int y = 0; y < EMB.size(); y++) {
      if (EMB.distance(x, y) > gamma) {
        beyond += counts[y];
        beyondMass += p[y];
      }
    }
    assertBinomial(beyond, SAMPLES, beyondMass, what + " P(output beyond γ)");
    assertBinomial(counts[x], SAMPLES, p[x], what + " P(output = x)");
  }

  /** The grid reaches both sides of the envelope: γ below the rows' outside bound, and between the inputs' bounds. */
  @Test
  void theGammasStraddleTheNeighbourRows() {
    NeighbourTable t = Fixtures.gloveNeighbours(0, K);
    double lowest = Double.MAX_VALUE;
    double highest = 0;
    for (int x : inputs()) {
      lowest = Math.min(lowest, t.outsideBound(x));
      highest = Math.max(highest, t.outsideBound(x));
    }
    // γ = 2.5 lies below every input's bound (the flat part is γ's), 4.0 between them (both regimes occur).
    assertTrue(2.5 < lowest && lowest < 4.0 && 4.0 < highest, "outside bounds " + lowest + ".." + highest);
  }

  /**
   * The paper's procedure itself, written out here: Gumbel noise of scale 2/ε on the scores −d(x,y) of the
   * words within γ and on ⊥'s −γ + (2/ε)·ln|V ∖ L_x|, the largest wins, ⊥ becomes a uniform word beyond γ. Its
   * draws fit the distribution the sampler is tested against (χ², α = 1e-5).
   */
  @Test
  void thePapersGumbelProcedureHasThisDistribution() {
    double eps = 3;
    double gamma = 4.0;
    for (int x : new int[] {0, 1000}) {
      List<Integer> inside = new ArrayList<>();
      List<Integer> outside = new ArrayList<>();
      for (int y = 0; y < EMB.size(); y++) {
        (EMB.distance(x, y) <= gamma ? inside : outside).add(y);
      }
      RandomStream r = RandomStream.fromSeed(17 + x);
      long[] counts = new long[EMB.size()];
      int draws = 50_000;
      double bottom = -gamma + 2 / eps * Math.log(outside.size());
      for (int i = 0; i < draws; i++) {
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int y : inside) {
          double score = -EMB.distance(x, y) - 2 / eps * Math.log(-Math.log(r.nextDouble()));
          if (score > bestScore) {
            bestScore = score;
            best = y;
          }
        }
        if (bottom - 2 / eps * Math.log(-Math.log(r.nextDouble())) > bestScore) {
          best = outside.get(r.nextInt(outside.size()));
        }
        counts[best]++;
      }
      assertFits(counts, exact(EMB, x, eps, gamma), "the paper's Gumbel procedure, x=" + x);
    }
  }

  /** With γ beyond every distance TEM is SanText: the same draws from the same stream. */
  @Test
  void aGammaBeyondEveryDistanceIsSanTextDrawForDraw() {
    NeighbourTable t = Fixtures.gloveNeighbours(0, K);
    TruncatedExponentialMechanism tem = new TruncatedExponentialMechanism(EMB, t, 3, 1e6);
    SanText santext = new SanText(EMB, t, 3);
    RandomStream a = RandomStream.fromSeed(5);
    RandomStream b = RandomStream.fromSeed(5);
    for (int i = 0; i < 20_000; i++) {
      int x = i % EMB.size();
      assertEquals(santext.sanitize(x, b), tem.sanitize(x, a));
    }
  }

  @Test
  void theConditionalIsTheExactDistributionAndASeedReproducesTheDraws() {
    TruncatedExponentialMechanism tem = new TruncatedExponentialMechanism(EMB, Fixtures.gloveNeighbours(0, K), 10, 4);
    double[] p = exact(EMB, 1000, 10, 4);
    double[] c = tem.conditional(1000);
    for (int y = 0; y < p.length; y++) {
      assertEquals(p[y], c[y], 1e-12);
    }
    int[] first = new int[500];
    int[] again = new int[500];
    RandomStream r1 = RandomStream.fromSeed(9);
    RandomStream r2 = RandomStream.fromSeed(9);
    for (int i = 0; i < first.length; i++) {
      first[i] = tem.sanitize(i, r1);
      again[i] = tem.sanitize(i, r2);
    }
    assertArrayEquals(first, again);
  }

  /**
   * ε·d metric DP and ε·γ local DP on every ordered pair of the first 300 words and every output:
   * ln P(y|x) − ln P(y|x') ≤ ε·min(d(x,x'), γ) (a relative slack of 1e-9 for rounding).
   */
  @Test
  void theGuaranteeHoldsOnEveryPair() {
    Embeddings small = EMB.topWords(300);
    for (double eps : new double[] {1, 5, 20}) {
      for (double gamma : new double[] {3, 4.5, 100}) {
        double[][] logP = new double[small.size()][];
        for (int x = 0; x < small.size(); x++) {
          double[] p = exact(small, x, eps, gamma);
          logP[x] = new double[p.length];
          for (int y = 0; y < p.length; y++) {
            logP[x][y] = Math.log(p[y]);
          }
        }
        double worst = 0;
        for (int x = 0; x < small.size(); x++) {
          for (int x2 = 0; x2 < small.size(); x2++) {
            double bound = eps * Math.min(small.distance(x, x2), gamma);
            for (int y = 0; y < small.size(); y++) {
              double loss = logP[x][y] - logP[x2][y];
              if (loss > bound * (1 + 1e-9) + 1e-12) { // the message only when it fails: 2.4 M checks per case
                org.junit.jupiter.api.Assertions.fail("eps=" + eps + " gamma=" + gamma + " x=" + x + " x'=" + x2
                    + " y=" + y + ": " + loss + " > " + bound);
              }
              if (bound > 0) {
                worst = Math.max(worst, loss / bound);
              }
            }
          }
        }
        SamplerStatistics.log(String.format(Locale.ROOT, "TEM guarantee eps=%s gamma=%s: largest loss/(ε·min(d,γ)) "
            + "over 300 words = %.4f", eps, gamma, worst));
      }
    }
  }

  @Test
  void gammaByTheBetaRuleAndBadParameters() {
    // γ = (2/ε)·ln((1 − β)(n − 1)/β): at this γ an isolated word's outside mass is exactly β.
    double g = TruncatedExponentialMechanism.gammaFor(3, 0.001, 2000);
    double a = 1999 * Math.exp(-3 * g / 2);
    assertEquals(0.001, a / (1 + a), 1e-12);
    MechanismSpec byRule = MechanismSpec.of("tem", Map.of("epsilon", 3.0));
    assertEquals(g, TruncatedExponentialMechanism.gamma(byRule, 2000), 1e-12);
    MechanismSpec given = MechanismSpec.of("tem", Map.of("epsilon", 3.0, "gamma", 4.5));
    assertEquals(4.5, TruncatedExponentialMechanism.gamma(given, 2000));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("tem", Map.of("epsilon", 3.0, "beta", 1.0)));
    assertTrue(bad.getMessage().contains("beta") && bad.getMessage().contains("1.0"), bad.getMessage());
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("tem", Map.of("epsilon", 3.0, "gamma", -1.0)));
    assertTrue(negative.getMessage().contains("gamma") && negative.getMessage().contains("-1.0"), negative.getMessage());
    assertTrue(TruncatedExponentialMechanism.DEFINITION.guarantee().contains("metric local DP"));
  }
}
