package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.chiSquare;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static dev.dptext.mechanism.SamplerStatistics.histogramFrom;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.evaluation.PrivacyRatio;
import dev.dptext.knn.RowLengths;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
 * CusText against its exact distribution, computed independently here by brute force: the groups by a
 * plain greedy over all distances (no neighbour table), then P(y|x) = exp(ε·u/2)/Σ exp(ε·u/2) over x's
 * group with u = 1 − d(x,y)/max_z d(x,z).
 *
 * <p>Each case draws {@value #SAMPLES} outputs at a fixed seed and applies, at level α = 1e-5 each
 * ({@link SamplerStatistics}), Pearson's chi-square over all words and an exact binomial test of
 * P(output = x). Branches covered: groups decided by the neighbour row and by the exact scan
 * ({@link #bothGroupBranchesAreExercised}), the last group (&lt; 2K words left), the binary search over a
 * row, the D(x) = 0 row (coinciding vectors), and CusText+'s verbatim branch. The guarantee is checked
 * numerically over all pairs of a 300-word vocabulary.
 */
class CusTextDistributionTest {
  static final int SAMPLES = 100_000;
  static final int[] KS = {5, 20};
  static final double[] EPSILONS = {0.5, 3, 10, 50};

  private static Embeddings emb;
  private static final Map<String, CusText> SAMPLERS = new HashMap<>();
  private static final Map<Integer, int[][]> REFERENCE_GROUPS = new HashMap<>();

  @BeforeAll
  static void load() {
    emb = Fixtures.gloveTop2000();
  }

  /** Inputs: the most frequent word, punctuation, a mid-rank word, a rare word, the last word (last group). */
  static int[] inputs() {
    Embeddings e = Fixtures.gloveTop2000();
    return new int[] {e.indexOf("the"), e.indexOf(","), 1000, 1900, 1999};
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

  /** The mechanism as the product builds it: groups from the model's (tiered, K = 64) neighbour rows. */
  static synchronized CusText cusText(Embeddings e, DpTextModel model, int k, double eps) {
    return SAMPLERS.computeIfAbsent(System.identityHashCode(model) + "/" + k + "/" + eps,
        key -> (CusText) MechanismSpec.of("custext", Map.of("epsilon", eps, "groupSize", k)).build(model));
  }

  private static DpTextModel fixtureModel;

  static synchronized DpTextModel fixtureModel() {
    if (fixtureModel == null) {
      fixtureModel = DpTextModel.of(Fixtures.gloveTop2000(), "fixture", 64);
    }
    return fixtureModel;
  }

  // ------------------------------------------------------------------ the independent reference

  /**
   * The paper's greedy, by brute force: in rank order, a free word x leads a group with the K − 1 free
   * words of smallest (d(x,y), rank); when fewer than 2K words are left, they all form the last group.
   */
  static int[][] referenceGroups(Embeddings e, int k) {
    int n = e.size();
    boolean[] taken = new boolean[n];
    List<int[]> groups = new ArrayList<>();
    int left = n;
    for (int x = 0; x < n; x++) {
      if (taken[x]) {
        continue;
      }
      List<Integer> g = new ArrayList<>();
      if (left < 2 * k) {
        for (int y = x; y < n; y++) {
          if (!taken[y]) {
            g.add(y);
          }
        }
      } else {
        List<Integer> free = new ArrayList<>();
        for (int y = 0; y < n; y++) {
          if (!taken[y] && y != x) {
            free.add(y);
          }
        }
        double[] d = new double[n];
        for (int y : free) {
          d[y] = Math.sqrt(sq(e, x, y));
        }
        free.sort(Comparator.<Integer>comparingDouble(y -> d[y]).thenComparingInt(y -> y));
        g.add(x);
        g.addAll(free.subList(0, k - 1));
      }
      for (int y : g) {
        taken[y] = true;
      }
      left -= g.size();
      groups.add(g.stream().mapToInt(Integer::intValue).toArray());
    }
    return groups.toArray(new int[0][]);
  }

  /** Squared Euclidean distance, in plain double arithmetic (independent of Embeddings.distance's order). */
  static double sq(Embeddings e, int x, int y) {
    float[] v = e.rawVectors();
    int m = e.dim();
    double s = 0;
    for (int a = 0; a < m; a++) {
      double t = (double) v[x * m + a] - v[y * m + a];
      s += t * t;
    }
    return s;
  }

  static synchronized int[][] referenceGroupsOfFixture(int k) {
    return REFERENCE_GROUPS.computeIfAbsent(k, kk -> referenceGroups(Fixtures.gloveTop2000(), kk));
  }

  static int[] groupOf(int[][] groups, int n) {
    int[] of = new int[n];
    for (int g = 0; g < groups.length; g++) {
      for (int y : groups[g]) {
        of[y] = g;
      }
    }
    return of;
  }

  /** P(·|x) of CusText over the vocabulary, from the reference groups. */
  static double[] exact(Embeddings e, int[] group, int x, double eps) {
    double[] d = new double[group.length];
    double max = 0;
    for (int i = 0; i < group.length; i++) {
      d[i] = Math.sqrt(sq(e, x, group[i]));
      max = Math.max(max, d[i]);
    }
    double[] p = new double[e.size()];
    double total = 0;
    for (int i = 0; i < group.length; i++) {
      double u = max > 0 ? 1 - d[i] / max : 1;
      p[group[i]] = Math.exp(eps * u / 2); // ≤ e^{ε/2}: finite for the ε of these tests
      total += p[group[i]];
    }
    for (int y : group) {
      p[y] /= total;
    }
    return p;
  }

  // ------------------------------------------------------------------------------------ groups

  @Test
  void groupsMatchTheBruteForceGreedy() {
    for (int k : KS) {
      int[][] ref = referenceGroupsOfFixture(k);
      for (RowLengths rows : List.of(RowLengths.tiered(64), RowLengths.uniform(64), RowLengths.uniform(4))) {
        DpTextModel model = DpTextModel.of(emb, "fixture", rows);
        CusText.Groups g = CusText.groups(model, k);
        assertEquals(ref.length, g.count(), "K=" + k + " " + rows);
        for (int i = 0; i < ref.length; i++) {
          int[] got = Arrays.copyOfRange(g.members, g.start[i], g.start[i + 1]);
          assertArrayEquals(ref[i], got, "K=" + k + " " + rows + " group " + i);
        }
        SamplerStatistics.log(String.format(Locale.ROOT, "groups K=%d rows=%s: %d groups, %d exact scans, last "
            + "group %d words", k, rows, g.count(), g.scans, g.size(g.count() - 1)));
      }
      int[] last = ref[ref.length - 1];
      assertTrue(last.length >= k && last.length < 2 * k, "last group of " + last.length + " words for K=" + k);
      for (int[] group : Arrays.copyOf(ref, ref.length - 1)) {
        assertEquals(k, group.length);
      }
    }
  }

  /** The row branch and the exact-scan branch of the group construction both carry groups. */
  @Test
  void bothGroupBranchesAreExercised() {
    // (The fixture's tiered rows hold 512 to 2,000 words: they decide every group at K = 20.)
    CusText.Groups rows64 = CusText.groups(DpTextModel.of(emb, "fixture", RowLengths.uniform(64)), 20);
    assertTrue(rows64.scans > 0 && rows64.scans < rows64.count() - 1,
        "with 64-word rows some leaders but not all need the exact scan: " + rows64.scans + " of " + rows64.count());
    CusText.Groups shortRows = CusText.groups(DpTextModel.of(emb, "fixture", RowLengths.uniform(4)), 20);
    assertEquals(shortRows.count() - 1, shortRows.scans, "4-word rows can never give 19 picks");
  }

  @Test
  void groupsAreDeterministic() {
    CusText.Groups a = CusText.Groups.build(emb, Fixtures.gloveNeighbours(0, 16), 20);
    CusText.Groups b = CusText.Groups.build(emb, Fixtures.gloveNeighbours(0, 16), 20);
    assertArrayEquals(a.members, b.members);
    assertArrayEquals(a.start, b.start);
  }

  // ------------------------------------------------------------------------------ distribution

  @ParameterizedTest(name = "K={0} eps={1} x={2}")
  @MethodSource("cases")
  void matchesExactDistribution(int k, double eps, int x) {
    CusText mechanism = cusText(emb, fixtureModel(), k, eps);
    int[][] groups = referenceGroupsOfFixture(k);
    int[] group = groups[groupOf(groups, emb.size())[x]];
    double[] p = exact(emb, group, x, eps);
    String what = String.format(Locale.ROOT, "CusText K=%d eps=%s x=%d '%s' (group of %d)", k, eps, x, emb.word(x),
        group.length);
    long seed = 0xC057E47L ^ (1_000_003L * k + 7919L * Double.doubleToLongBits(eps) + x);
    long[] counts = histogram(mechanism, emb.size(), x, SAMPLES, RandomStream.fromSeed(seed));
    assertFits(counts, p, what);
    assertBinomial(counts[x], SAMPLES, p[x], what + " P(output = x)");

    double[] f = mechanism.conditional(x);
    for (int y = 0; y < p.length; y++) {
      assertEquals(p[y], f[y], 1e-12, what + " conditional(" + y + ")");
    }
  }

  /** The chi-square has power here: ε off by 20%, or a uniform draw over the group, is rejected. */
  @Test
  void goodnessOfFitDetectsWrongDistributions() {
    int[][] groups = referenceGroupsOfFixture(20);
    int x = 1000;
    int[] group = groups[groupOf(groups, emb.size())[x]];
    double[] exact = exact(emb, group, x, 3);
    assertFalse(chiSquare(histogramFrom(exact, SAMPLES, RandomStream.fromSeed(1)), exact).rejects());
    SamplerStatistics.Fit wrongEps = chiSquare(histogramFrom(exact(emb, group, x, 3.6), SAMPLES,
        RandomStream.fromSeed(2)), exact);
    assertTrue(wrongEps.rejects(), "ε 20% off went unnoticed: " + wrongEps);
    SamplerStatistics.Fit uniform = chiSquare(histogramFrom(exact(emb, group, x, 0), SAMPLES,
        RandomStream.fromSeed(3)), exact);
    assertTrue(uniform.rejects(), "a uniform draw went unnoticed: " + uniform);
  }

  /** A group whose vectors coincide (D(x) = 0): the uniform distribution over the group. */
  @Test
  void coincidingVectorsGiveTheUniformDistribution() {
    int n = 6;
    int dim = 4;
    float[] v = new float[n * dim];
    for (int i = 3; i < n; i++) {
      v[i * dim] = 10 + i; // words 0..2 share the zero vector; 3..5 lie apart on a line
    }
    String[] words = {"a", "b", "c", "d", "e", "f"};
    Embeddings tiny = new Embeddings(words, v, dim);
    DpTextModel model = DpTextModel.of(tiny, "tiny", RowLengths.uniform(2));
    CusText m = (CusText) MechanismSpec.of("custext", Map.of("epsilon", 5.0, "groupSize", 3)).build(model);
    assertEquals(2, m.groups().count());
    assertArrayEquals(new int[] {0, 1, 2}, Arrays.copyOfRange(m.groups().members, 0, 3));
    double[] uniform = {1 / 3.0, 1 / 3.0, 1 / 3.0, 0, 0, 0};
    assertArrayEquals(uniform, m.conditional(1), 1e-15);
    assertFits(histogram(m, n, 1, 30_000, RandomStream.fromSeed(4)), uniform, "coinciding vectors");
    // The other group is not degenerate: x itself is the most likely output.
    double[] f = m.conditional(4);
    assertTrue(f[4] > f[3] && f[4] > f[5], Arrays.toString(f));
  }

  /** CusText+: listed words are emitted verbatim (no random draw); the others follow CusText exactly. */
  @Test
  void cusTextPlusKeepsListedWordsAndSanitizesTheRest() {
    DpTextModel model = fixtureModel();
    MechanismSpec spec = MechanismSpec.parse("custext+:epsilon=3,groupSize=20,verbatim=the;of; and ;nosuchword");
    CusText plus = (CusText) spec.build(model);
    assertEquals("custext+", plus.name());
    RandomStream r = RandomStream.fromSeed(5);
    long[] before = r.state();
    for (String w : new String[] {"the", "of", "and"}) {
      assertEquals(emb.indexOf(w), plus.sanitize(emb.indexOf(w), r));
    }
    assertArrayEquals(before, r.state(), "a verbatim word draws no randomness");
    int x = 1000;
    int[][] groups = referenceGroupsOfFixture(20);
    double[] p = exact(emb, groups[groupOf(groups, emb.size())[x]], x, 3);
    assertFits(histogram(plus, emb.size(), x, SAMPLES, RandomStream.fromSeed(6)), p, "custext+ x=1000");
    assertTrue(spec.guarantee().contains("the 4 words listed in verbatim"), spec.guarantee());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MechanismSpec.of("custext+"));
    ErrorAssertions.assertError(e, "MECHANISM_PARAMETER_REQUIRED");
    assertEquals("verbatim", ((dev.dptext.errors.DpTextException) e).parameters().get("parameter"));
  }

  // ------------------------------------------------------------------ reproducibility and checks

  @Test
  void seededStreamReproducesOutputs() {
    CusText m = cusText(emb, fixtureModel(), 20, 3);
    int[] words = new int[5000];
    for (int i = 0; i < words.length; i++) {
      words[i] = (i * 7919) % emb.size();
    }
    int[] a = new int[words.length];
    int[] b = new int[words.length];
    int[] c = new int[words.length];
    m.sanitize(words, words.length, RandomStream.fromSeed(42), a);
    m.sanitize(words, words.length, RandomStream.fromSeed(42), b);
    m.sanitize(words, words.length, RandomStream.fromSeed(43), c);
    assertArrayEquals(a, b);
    assertFalse(Arrays.equals(a, c));
    // A freshly built mechanism (groups rebuilt from a new model) gives the same outputs.
    CusText fresh = (CusText) MechanismSpec.of("custext", Map.of("epsilon", 3.0, "groupSize", 20))
        .build(DpTextModel.of(Fixtures.gloveTop2000(), "fixture", 64));
    int[] d = new int[words.length];
    fresh.sanitize(words, words.length, RandomStream.fromSeed(42), d);
    assertArrayEquals(a, d);
  }

  @Test
  void badParametersFailNamingTheValue() {
    for (Object k : new Object[] {1, 0, -3}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MechanismSpec.of("custext", Map.of("groupSize", k)));
      assertTrue(e.getMessage().contains("groupSize") && e.getMessage().contains("got " + k), e.getMessage());
    }
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("custext", Map.of("groupSize", 2001)).build(fixtureModel()));
    // A K the model cannot serve: a usage error from the validation that sees the model, before any build.
    ErrorAssertions.assertError(big, "MECHANISM_PARAMETER_EXCEEDS_MODEL", Map.of("mechanism", "custext",
        "parameter", "groupSize", "value", 2001, "what", "vocabulary size", "limit", 2000));
    for (double eps : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MechanismSpec.of("custext", Map.of("epsilon", eps)));
      assertTrue(e.getMessage().contains("epsilon") && e.getMessage().contains(String.valueOf(eps)), e.getMessage());
    }
    IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("custext+", Map.of("verbatim", " ")));
    assertTrue(blank.getMessage().contains("verbatim"), blank.getMessage());
  }

  // ------------------------------------------------------------------------------- the guarantee

  /**
   * Over all x, x', y of the first 300 fixture words: P(y|x) ≤ exp(ε·d(x,x'))·P(y|x') with the metric the
   * guarantee names (1 within a group, +∞ across, +∞ to a verbatim word), for CusText and CusText+, from
   * the brute-force probabilities, which must also equal the sampler's own tables. Logs the largest
   * within-group privacy loss (≤ ε by the proof, a little below it in practice) and how many pairs the
   * metric leaves unprotected.
   */
  @Test
  void guaranteeHoldsForAllPairs() {
    Embeddings small = emb.topWords(300);
    int n = small.size();
    for (int k : new int[] {7, 20}) {
      int[][] groups = referenceGroups(small, k);
      int[] of = groupOf(groups, n);
      DpTextModel model = DpTextModel.of(small, "top300", 16);
      for (double eps : new double[] {0.1, 1, 5, 20}) {
        for (String verbatim : new String[] {null, "the;,;.;of"}) {
          MechanismSpec spec = verbatim == null
              ? MechanismSpec.of("custext", Map.of("epsilon", eps, "groupSize", k))
              : MechanismSpec.of("custext+", Map.of("epsilon", eps, "groupSize", k, "verbatim", verbatim));
          CusText m = (CusText) spec.build(model);
          WordMetric d = spec.metric(model);
          int[] kept = verbatim == null ? new int[0] : CusText.verbatimRanks(small, verbatim);
          double[][] p = new double[n][];
          for (int x = 0; x < n; x++) {
            if (Arrays.binarySearch(kept, x) >= 0) {
              p[x] = new double[n];
              p[x][x] = 1;
            } else {
              p[x] = exact(small, groups[of[x]], x, eps);
            }
            double[] f = m.conditional(x);
            for (int y = 0; y < n; y++) {
              assertEquals(p[x][y], f[y], 1e-12, spec + " P(" + y + "|" + x + ")");
            }
          }
          double worstLoss = 0;
          long unprotected = 0;
          for (int x = 0; x < n; x++) {
            for (int x2 = 0; x2 < n; x2++) {
              double dist = d.distance(x, x2);
              boolean sameGroup = of[x] == of[x2];
              boolean keptPair = Arrays.binarySearch(kept, x) >= 0 || Arrays.binarySearch(kept, x2) >= 0;
              assertEquals(x == x2 ? 0 : sameGroup && !keptPair ? 1 : Double.POSITIVE_INFINITY, dist);
              if (dist == Double.POSITIVE_INFINITY) {
                unprotected++;
                continue;
              }
              double bound = Math.exp(eps * dist) * (1 + 1e-12);
              for (int y = 0; y < n; y++) {
                if (p[x][y] > bound * p[x2][y]) {
                  throw new AssertionError(String.format(Locale.ROOT, "%s: P(%d|%d)=%.6g > exp(%s·%s)·P(%d|%d)=%.6g",
                      spec, y, x, p[x][y], eps, dist, y, x2, bound * p[x2][y]));
                }
                if (p[x][y] > 0 && x != x2) {
                  worstLoss = Math.max(worstLoss, Math.log(p[x][y] / p[x2][y]));
                }
              }
            }
          }
          assertTrue(worstLoss <= eps * (1 + 1e-9));
          SamplerStatistics.log(String.format(Locale.ROOT, "guarantee %s: %d words, %d groups; largest loss within a "
              + "group %.4f = %.3f·ε; ordered pairs at d=+∞ (unprotected): %d of %d", spec, n, groups.length,
              worstLoss, worstLoss / eps, unprotected, (long) n * (n - 1)));
          assertTrue(d.maximumUpperBound() == Double.POSITIVE_INFINITY);
        }
      }
    }
  }

  /** The evaluation code refuses to match ε by an infinite privacy ratio instead of returning ε = 0 or ∞. */
  @Test
  void privacyRatioRefusesAnInfiniteMetric() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrivacyRatio.matchingEpsilon(3, 5.0, Double.POSITIVE_INFINITY));
    ErrorAssertions.assertError(e, "PRIVACY_RATIO_UNDEFINED", Map.of("which", "B", "pd", Double.POSITIVE_INFINITY));
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> PrivacyRatio.matchingEpsilon(3, Double.POSITIVE_INFINITY, 5)), "PRIVACY_RATIO_UNDEFINED",
        Map.of("which", "A", "pd", Double.POSITIVE_INFINITY));
  }

  @Test
  void isRegisteredWithItsGuarantee() {
    assertTrue(Mechanisms.names().contains("custext") && Mechanisms.names().contains("custext+"));
    String g = CusText.DEFINITION.guarantee();
    assertTrue(g.contains("ε-DP") && g.contains("one group") && g.contains("+∞"), g);
    assertTrue(CusText.PLUS_DEFINITION.guarantee().contains("verbatim"), CusText.PLUS_DEFINITION.guarantee());
  }
}
