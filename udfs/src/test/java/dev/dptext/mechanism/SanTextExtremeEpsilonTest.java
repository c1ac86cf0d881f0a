package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.exponential;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.Locale;
import org.apache.commons.math3.distribution.PoissonDistribution;
import org.junit.jupiter.api.Test;

/**
 * Extreme ε: 200 and beyond (weights span e^-1000 and more: nothing may overflow, turn NaN or hang; the
 * output is almost always the nearest candidate, and the distribution still matches where expected
 * counts allow a test), and ε = 0.01 (near-uniform). Statistical checks at α = 1e-5 each.
 */
class SanTextExtremeEpsilonTest {
  static final int SAMPLES = 100_000;

  /**
   * ε = 200, every word of the fixture as input: SanText keeps the word unless another is very close.
   * The number of changed words over all draws is Poisson with the exact mean Σ_x n·(1 − P(x|x)).
   */
  @Test
  void santextAtEpsilon200KeepsTheWord() {
    Embeddings e = Fixtures.gloveTop2000();
    int perWord = 25;
    for (int k : new int[] {16, 64}) {
      SanText m = new SanText(e, Fixtures.gloveNeighbours(0, k), 200);
      RandomStream r = RandomStream.fromSeed(200 + k);
      long changed = 0;
      double expectedChanged = 0;
      for (int x = 0; x < e.size(); x++) {
        double pKeep = exponential(e, x, 200, 0)[x];
        assertTrue(pKeep > 0.5 && !Double.isNaN(pKeep), "reference P(x|x) for x=" + x);
        expectedChanged += perWord * (1 - pKeep);
        for (int i = 0; i < perWord; i++) {
          int y = m.sanitize(x, r);
          assertTrue(y >= 0 && y < e.size(), "output out of range");
          changed += y != x ? 1 : 0;
        }
      }
      long critical = expectedChanged > 0
          ? new PoissonDistribution(expectedChanged).inverseCumulativeProbability(1 - SamplerStatistics.ALPHA) : 0;
      String msg = String.format(Locale.ROOT,
          "SanText eps=200 K=%d: %d of %d outputs differ from the input, expected %.4f, critical %d", k, changed,
          perWord * e.size(), expectedChanged, critical);
      SamplerStatistics.log(msg);
      assertTrue(changed <= critical, msg);
    }
  }

  /**
   * The non-sensitive word whose nearest V_P words are closest to a tie at ε = 200, so that the
   * distribution is not a point mass and a chi-square test has something to test.
   */
  static int mostSpreadNonSensitive(Embeddings e, int start, double eps) {
    int best = -1;
    double bestSecond = -1;
    for (int x = 0; x < start; x++) {
      double[] p = exponential(e, x, eps, start);
      double first = 0;
      double second = 0;
      for (double q : p) {
        if (q > first) {
          second = first;
          first = q;
        } else if (q > second) {
          second = q;
        }
      }
      if (second > bestSecond) {
        bestSecond = second;
        best = x;
      }
    }
    return best;
  }

  @Test
  void santextPlusAtEpsilon200MatchesWhereCountsAllow() {
    Embeddings e = Fixtures.gloveTop2000();
    for (double w : new double[] {0.5, 0.9}) {
      int start = SanTextPlus.sensitiveStart(e.size(), w);
      int x = mostSpreadNonSensitive(e, start, 200);
      double[] exact = exponential(e, x, 200, start);
      for (int k : new int[] {16, 2000}) {
        SanTextPlus m = new SanTextPlus(e, Fixtures.gloveNeighbours(start, k), 200, w, 1.0);
        long[] counts = histogram(m, e.size(), x, SAMPLES, RandomStream.fromSeed(2000 + k));
        String what = String.format(Locale.ROOT, "SanText+ eps=200 w=%s p=1 K=%d x=%d '%s'", w, k, x, e.word(x));
        assertFits(counts, exact, what);
        int mode = argmax(exact);
        assertTrue(counts[mode] > SAMPLES / 3, what + ": the nearest V_P word is not the most frequent output");
      }
    }
  }

  /** ε far beyond any sensible use: still no exception, always the nearest candidate. */
  @Test
  void hugeEpsilonReturnsTheNearestCandidate() {
    Embeddings e = Fixtures.gloveTop2000();
    int start = SanTextPlus.sensitiveStart(e.size(), 0.5);
    for (double eps : new double[] {1e3, 1e5, 1e8}) {
      SanText st = new SanText(e, Fixtures.gloveNeighbours(0, 16), eps);
      SanTextPlus sp = new SanTextPlus(e, Fixtures.gloveNeighbours(start, 16), eps, 0.5, 1.0);
      RandomStream r = RandomStream.fromSeed((long) eps);
      for (int x = 0; x < e.size(); x += 7) {
        assertEquals(x, st.sanitize(x, r), "SanText eps=" + eps + " x=" + x);
        double[] p = exponential(e, x, eps, start);
        int mode = argmax(p);
        if (p[mode] > 1 - 1e-12) {
          assertEquals(mode, sp.sanitize(x, r), "SanText+ eps=" + eps + " x=" + x);
        } else {
          int y = sp.sanitize(x, r);
          assertTrue(y >= start && p[y] > 0, "SanText+ eps=" + eps + " x=" + x + " gave impossible " + y);
        }
      }
    }
  }

  /** ε = 0.01: near-uniform; every word shows up and the distribution matches. */
  @Test
  void nearUniformAtEpsilon001() {
    Embeddings e = Fixtures.gloveTop2000();
    int start = SanTextPlus.sensitiveStart(e.size(), 0.5);
    for (int x : new int[] {0, 1000, 1900}) {
      double[] exact = exponential(e, x, 0.01, 0);
      double min = 1;
      double max = 0;
      for (double q : exact) {
        min = Math.min(min, q);
        max = Math.max(max, q);
      }
      assertTrue(max / min < 1.2, "reference not near-uniform: ratio " + max / min);
      SanText m = new SanText(e, Fixtures.gloveNeighbours(0, 16), 0.01);
      long[] counts = histogram(m, e.size(), x, SAMPLES, RandomStream.fromSeed(10 + x));
      assertFits(counts, exact, "SanText eps=0.01 x=" + x);
      int distinct = 0;
      for (long c : counts) {
        distinct += c > 0 ? 1 : 0;
      }
      // Each word has expected count ≥ 45: P(some word never appears) < 2000·e^-45.
      assertEquals(e.size(), distinct, "SanText eps=0.01 x=" + x + ": words never drawn");

      SanTextPlus sp = new SanTextPlus(e, Fixtures.gloveNeighbours(start, 16), 0.01, 0.5, 1.0);
      long[] plus = histogram(sp, e.size(), x, SAMPLES, RandomStream.fromSeed(20 + x));
      assertFits(plus, exponential(e, x, 0.01, start), "SanText+ eps=0.01 w=0.5 p=1 x=" + x);
    }
  }

  private static int argmax(double[] p) {
    int best = 0;
    for (int i = 1; i < p.length; i++) {
      if (p[i] > p[best]) {
        best = i;
      }
    }
    return best;
  }
}
