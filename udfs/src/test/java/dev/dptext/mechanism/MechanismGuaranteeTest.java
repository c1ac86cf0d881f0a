package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismDefinition.LossBound;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every registered mechanism keeps the promise its definition states, checked from the registry alone: for
 * each definition of {@link Mechanisms#ALL} (providers included), at its {@code example()} and at its
 * {@code evaluationDefault()} (its defaults, with a value for each required parameter), the privacy loss
 * ln P(y | x) − ln P(y | x') stays within {@link MechanismDefinition#lossBound} (ε·d(x, x') in the metric the
 * definition declares, unless the definition states its guarantee otherwise). A mechanism added through the
 * registry is checked here with no code of its own. Modelled on Google's differential-privacy library, whose
 * stochastic tester runs one black-box test per algorithm and a test of the tester.
 *
 * <p><b>The model.</b> {@value #WORDS} words placed uniformly at random in a 3 × 3 square of the plane (a fixed
 * seed). In two dimensions the embedding-noise mechanisms' bound is nearly tight (for a word beyond x seen from
 * x', the noise density ratio is close to e^{ε·d}); in a hundred the noise is nearly orthogonal to x − x', the
 * loss a small part of ε·d, and a test there could hardly tell ε from 2ε. The random placement gives pairs at every scale, so at each ε some pairs
 * sit where ε·d is about 1 and the bound has the most power.
 *
 * <p><b>Exact or drawn.</b> A sampler that states its distribution ({@link ExactConditional}) is checked on its
 * conditional over every pair (x, x') and every output y, in double precision (a relative tolerance of 1e-9 for
 * rounding): no false failures. The others are checked from draws, in two independent stages from fixed seeds:
 * <ol>
 *   <li><b>Selection</b>: {@value #PILOT} draws for every input word; each triple (x, x', y) is scored by the
 *       lower confidence bound of its loss that the next stage would reach at those frequencies, less the
 *       bound, and the {@value #TRIPLES} best are kept: near neighbours and outputs with enough mass, where
 *       a violation would show.
 *   <li><b>Confirmation</b>: {@value #CONFIRM} fresh draws for each input of those triples; for each triple the
 *       one-sided Clopper–Pearson lower bound of P(y | x) and upper bound of P(y | x'), each at level
 *       α / (2·{@value #TRIPLES}) (Bonferroni over the triples and the two sides). The check fails only when
 *       ln(lower / upper) exceeds the bound.
 * </ol>
 * Since the selection is independent of the confirming draws, a mechanism that keeps its guarantee fails a
 * drawn case with probability at most α = {@value #ALPHA} (the Clopper–Pearson bounds are exact, no normal
 * approximation); the class's false-failure rate is at most α times the number of drawn cases (two per
 * mechanism without an exact conditional; ten in 2026-12, 1e-5). The seeds are fixed, so a passing run keeps passing until a sampler's consumption of random
 * numbers changes. Cost: about 15 s on two cores (the drawn cases, 0.5–1 s each; the exact ones, 0.01 s).
 *
 * <p><b>The test of the tester.</b> For every case the same check runs on the sampler built at
 * {@value #FACTOR}·ε (less noise) against the guarantee of the original ε, and must fail: a check without
 * power cannot pass silently. (For TEM with γ from β, the sampler at 2ε also has its own, smaller γ.) How much
 * less noise each sampler is caught at is measured by {@link #smallestFactorDetected} (on request); the last
 * figures are in results/guarantee-test-power-2026-12-03.md.
 */
class MechanismGuaranteeTest {
  static final int WORDS = 64;
  /** Draws per input word in the selection stage. */
  static final int PILOT = 4_000;
  /** Triples confirmed per case. */
  static final int TRIPLES = 8;
  /** Draws per input word in the confirmation stage. */
  static final int CONFIRM = 40_000;
  /** The false-failure rate of one case checked from draws. */
  static final double ALPHA = 1e-6;
  /** The validity cases: the sampler at this multiple of ε. */
  static final double FACTOR = 2;
  /** Relative tolerance of the exact check, for rounding. */
  static final double TOLERANCE = 1e-9;

  static final DpTextModel MODEL = plane();

  /** {@value #WORDS} words uniform in [0, 3]², from a fixed seed. */
  static DpTextModel plane() {
    Random r = new Random(55);
    String[] names = new String[WORDS];
    float[] v = new float[2 * WORDS];
    for (int i = 0; i < WORDS; i++) {
      names[i] = "w" + i;
      v[2 * i] = (float) (3 * r.nextDouble());
      v[2 * i + 1] = (float) (3 * r.nextDouble());
    }
    return DpTextModel.of(new Embeddings(names, v, 2), "plane", WORDS - 1);
  }

  /** One spec of one registered mechanism. */
  record Case(String label, MechanismSpec spec) {
    @Override
    public String toString() {
      return label + " " + spec.toSpecString();
    }
  }

  /** The mechanisms this JVM checks: the whole registry (the toy mechanism's JVM: the provided ones only). */
  static List<MechanismDefinition> checked() {
    if (Boolean.getBoolean("dptext.test.providedMechanismsOnly")) {
      return Mechanisms.ALL.stream().filter(d -> !Mechanisms.BUILT_IN.contains(d)).toList();
    }
    return Mechanisms.ALL;
  }

  static Stream<Case> cases() {
    List<Case> out = new ArrayList<>();
    for (MechanismDefinition d : checked()) {
      out.add(new Case("example", MechanismSpec.parse(d.example())));
      MechanismSpec defaults = MechanismSpec.parse(d.evaluationDefault());
      if (!defaults.equals(MechanismSpec.parse(d.example()))) {
        out.add(new Case("default", defaults));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void keepsItsGuarantee(Case c) {
    Verdict v = check(c.spec(), c.spec(), seedOf(c));
    System.out.println("guarantee " + c + ": " + v);
    assertTrue(v.holds(), () -> c + " breaks its guarantee: " + v);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theCheckFailsTheSamplerAtTwiceEpsilon(Case c) {
    MechanismSpec louder = c.spec().with(MechanismDefinition.EPSILON.name(), FACTOR * c.spec().epsilon());
    Verdict v = check(c.spec(), louder, seedOf(c) + 1);
    System.out.println("validity  " + c + " at " + FACTOR + "ε: " + v);
    assertFalse(v.holds(), () -> "the check has no power for " + c + ": the sampler at " + FACTOR + "ε passes "
        + "the guarantee of ε: " + v);
  }

  /**
   * A measurement, not a check, and empty unless asked for ({@code -Ddptext.test.guaranteeFactors=true}): the
   * smallest multiple of ε, of {@link #SCAN}, at which the check fails each sampler. The figures are in the
   * class comment.
   */
  @TestFactory
  Stream<DynamicTest> smallestFactorDetected() {
    if (!Boolean.getBoolean("dptext.test.guaranteeFactors")) {
      return Stream.empty();
    }
    return cases().map(c -> DynamicTest.dynamicTest(c.toString(), () -> scan(c)));
  }

  static void scan(Case c) {
    for (double factor : SCAN) {
      MechanismSpec louder = c.spec().with(MechanismDefinition.EPSILON.name(), factor * c.spec().epsilon());
      Verdict v = check(c.spec(), louder, seedOf(c) + 1);
      if (!v.holds()) {
        System.out.println("detected  " + c + " at " + factor + "ε: " + v);
        return;
      }
    }
    System.out.println("detected  " + c + ": not at " + SCAN[SCAN.length - 1] + "ε");
  }

  static final double[] SCAN = {1.05, 1.1, 1.2, 1.35, 1.5, 1.75, 2};

  static long seedOf(Case c) {
    return 1_000_003L * c.toString().hashCode();
  }

  // ------------------------------------------------------------------------------------------- the check

  /** The worst triple found: its loss (estimated, and its lower confidence bound) against the bound. */
  record Verdict(String method, int x, int xPrime, int y, double loss, double lossLower, double bound,
      double seconds) {
    boolean holds() {
      return !(lossLower > bound);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%s, worst x=w%d x'=w%d y=w%d: loss %.4f (lower bound %.4f) vs bound "
          + "%.4f, %s; %.2f s", method, x, xPrime, y, loss, lossLower, bound, holds() ? "holds" : "VIOLATED",
          seconds);
    }
  }

  /** Checks the sampler of {@code run} against the guarantee of {@code claimed}. */
  static Verdict check(MechanismSpec claimed, MechanismSpec run, long seed) {
    long start = System.nanoTime();
    LossBound bound = claimed.definition().lossBound(claimed, MODEL);
    WordMechanism m = run.build(MODEL);
    Verdict v = m instanceof ExactConditional e ? exact(e, bound) : drawn(m, bound, seed);
    return new Verdict(v.method(), v.x(), v.xPrime(), v.y(), v.loss(), v.lossLower(), v.bound(),
        (System.nanoTime() - start) / 1e9);
  }

  /** Every pair and output from the exact conditional; the worst excess over the bound. */
  static Verdict exact(ExactConditional e, LossBound bound) {
    int n = MODEL.embeddings().size();
    double[][] f = new double[n][];
    for (int x = 0; x < n; x++) {
      f[x] = e.conditional(x);
    }
    Verdict worst = null;
    double worstExcess = Double.NEGATIVE_INFINITY;
    for (int x = 0; x < n; x++) {
      for (int x2 = 0; x2 < n; x2++) {
        for (int y = 0; y < n; y++) {
          if (x == x2 || f[x][y] == 0) {
            continue;
          }
          double b = number(bound.bound(x, x2, y), x, x2, y);
          if (b == Double.POSITIVE_INFINITY) {
            continue; // nothing promised
          }
          double loss = Math.log(f[x][y]) - Math.log(f[x2][y]);
          // Rounding: the loss is a difference of logs of probabilities computed in double.
          double lossLower = loss == Double.POSITIVE_INFINITY ? loss
              : loss - TOLERANCE * Math.max(1, Math.abs(loss));
          double excess = lossLower - b;
          if (excess > worstExcess || worst == null) {
            worstExcess = excess;
            worst = new Verdict("exact", x, x2, y, loss, lossLower, b, 0);
          }
        }
      }
    }
    if (worst == null) {
      throw new AssertionError("no pair with a finite bound: nothing to check");
    }
    return worst;
  }

  /** A bound that is a number, ≥ 0 (a NaN would pass every comparison silently). */
  static double number(double b, int x, int x2, int y) {
    if (!(b >= 0)) {
      throw new AssertionError("the definition's loss bound for x=w" + x + " x'=w" + x2 + " y=w" + y + " is " + b);
    }
    return b;
  }

  /** A candidate triple and its projected lower confidence bound less the bound. */
  record Triple(int x, int xPrime, int y, double score) {}

  /** Selection and confirmation from draws (see the class comment). */
  static Verdict drawn(WordMechanism m, LossBound bound, long seed) {
    int n = MODEL.embeddings().size();
    long[][] pilot = new long[n][];
    for (int x = 0; x < n; x++) {
      pilot[x] = histogram(m, x, PILOT, seed * 7919 + x);
    }
    double a = ALPHA / (2 * TRIPLES);
    double z = new NormalDistribution().inverseCumulativeProbability(1 - a);
    double scale = (double) CONFIRM / PILOT;
    List<Triple> candidates = new ArrayList<>();
    for (int x = 0; x < n; x++) {
      for (int x2 = 0; x2 < n; x2++) {
        if (x == x2) {
          continue;
        }
        for (int y = 0; y < n; y++) {
          if (pilot[x][y] < 3) {
            continue;
          }
          double b = number(bound.bound(x, x2, y), x, x2, y);
          if (b == Double.POSITIVE_INFINITY) {
            continue;
          }
          // The confirmation's counts if the pilot's frequencies held (+0.5: an unseen y is still possible).
          double c = pilot[x][y] * scale;
          double c2 = (pilot[x2][y] + 0.5) * scale;
          double lower = Math.log(c / c2) - z * Math.sqrt(1 / c + 1 / c2);
          candidates.add(new Triple(x, x2, y, lower - b));
        }
      }
    }
    candidates.sort(Comparator.comparingDouble(Triple::score).reversed());
    List<Triple> chosen = candidates.subList(0, Math.min(TRIPLES, candidates.size()));
    if (chosen.isEmpty()) {
      throw new AssertionError("no output came out three times from any input: nothing to check");
    }
    Set<Integer> inputs = new LinkedHashSet<>();
    chosen.forEach(t -> {
      inputs.add(t.x());
      inputs.add(t.xPrime());
    });
    long[][] counts = new long[n][];
    for (int x : inputs) {
      counts[x] = histogram(m, x, CONFIRM, (seed + 1) * 104_729 + x);
    }
    Verdict worst = null;
    double worstExcess = Double.NEGATIVE_INFINITY;
    for (Triple t : chosen) {
      long c = counts[t.x()][t.y()];
      long c2 = counts[t.xPrime()][t.y()];
      double lossLower = Math.log(lowerBound(c, CONFIRM, a)) - Math.log(upperBound(c2, CONFIRM, a));
      double b = bound.bound(t.x(), t.xPrime(), t.y());
      double loss = Math.log((double) c / Math.max(c2, 0.5));
      if (lossLower - b > worstExcess || worst == null) {
        worstExcess = lossLower - b;
        worst = new Verdict("draws", t.x(), t.xPrime(), t.y(), loss, lossLower, b, 0);
      }
    }
    return worst;
  }

  /** One-sided Clopper–Pearson: P[p ≥ lower] ≥ 1 − a. */
  static double lowerBound(long c, long n, double a) {
    return c == 0 ? 0 : new BetaDistribution(c, n - c + 1).inverseCumulativeProbability(a);
  }

  /** One-sided Clopper–Pearson: P[p ≤ upper] ≥ 1 − a. */
  static double upperBound(long c, long n, double a) {
    return c == n ? 1 : new BetaDistribution(c + 1, n - c).inverseCumulativeProbability(1 - a);
  }

  /** {@code draws} outputs for input x from a stream of {@code seed}, counted by rank, in batches. */
  static long[] histogram(WordMechanism m, int x, int draws, long seed) {
    int n = MODEL.embeddings().size();
    RandomStream random = RandomStream.fromSeed(seed);
    int batch = 4096;
    int[] in = new int[batch];
    Arrays.fill(in, x);
    int[] out = new int[batch];
    long[] counts = new long[n];
    for (int done = 0; done < draws; done += batch) {
      int count = Math.min(batch, draws - done);
      m.sanitize(in, count, random, out);
      for (int i = 0; i < count; i++) {
        counts[out[i]]++;
      }
    }
    return counts;
  }
}
