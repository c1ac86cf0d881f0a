package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertBinomial;
import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.histogram;
import static dev.dptext.mechanism.SamplerStatistics.log;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.Arrays;
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
 * 1-Diffractor ({@link Diffractor}): its lists against an independent brute-force greedy chain, its
 * sampler against the exact distribution computed here by brute force (χ² at level
 * {@link SamplerStatistics#ALPHA} per check, fixed seeds), and its guarantee checked numerically for every
 * pair of inputs and every output on a 300-word vocabulary.
 *
 * <p>The reference distribution is computed from the definition, not from the sampler's closed forms:
 * geometric — P(Z = k) = (1−a)/(1+a)·a^|k| summed over every k (to |k| where a^|k| &lt; 1e-30) and
 * clamped; TEM — exp(−ε/2·min(|j−p|, r)) for every position j, normalised by summation; L lists — the
 * average over the lists, mapped through each list. The cases cover every branch of the sampler: the list
 * draw (L = 3) and its absence (L = 1); geometric zero / up / down and both clamped ends (inputs at the
 * first and last list positions, small ε); TEM centre / left / right / outside, windows cut by either end,
 * and r ≥ |V| (no outside).
 */
class DiffractorDistributionTest {
  static final int SAMPLES = 100_000;
  static final double[] EPSILONS = {0.05, 0.5, 2, 8};

  private static Embeddings emb;
  private static DpTextModel model;
  private static final Map<String, Diffractor> MECHANISMS = new HashMap<>();

  @BeforeAll
  static void load() {
    emb = Fixtures.gloveTop2000();
    model = DpTextModel.of(emb, "fixture", 16);
  }

  static synchronized Diffractor mechanism(String noise, double eps, int radius, int lists) {
    return MECHANISMS.computeIfAbsent(noise + "/" + eps + "/" + radius + "/" + lists, k -> (Diffractor)
        Diffractor.DEFINITION.build(spec(noise, eps, radius, lists), model));
  }

  static MechanismSpec spec(String noise, double eps, int radius, int lists) {
    return MechanismSpec.of("1-diffractor", Map.of("epsilon", eps, "listNoise", noise, "listRadius", radius,
        "lists", lists));
  }

  // ------------------------------------------------------------------------------ references

  /** P(J = j | p) over 0..n−1, from the noise's definition. */
  static double[] positionReference(String noise, double eps, int radius, int n, int p) {
    double[] q = new double[n];
    if (noise.equals("geometric")) {
      double a = Math.exp(-eps);
      int reach = (int) Math.ceil(30 * Math.log(10) / eps) + 1;
      for (long k = -(long) p - reach; k <= (long) n - 1 - p + reach; k++) {
        double pk = (1 - a) / (1 + a) * Math.pow(a, Math.abs(k));
        long j = Math.max(0, Math.min(n - 1, p + k));
        q[(int) j] += pk;
      }
    } else {
      double z = 0;
      for (int j = 0; j < n; j++) {
        q[j] = Math.exp(-eps / 2 * Math.min(Math.abs(j - p), radius));
        z += q[j];
      }
      for (int j = 0; j < n; j++) {
        q[j] /= z;
      }
    }
    return q;
  }

  /** P(y | x) over ranks: the uniform mixture of the lists' position distributions. */
  static double[] reference(int[][] lists, String noise, double eps, int radius, int x) {
    int n = lists[0].length;
    double[] f = new double[n];
    for (int[] list : lists) {
      int p = indexOf(list, x);
      double[] q = positionReference(noise, eps, radius, n, p);
      for (int j = 0; j < n; j++) {
        f[list[j]] += q[j] / lists.length;
      }
    }
    return f;
  }

  static int indexOf(int[] list, int x) {
    for (int i = 0; i < list.length; i++) {
      if (list[i] == x) {
        return i;
      }
    }
    throw new AssertionError(x + " is not on the list");
  }

  // --------------------------------------------------------------------------------- lists

  /**
   * The chain rebuilt by brute force: every step sorts all words by (Euclidean distance, rank), keeps the
   * current word's 16 nearest (a uniform row of 16, as {@link NeighbourSearch#compute} with k = 16
   * gives) and takes the first not yet listed, else the lowest unlisted rank; list ℓ starts at the word of
   * ℓ-th largest norm.
   */
  @Test
  void listsAreTheGreedyChainRebuiltByBruteForce() {
    int n = 400;
    Embeddings e = emb.topWords(n);
    int[][] lists = Diffractor.buildLists(e, NeighbourSearch.compute(e, 0, 16), 3);
    Integer[] byNorm = new Integer[n];
    double[] norm = new double[n];
    for (int i = 0; i < n; i++) {
      byNorm[i] = i;
      double s = 0;
      for (int a = 0; a < e.dim(); a++) {
        double c = e.rawVectors()[i * e.dim() + a];
        s += c * c;
      }
      norm[i] = s;
    }
    Arrays.sort(byNorm, (a, b) -> norm[a] != norm[b] ? Double.compare(norm[b], norm[a]) : Integer.compare(a, b));
    int jumps = 0;
    for (int l = 0; l < 3; l++) {
      boolean[] seen = new boolean[n];
      int current = byNorm[l];
      for (int step = 0; step < n; step++) {
        assertEquals(current, lists[l][step], "list " + l + " step " + step);
        seen[current] = true;
        final int c = current;
        Integer[] all = new Integer[n];
        for (int i = 0; i < n; i++) {
          all[i] = i;
        }
        Arrays.sort(all, (a, b) -> {
          int cmp = Double.compare(e.distance(c, a), e.distance(c, b));
          return cmp != 0 ? cmp : Integer.compare(a, b);
        });
        int next = -1;
        for (int j = 0; j < 16 && next < 0; j++) {
          if (!seen[all[j]]) {
            next = all[j];
          }
        }
        if (next < 0 && step < n - 1) {
          jumps++;
          for (int i = 0; i < n && next < 0; i++) {
            if (!seen[i]) {
              next = i;
            }
          }
        }
        current = next;
      }
    }
    log(String.format(Locale.ROOT, "1-diffractor lists on %d words, K=16: %d jumps in 3 lists", n, jumps));
  }

  @Test
  void listsArePermutationsAndDeterministic() {
    Diffractor a = mechanism("geometric", 1, 5, 3);
    Diffractor b = (Diffractor) Diffractor.DEFINITION.build(spec("geometric", 1, 5, 3), DpTextModel.of(emb, "again", 16));
    for (int l = 0; l < 3; l++) {
      int[] sorted = a.lists()[l].clone();
      Arrays.sort(sorted);
      for (int i = 0; i < sorted.length; i++) {
        assertEquals(i, sorted[i], "list " + l + " is not a permutation");
      }
      assertArrayEquals(a.lists()[l], b.lists()[l], "list " + l + " differs between two builds");
    }
    assertTrue(!Arrays.equals(a.lists()[0], a.lists()[1]), "lists 0 and 1 are identical");
  }

  // -------------------------------------------------------------------------- distribution

  /** Inputs: "the" (most frequent), a rare word, and the words at the first, second, last positions of list 0. */
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    String[][] kinds = {{"geometric", "5"}, {"tem", "5"}, {"tem", "60"}, {"tem", "5000"}};
    for (String[] kind : kinds) {
      for (double eps : EPSILONS) {
        for (int lists : new int[] {1, 3}) {
          for (String input : new String[] {"the", "rare", "first", "second", "last"}) {
            out.add(Arguments.of(kind[0], eps, Integer.parseInt(kind[1]), lists, input));
          }
        }
      }
    }
    return out.stream();
  }

  static int input(Diffractor m, String which) {
    int[] list0 = m.lists()[0];
    return switch (which) {
      case "the" -> emb.indexOf("the");
      case "rare" -> 1900;
      case "first" -> list0[0];
      case "second" -> list0[1];
      case "last" -> list0[list0.length - 1];
      default -> throw new IllegalArgumentException(which);
    };
  }

  @ParameterizedTest(name = "{0} eps={1} r={2} L={3} x={4}")
  @MethodSource("cases")
  void matchesExactDistribution(String noise, double eps, int radius, int lists, String which) {
    Diffractor m = mechanism(noise, eps, radius, lists);
    int x = input(m, which);
    String what = String.format(Locale.ROOT, "1-diffractor %s eps=%s r=%d L=%d x=%d '%s'", noise, eps, radius,
        lists, x, emb.word(x));
    double[] p = reference(m.lists(), noise, eps, radius, x);
    double[] closed = m.conditional(x);
    for (int y = 0; y < p.length; y++) {
      assertEquals(p[y], closed[y], 1e-12 + 1e-9 * p[y], what + " conditional(" + y + ")");
    }
    long seed = 0xD1FF4AC7L ^ (31L * noise.hashCode() + 1_000_003L * radius + 7919L * Double.doubleToLongBits(eps)
        + 104_729L * lists + x);
    long[] counts = histogram(m, emb.size(), x, SAMPLES, RandomStream.fromSeed(seed));
    assertFits(counts, p, what);
    assertBinomial(counts[x], SAMPLES, p[x], what + " P(output = x)");
    int end = m.lists()[0][emb.size() - 1];
    if (end != x) {
      assertBinomial(counts[end], SAMPLES, p[end], what + " P(output = last word of list 0)");
    }
  }

  /** Each sampler branch carries probability in some case above (checked on the reference). */
  @Test
  void everyBranchIsExercised() {
    int n = emb.size();
    // geometric: clamped ends with real mass from the first/last positions at ε = 0.05.
    double[] first = positionReference("geometric", 0.05, 5, n, 0);
    assertTrue(first[0] > 0.5 && first[1] > 0.01, "geometric at position 0: clamp and up branch");
    double[] last = positionReference("geometric", 0.05, 5, n, n - 1);
    assertTrue(last[n - 1] > 0.5 && last[n - 2] > 0.01, "geometric at the last position: clamp and down branch");
    // tem r = 5 at position 1: left window of 1, right of 5, outside of n − 7.
    double[] tem = positionReference("tem", 0.5, 5, n, 1);
    double right = 0;
    for (int j = 2; j <= 6; j++) {
      right += tem[j];
    }
    double outside = 1 - tem[0] - tem[1] - right;
    assertTrue(tem[0] > 1e-3 && right > 1e-3 && outside > 0.5, "tem left/right/outside masses");
    // r = 5000 ≥ n: no outside at all, windows cut by the ends.
    assertEquals(1.0, Arrays.stream(positionReference("tem", 0.05, 5000, n, 0)).sum(), 1e-12);
  }

  // ---------------------------------------------------------------------------- guarantee

  /**
   * For every x, x', y of a 300-word vocabulary: P(y|x) ≤ exp(ε·d(x,x'))·P(y|x') with d the definition's
   * metric, the probabilities from the brute-force reference. Also logs how tight the bound is (the
   * largest ln(P(y|x)/P(y|x'))/d(x,x')) and what d means for embedding neighbours.
   */
  @ParameterizedTest(name = "{0} eps={1} r={2} L={3}")
  @MethodSource("guaranteeCases")
  void guaranteeHoldsForEveryPair(String noise, double eps, int radius, int lists) {
    int n = 300;
    Embeddings small = emb.topWords(n);
    DpTextModel smallModel = DpTextModel.of(small, "top300", 16);
    MechanismSpec spec = spec(noise, eps, radius, lists);
    Diffractor m = (Diffractor) Diffractor.DEFINITION.build(spec, smallModel);
    WordMetric d = Diffractor.DEFINITION.metric(spec, smallModel);
    double[][] f = new double[n][];
    for (int x = 0; x < n; x++) {
      f[x] = reference(m.lists(), noise, eps, radius, x);
    }
    double tightest = 0;
    for (int x = 0; x < n; x++) {
      for (int x2 = 0; x2 < n; x2++) {
        if (x == x2) {
          continue;
        }
        double bound = Math.exp(eps * d.distance(x, x2));
        for (int y = 0; y < n; y++) {
          assertTrue(f[x][y] > 0, "P(" + y + "|" + x + ") underflowed to 0");
          if (f[x][y] > bound * f[x2][y] * (1 + 1e-9)) {
            throw new AssertionError(String.format(Locale.ROOT,
                "guarantee fails: P(%d|%d)=%.6g > exp(%s·%s)·P(%d|%d)=%.6g", y, x, f[x][y], eps,
                d.distance(x, x2), y, x2, bound * f[x2][y]));
          }
          tightest = Math.max(tightest, Math.log(f[x][y] / f[x2][y]) / (eps * d.distance(x, x2)));
        }
      }
    }
    // What d_list means in the embedding: the list distance from each word to its embedding-nearest word.
    double[] toNearest = new double[n];
    for (int x = 0; x < n; x++) {
      int best = -1;
      for (int y = 0; y < n; y++) {
        if (y != x && (best < 0 || small.distance(x, y) < small.distance(x, best))) {
          best = y;
        }
      }
      toNearest[x] = d.distance(x, best);
    }
    Arrays.sort(toNearest);
    log(String.format(Locale.ROOT, "1-diffractor guarantee %s eps=%s r=%d L=%d on %d words: holds; max ln-ratio/"
        + "(eps·d) = %.4f; d_list to the embedding-nearest word: median %.0f, 90%% %.0f, max %.0f", noise, eps,
        radius, lists, n, tightest, toNearest[n / 2], toNearest[n * 9 / 10], toNearest[n - 1]));
    assertTrue(tightest <= 1 + 1e-9);
  }

  static Stream<Arguments> guaranteeCases() {
    return Stream.of(
        Arguments.of("geometric", 0.1, 5, 1), Arguments.of("geometric", 1.0, 5, 1),
        Arguments.of("geometric", 0.3, 5, 3), Arguments.of("tem", 0.5, 5, 1), Arguments.of("tem", 2.0, 40, 3));
  }

  // ------------------------------------------------------------------- seeds and parameters

  @Test
  void seededStreamReproducesOutputs() {
    for (String noise : new String[] {"geometric", "tem"}) {
      Diffractor m = mechanism(noise, 0.5, 5, 3);
      int[] a = new int[5000];
      int[] b = new int[5000];
      RandomStream ra = RandomStream.fromSeed(42);
      RandomStream rb = RandomStream.fromSeed(42);
      for (int i = 0; i < a.length; i++) {
        a[i] = m.sanitize(i % emb.size(), ra);
      }
      Diffractor again = (Diffractor) Diffractor.DEFINITION.build(spec(noise, 0.5, 5, 3), DpTextModel.of(emb, "b", 16));
      for (int i = 0; i < b.length; i++) {
        b[i] = again.sanitize(i % emb.size(), rb);
      }
      assertArrayEquals(a, b, noise + ": the same seed must give the same outputs");
    }
  }

  @Test
  void badParametersFailNamingTheValue() {
    assertMessage("-1.5", () -> MechanismSpec.of("1-diffractor", Map.of("epsilon", -1.5)));
    assertMessage("-3", () -> MechanismSpec.of("1-diffractor", Map.of("listRadius", -3)));
    assertMessage("65", () -> MechanismSpec.of("1-diffractor", Map.of("lists", 65)));
    assertMessage("gaussian", () -> MechanismSpec.of("1-diffractor", Map.of("listNoise", "gaussian")));
    DpTextModel tiny = DpTextModel.of(emb.topWords(10), "tiny", 4);
    // More lists than words: a usage error from the validation that sees the model, before any build.
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.of("diffractor", Map.of("lists", 11)).build(tiny)), "MECHANISM_PARAMETER_EXCEEDS_MODEL",
        Map.of("mechanism", "1-diffractor", "parameter", "lists", "value", 11, "what", "vocabulary size", "limit", 10));
  }

  private static void assertMessage(String value, org.junit.jupiter.api.function.Executable run) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, run);
    assertTrue(e.getMessage().contains(value), "message should name " + value + ": " + e.getMessage());
  }

  @Test
  void definitionNamesAndGuarantee() {
    assertEquals("1-diffractor", Mechanisms.get("Diffractor").name());
    assertTrue(Diffractor.DEFINITION.guarantee().contains("d_list"));
    MechanismSpec tem = spec("tem", 2.0, 7, 1);
    String text = Diffractor.DEFINITION.guarantee(MechanismDefinition.Rendering.of(tem));
    assertTrue(text.contains("min(d_list, 7)"), text);
    WordMetric metric = Diffractor.DEFINITION.metric(tem, model);
    assertEquals(7.0, metric.maximumUpperBound());
  }
}
