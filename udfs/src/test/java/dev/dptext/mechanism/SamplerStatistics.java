package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.distribution.BinomialDistribution;
import org.apache.commons.math3.distribution.ChiSquaredDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.PoissonDistribution;

/**
 * Test-side reference computations and goodness-of-fit checks for the exponential-mechanism samplers
 * (and the chi-square tests of the noisy-embedding mechanisms, whose references are in
 * {@link NoiseReference}).
 *
 * <p>Everything here is computed independently of the main code except {@link Embeddings#distance},
 * which is the definition of d.
 *
 * <p><b>False-failure rate.</b> Every statistical check in these tests is a test at level
 * {@link #ALPHA} = 1e-5: a correct sampler fails a given check with probability at most 1e-5 (the
 * chi-square and normal approximations aside). The suites run roughly 500 such checks, so the chance
 * that some check fails spuriously for a given choice of seeds is about 0.5% at most. The seeds are fixed,
 * so a suite that passes keeps passing; if a change to the sampler's consumption of random numbers
 * makes exactly one check fail by a small margin, re-run that case with other seeds before believing
 * it. A real defect fails many cases, by a wide margin.
 */
final class SamplerStatistics {
  /** Per-check false-failure probability (see the class comment). */
  static final double ALPHA = 1e-5;

  /** Bins whose expected count is below this are pooled into one tail bin. */
  static final double MIN_EXPECTED = 5.0;

  private SamplerStatistics() {}

  // ---------------------------------------------------------------- exact reference distributions

  /**
   * The exact exponential mechanism over the rank range [targetStart, |V|):
   * P(y) = exp(−ε·d(x,y)/2) / Σ_{y'} exp(−ε·d(x,y')/2), computed in log space with log-sum-exp.
   * Entries below targetStart are 0.
   */
  static double[] exponential(Embeddings e, int x, double epsilon, int targetStart) {
    int n = e.size();
    double[] logW = new double[n];
    double max = Double.NEGATIVE_INFINITY;
    for (int y = targetStart; y < n; y++) {
      logW[y] = -0.5 * epsilon * e.distance(x, y);
      max = Math.max(max, logW[y]);
    }
    double sum = 0;
    for (int y = targetStart; y < n; y++) {
      sum += Math.exp(logW[y] - max);
    }
    double logZ = max + Math.log(sum);
    double[] p = new double[n];
    for (int y = targetStart; y < n; y++) {
      p[y] = Math.exp(logW[y] - logZ);
    }
    return p;
  }

  /** Distances from x to every word (index = rank). */
  static double[] distances(Embeddings e, int x) {
    double[] d = new double[e.size()];
    for (int y = 0; y < d.length; y++) {
      d[y] = e.distance(x, y);
    }
    return d;
  }

  // ---------------------------------------------------------------------------------- sampling

  /** Draws {@code n} outputs for input x and counts them by rank; every output must be a rank. */
  static long[] histogram(WordMechanism m, int vocabularySize, int x, int n, RandomStream random) {
    long[] counts = new long[vocabularySize];
    for (int i = 0; i < n; i++) {
      int y = m.sanitize(x, random);
      if (y < 0 || y >= vocabularySize) {
        fail(m.name() + " returned rank " + y + " for input " + x + ", outside [0, " + vocabularySize + ")");
      }
      counts[y]++;
    }
    return counts;
  }

  /** Inverse-CDF sampling from a probability vector: the reference sampler for power checks. */
  static long[] histogramFrom(double[] p, int n, RandomStream random) {
    double[] cdf = new double[p.length];
    double s = 0;
    for (int i = 0; i < p.length; i++) {
      s += p[i];
      cdf[i] = s;
    }
    long[] counts = new long[p.length];
    for (int i = 0; i < n; i++) {
      double u = random.nextDouble() * s;
      int lo = 0;
      int hi = p.length - 1;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (cdf[mid] > u) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      counts[lo]++;
    }
    return counts;
  }

  static long sum(long[] counts) {
    long s = 0;
    for (long c : counts) {
      s += c;
    }
    return s;
  }

  // ----------------------------------------------------------------------- goodness of fit

  /** A goodness-of-fit outcome; {@code df == 0} means a Poisson test on the pooled tail. */
  record Fit(double statistic, int df, double critical, int bins, long impossible, String method) {
    boolean rejects() {
      return impossible > 0 || statistic > critical;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT, "%s=%.2f df=%d critical=%.2f (alpha=%.0e, %d bins%s)", method, statistic, df,
          critical, ALPHA, bins, impossible > 0 ? ", " + impossible + " IMPOSSIBLE outputs" : "");
    }
  }

  /**
   * Pearson's chi-square test of {@code observed} against {@code probability} (same index space,
   * summing to 1) at level {@link #ALPHA}. Bins with expected count &lt; 5 are pooled into one tail bin;
   * a tail still below 5 is merged into the smallest kept bin. If only one bin would remain, the pooled
   * tail's count is tested against its Poisson upper quantile instead. Any output with probability 0
   * is a rejection by itself.
   */
  static Fit chiSquare(long[] observed, double[] probability) {
    if (observed.length != probability.length) {
      throw new IllegalArgumentException("length mismatch");
    }
    long n = sum(observed);
    if (n == 0) {
      throw new IllegalArgumentException("no observations");
    }
    long impossible = 0;
    List<double[]> kept = new ArrayList<>(); // {expected, observed}
    double tailE = 0;
    long tailO = 0;
    for (int i = 0; i < observed.length; i++) {
      double e = n * probability[i];
      if (probability[i] == 0 && observed[i] > 0) {
        impossible += observed[i];
      }
      if (e >= MIN_EXPECTED) {
        kept.add(new double[] {e, observed[i]});
      } else {
        tailE += e;
        tailO += observed[i];
      }
    }
    if (kept.isEmpty()) {
      throw new IllegalArgumentException("too few observations for a goodness-of-fit test");
    }
    if (kept.size() == 1) {
      // Everything but the tail is one bin: the tail count alone carries the information.
      double critical =
          tailE > 0 ? new PoissonDistribution(tailE).inverseCumulativeProbability(1 - ALPHA) : 0;
      return new Fit(tailO, 0, critical, 1, impossible, "tail-count");
    }
    if (tailE > 0 || tailO > 0) {
      if (tailE >= MIN_EXPECTED) {
        kept.add(new double[] {tailE, tailO});
      } else {
        double[] smallest = kept.get(0);
        for (double[] b : kept) {
          if (b[0] < smallest[0]) {
            smallest = b;
          }
        }
        smallest[0] += tailE;
        smallest[1] += tailO;
      }
    }
    double stat = 0;
    for (double[] b : kept) {
      double diff = b[1] - b[0];
      stat += diff * diff / b[0];
    }
    int df = kept.size() - 1;
    double critical = new ChiSquaredDistribution(null, df).inverseCumulativeProbability(1 - ALPHA);
    return new Fit(stat, df, critical, kept.size(), impossible, "chi2");
  }

  /**
   * Pearson's chi-square test of homogeneity of two samples over the same bins, at level {@link #ALPHA}:
   * with totals A and B, X² = Σ_i (a_i·√(B/A) − b_i·√(A/B))² / (a_i + b_i), which under the hypothesis
   * that both come from one distribution is asymptotically chi-square with (bins − 1) degrees of
   * freedom. Bins where either sample's expected count, A·(a_i + b_i)/(A + B) or B·(a_i + b_i)/(A + B),
   * is below 5 are pooled into one tail bin; a tail still below 5 is merged into the smallest kept bin.
   */
  static Fit homogeneity(long[] a, long[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("length mismatch");
    }
    double totalA = sum(a);
    double totalB = sum(b);
    double smaller = Math.min(totalA, totalB) / (totalA + totalB);
    List<long[]> kept = new ArrayList<>();
    long[] tail = new long[2];
    for (int i = 0; i < a.length; i++) {
      if ((a[i] + b[i]) * smaller >= MIN_EXPECTED) {
        kept.add(new long[] {a[i], b[i]});
      } else {
        tail[0] += a[i];
        tail[1] += b[i];
      }
    }
    if (kept.size() < 2) {
      throw new IllegalArgumentException("too few observations for a homogeneity test");
    }
    if (tail[0] + tail[1] > 0) {
      if ((tail[0] + tail[1]) * smaller >= MIN_EXPECTED) {
        kept.add(tail);
      } else {
        long[] least = kept.get(0);
        for (long[] bin : kept) {
          if (bin[0] + bin[1] < least[0] + least[1]) {
            least = bin;
          }
        }
        least[0] += tail[0];
        least[1] += tail[1];
      }
    }
    double ka = Math.sqrt(totalB / totalA);
    double kb = Math.sqrt(totalA / totalB);
    double stat = 0;
    for (long[] bin : kept) {
      double diff = bin[0] * ka - bin[1] * kb;
      stat += diff * diff / (bin[0] + bin[1]);
    }
    int df = kept.size() - 1;
    double critical = new ChiSquaredDistribution(null, df).inverseCumulativeProbability(1 - ALPHA);
    return new Fit(stat, df, critical, kept.size(), 0, "chi2-homogeneity");
  }

  static void assertHomogeneous(long[] a, long[] b, String what) {
    Fit fit = homogeneity(a, b);
    log(what + ": " + fit);
    assertTrue(!fit.rejects(), what + ": the two samples differ: " + fit);
  }

  static void assertFits(long[] observed, double[] probability, String what) {
    Fit fit = chiSquare(observed, probability);
    log(what + ": " + fit);
    assertEquals(0, fit.impossible(), what + ": outputs of probability 0: " + fit);
    assertTrue(!fit.rejects(), what + ": sample does not match the exact distribution: " + fit);
  }

  /** Two-sided exact binomial test at level {@link #ALPHA}. */
  static void assertBinomial(long successes, long n, double p, String what) {
    BinomialDistribution b = new BinomialDistribution(null, (int) n, Math.min(1, Math.max(0, p)));
    int lo = b.inverseCumulativeProbability(ALPHA / 2);
    int hi = b.inverseCumulativeProbability(1 - ALPHA / 2);
    String msg = String.format(
        Locale.ROOT, "%s: %d of %d (%.5f), expected p=%.5f, acceptance [%d, %d]", what, successes, n,
        (double) successes / n, p, lo, hi);
    log(msg);
    assertTrue(successes >= lo && successes <= hi, msg);
  }

  /** z-test of the sample mean of f(output) against its exact mean, at level {@link #ALPHA}. */
  static void assertMean(long[] observed, double[] probability, double[] f, String what) {
    long n = sum(observed);
    double mu = 0;
    double m2 = 0;
    double sample = 0;
    for (int i = 0; i < f.length; i++) {
      mu += probability[i] * f[i];
      m2 += probability[i] * f[i] * f[i];
      sample += observed[i] * f[i];
    }
    sample /= n;
    double sd = Math.sqrt(Math.max(0, m2 - mu * mu) / n);
    double z = new NormalDistribution(null, 0, 1).inverseCumulativeProbability(1 - ALPHA / 2);
    double tolerance = z * sd + 1e-12 * Math.abs(mu);
    String msg = String.format(
        Locale.ROOT, "%s: sample mean %.6f, exact %.6f, |diff| %.2e, tolerance %.2e", what, sample, mu,
        Math.abs(sample - mu), tolerance);
    log(msg);
    assertTrue(Math.abs(sample - mu) <= tolerance, msg);
  }

  // ------------------------------------------------------------- envelope of the neighbour sampler

  /** The rejection sampler's envelope for input x, recomputed from the table (for reporting). */
  record Envelope(double uniformBranch, double expectedRounds, double neighbourMass) {}

  /**
   * With w(y) = exp(−ε·d(x,y)/2), g_out = exp(−ε·b_x/2): one round takes the uniform branch with
   * probability U/(U+E), U = |T|·g_out, E = Σ_{H_x} max(0, w − g_out), and the expected number of
   * rounds is (U+E)/Σ_T w. Everything relative to the largest weight, so nothing underflows that
   * matters.
   */
  static Envelope envelope(Embeddings e, NeighbourTable t, int x, double epsilon) {
    int n = e.size();
    int start = t.targetStart();
    double dMin = Double.POSITIVE_INFINITY;
    double[] d = new double[n];
    for (int y = start; y < n; y++) {
      d[y] = e.distance(x, y);
      dMin = Math.min(dMin, d[y]);
    }
    double z = 0;
    for (int y = start; y < n; y++) {
      z += Math.exp(-0.5 * epsilon * (d[y] - dMin));
    }
    double b = t.outsideBound(x);
    double gOut = b == Double.POSITIVE_INFINITY ? 0 : Math.exp(-0.5 * epsilon * (b - dMin));
    double excess = 0;
    double inH = 0;
    for (int j = 0; j < t.k(); j++) {
      int y = t.neighbour(x, j);
      double w = Math.exp(-0.5 * epsilon * (d[y] - dMin));
      excess += Math.max(0, w - gOut);
      inH += w;
    }
    double u = (n - start) * gOut;
    return new Envelope(u / (u + excess), (u + excess) / z, inH / z);
  }

  // ----------------------------------------------------------------------------------- logging

  private static final Path LOG = Path.of("target", "test-statistics", "santext-samplers.txt");

  private static boolean logStarted;

  /**
   * Appends a line to target/test-statistics/santext-samplers.txt (not to the console, to keep the
   * build output short); the file is started afresh by each test JVM.
   */
  static synchronized void log(String line) {
    try {
      Files.createDirectories(LOG.getParent());
      Files.writeString(
          LOG, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          logStarted ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.WRITE);
      logStarted = true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
