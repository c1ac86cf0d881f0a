package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.assertMean;
import static dev.dptext.mechanism.SamplerStatistics.distances;
import static dev.dptext.mechanism.SamplerStatistics.exponential;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.testing.Fixtures;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SanText+ against its exact definition on the 2,000-word fixture:
 *
 * <ul>
 *   <li>V_S = V_P = ranks [|V| − ⌊w·|V|⌋, |V|) (the least frequent words by file order);
 *   <li>x ∈ V_S: P(y|x) ∝ exp(−ε·d(x,y)/2) over V_P (SanText over V_P);
 *   <li>x ∉ V_S: x with probability 1 − p, else y ∈ V_P with P ∝ exp(−ε·d(x,y)/2) over V_P.
 * </ul>
 *
 * Statistical checks at α = 1e-5 each (see {@link SamplerStatistics} for the false-failure rate).
 * Non-sensitive inputs are where large ε is informative: x itself is not a candidate, so the
 * output is spread over the nearest words of V_P instead of collapsing onto x.
 */
class SanTextPlusDistributionTest {
  static final int SAMPLES = 100_000;
  static final double[] WS = {0.5, 0.9};
  static final double[] PS = {0.3, 0.7};
  static final double[] EPSILONS = {1, 3, 10, 30};

  private static Embeddings emb;

  @BeforeAll
  static void load() {
    emb = Fixtures.gloveTop2000();
  }

  /** ⌊w·n⌋ in exact decimal arithmetic on the decimal the user wrote (Double.toString(w)). */
  static int exactSensitiveCount(int n, double w) {
    return BigDecimal.valueOf(w).multiply(BigDecimal.valueOf(n)).setScale(0, RoundingMode.FLOOR).intValueExact();
  }

  /** Inputs for one w: the most frequent word, the last non-sensitive rank, the first sensitive, a rare one. */
  static int[] inputs(double w) {
    int n = Fixtures.gloveTop2000().size();
    int start = n - exactSensitiveCount(n, w);
    return new int[] {0, start - 1, start, 1900};
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (double w : WS) {
      for (double p : PS) {
        for (double eps : EPSILONS) {
          for (int x : inputs(w)) {
            out.add(Arguments.of(16, w, p, eps, x));
          }
        }
      }
    }
    // The default K, and K beyond |V_P| (the table holds the whole target set, bound = +∞).
    for (int k : new int[] {64, 2000}) {
      for (double eps : new double[] {3, 10}) {
        for (int x : inputs(0.5)) {
          out.add(Arguments.of(k, 0.5, 0.3, eps, x));
        }
      }
    }
    return out.stream();
  }

  static SanTextPlus santextPlus(int k, double w, double p, double eps) {
    int start = SanTextPlus.sensitiveStart(emb.size(), w);
    return new SanTextPlus(emb, Fixtures.gloveNeighbours(start, k), eps, w, p);
  }

  // ------------------------------------------------------------------------- (a) the sensitive set

  @ParameterizedTest(name = "w={0}")
  @CsvSource({"0.5", "0.9", "0.1", "0.25", "0.999", "1.0", "0.0005"})
  void sensitiveSetIsTheLeastFrequentFraction(double w) {
    int n = emb.size();
    int expectedStart = n - exactSensitiveCount(n, w);
    assertEquals(expectedStart, SanTextPlus.sensitiveStart(n, w), "sensitiveStart");
    assertEquals(expectedStart, MechanismSpec.of("santext+", java.util.Map.of("epsilon", 1, "w", w, "p", 0.3)).outputStart(n), "MechanismSpec.outputStart");
    SanTextPlus m = new SanTextPlus(emb, Fixtures.gloveNeighbours(expectedStart, 16), 1.0, w, 0.3);
    assertEquals(expectedStart, m.outputStart(), "outputStart");
    int sensitive = 0;
    for (int i = 0; i < n; i++) {
      assertEquals(i >= expectedStart, m.isSensitive(i), "isSensitive(" + i + ")");
      sensitive += m.isSensitive(i) ? 1 : 0;
    }
    assertEquals(exactSensitiveCount(n, w), sensitive, "|V_S| = floor(w·|V|)");
  }

  /**
   * |V_S| = ⌊w·|V|⌋ for the decimal w the user writes. Computing w·|V| in binary floating point
   * loses one word whenever the product is an integer that rounds just below itself, e.g.
   * 0.7·90 = 62.99999999999999 in double.
   */
  @ParameterizedTest(name = "w={0} |V|={1} -> |V_S|={2}")
  @CsvSource({"0.7, 90, 63", "0.57, 100, 57", "0.29, 100, 29", "0.35, 180, 63", "0.7, 1000, 700", "0.5, 2000, 1000"})
  void sensitiveSetSizeIsTheDecimalFloor(double w, int n, int expected) {
    assertEquals(expected, exactSensitiveCount(n, w), "test's own reference");
    assertEquals(n - expected, SanTextPlus.sensitiveStart(n, w),
        "sensitiveStart(" + n + ", " + w + ") should leave floor(" + w + "·" + n + ") = " + expected
            + " sensitive words; double arithmetic gives w·n = " + (w * n));
  }

  @Test
  void rejectsMismatchedTablesAndParameters() {
    NeighbourTable whole = Fixtures.gloveNeighbours(0, 16);
    assertThrows(IllegalStateException.class, () -> new SanTextPlus(emb, whole, 1, 0.5, 0.3)); // dptext's wiring
    NeighbourTable half = Fixtures.gloveNeighbours(1000, 16);
    assertThrows(IllegalArgumentException.class, () -> new SanTextPlus(emb, half, 1, 0.5, -0.1));
    assertThrows(IllegalArgumentException.class, () -> new SanTextPlus(emb, half, 1, 0.5, 1.1));
    assertThrows(IllegalArgumentException.class, () -> new SanTextPlus(emb, half, 1, 0.0, 0.3));
    assertThrows(IllegalArgumentException.class, () -> new SanTextPlus(emb, half, 1, 1.5, 0.3));
    assertThrows(IllegalArgumentException.class, () -> new SanTextPlus(emb, half, 0, 0.5, 0.3));
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> SanTextPlus.sensitiveStart(2000, 0.0001)), "MECHANISM_PARAMETER_SELECTS_NO_WORD",
        Map.of("mechanism", "santext+", "parameter", "w", "value", "0.0001", "size", 2000));
  }

  /** A w that selects no word of the model is a usage error from the validation that sees the model. */
  @Test
  void aFractionSelectingNoWordOfTheModelIsAUsageErrorBeforeTheBuild() {
    DpTextModel tiny = DpTextModel.of(emb.topWords(50), "tiny", 4);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("santext+", Map.of("w", 0.01)).build(tiny));
    ErrorAssertions.assertError(e, "MECHANISM_PARAMETER_SELECTS_NO_WORD",
        Map.of("mechanism", "santext+", "parameter", "w", "value", "0.01", "size", 50));
    assertEquals(dev.dptext.errors.Exit.USAGE, dev.dptext.errors.DpTextErrors.get(
        "MECHANISM_PARAMETER_SELECTS_NO_WORD").exit());
  }

  // ------------------------------------------------------------------ (b), (c), (d) distributions

  @ParameterizedTest(name = "K={0} w={1} p={2} eps={3} x={4}")
  @MethodSource("cases")
  void matchesExactDistribution(int k, double w, double p, double eps, int x) {
    SanTextPlus m = santextPlus(k, w, p, eps);
    int start = m.outputStart();
    String what = String.format(
        Locale.ROOT, "SanText+ K=%d w=%s p=%s eps=%s x=%d '%s' (%s)", k, w, p, eps, x, emb.word(x),
        m.isSensitive(x) ? "sensitive" : "non-sensitive");
    long seed = 0xC0FFEEL ^ (31L * k + 1_000_003L * Double.doubleToLongBits(w) + 7919L * Double.doubleToLongBits(p)
        + 104_729L * Double.doubleToLongBits(eps) + x);
    long[] counts = histogram(m, emb.size(), x, SAMPLES, RandomStream.fromSeed(seed));
    double[] overVp = exponential(emb, x, eps, start);

    // (d) support: V_P, plus x itself for a non-sensitive x.
    for (int y = 0; y < start; y++) {
      if (y != x || m.isSensitive(x)) {
        assertEquals(0, counts[y], what + ": output '" + emb.word(y) + "' (rank " + y + ") is outside V_P");
      }
    }

    if (m.isSensitive(x)) {
      // (c) SanText over V_P.
      assertFits(counts, overVp, what);
      assertMean(counts, overVp, distances(emb, x), what + " mean d(x, output)");
    } else {
      // (b) kept with probability 1 − p; otherwise the exponential mechanism over V_P.
      assertBinomial(counts[x], SAMPLES, 1 - p, what + " P(output = x)");
      long[] replaced = counts.clone();
      replaced[x] = 0;
      assertFits(replaced, overVp, what + " | replaced");
      assertMean(replaced, overVp, distances(emb, x), what + " | replaced, mean d(x, output)");
    }
  }

  /** p = 0 never replaces a non-sensitive word; p = 1 always does; sensitive words are always drawn. */
  @Test
  void extremeReplacementProbabilities() {
    int start = SanTextPlus.sensitiveStart(emb.size(), 0.5);
    SanTextPlus never = santextPlus(16, 0.5, 0.0, 3);
    SanTextPlus always = santextPlus(16, 0.5, 1.0, 3);
    RandomStream r = RandomStream.fromSeed(77);
    for (int i = 0; i < 20_000; i++) {
      int x = i % emb.size();
      int a = never.sanitize(x, r);
      int b = always.sanitize(x, r);
      if (x < start) {
        assertEquals(x, a, "p = 0 replaced a non-sensitive word");
        assertTrue(b >= start, "p = 1 kept non-sensitive word " + x + " (output " + b + ")");
      } else {
        assertTrue(a >= start && b >= start, "a sensitive word's output left V_P");
      }
    }
  }
}
