package dev.dptext.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Statistical and exact tests of {@link RandomStream}. Every statistical test uses a fixed seed, so
 * it is deterministic; its significance level α is the probability that a correct generator would
 * fail it with an arbitrary seed.
 */
class RandomStreamTest {

  /** Two-sided standard normal quantile for α = 0.001. */
  private static final double Z_999 = 3.2905;

  private static double chiSquare(long[] counts, long n) {
    double expected = (double) n / counts.length;
    double chi = 0;
    for (long c : counts) {
      chi += (c - expected) * (c - expected) / expected;
    }
    return chi;
  }

  @Test
  void matchesTheXoshiro256PlusPlusReference() {
    // Reference C code of Blackman and Vigna, state {1, 2, 3, 4}.
    RandomStream r = new RandomStream(1, 2, 3, 4);
    long[] expected = {
      41943041L, 58720359L, 3588806011781223L, 3591011842654386L, -9218127359498767411L,
      -8473074601504656454L
    };
    for (long e : expected) {
      assertEquals(e, r.nextLong());
    }
  }

  @Test
  void fromSeedIsDeterministic() {
    long[] a = new long[1000];
    long[] b = new long[1000];
    RandomStream ra = RandomStream.fromSeed(12345);
    RandomStream rb = RandomStream.fromSeed(12345);
    for (int i = 0; i < a.length; i++) {
      a[i] = ra.nextLong();
      b[i] = rb.nextLong();
    }
    assertArrayEquals(a, b);
    assertNotEquals(RandomStream.fromSeed(12345).nextLong(), RandomStream.fromSeed(12346).nextLong());
    // Seed 0 is a valid seed, not a degenerate stream.
    RandomStream zero = RandomStream.fromSeed(0);
    long or = 0;
    for (int i = 0; i < 10; i++) {
      or |= zero.nextLong();
    }
    assertNotEquals(0L, or);
  }

  @Test
  void allZeroStateIsReplaced() {
    RandomStream r = new RandomStream(0, 0, 0, 0);
    boolean nonZero = false;
    for (int i = 0; i < 10; i++) {
      nonZero |= r.nextLong() != 0;
    }
    assertTrue(nonZero, "an all-zero xoshiro state would output zeros forever");
  }

  /** χ² test, α = 0.001: critical value 22.458 for 6 degrees of freedom. */
  @Test
  void nextIntSevenIsUniform() {
    RandomStream r = RandomStream.fromSeed(7);
    int n = 700_000;
    long[] counts = new long[7];
    for (int i = 0; i < n; i++) {
      counts[r.nextInt(7)]++;
    }
    double chi = chiSquare(counts, n);
    assertTrue(chi < 22.458, "χ² = " + chi + " with counts " + Arrays.toString(counts));
  }

  /** χ² test, α = 0.001: critical value 1142.85 for 999 degrees of freedom. */
  @Test
  void nextIntThousandIsUniform() {
    RandomStream r = RandomStream.fromSeed(1000);
    int n = 2_000_000;
    long[] counts = new long[1000];
    for (int i = 0; i < n; i++) {
      counts[r.nextInt(1000)]++;
    }
    double chi = chiSquare(counts, n);
    assertTrue(chi < 1142.85, "χ² = " + chi);
  }

  /**
   * A bound of 1.5·2^30 makes any modulo bias large: without rejection, multiply-shift gives residue
   * class 2 (mod 3) probability 1/4 instead of 1/3. Normal approximation of the binomial, α = 0.001.
   */
  @Test
  void nextIntHasNoBiasForALargeBound() {
    int bound = 3 << 29;
    RandomStream r = RandomStream.fromSeed(99);
    int n = 300_000;
    long[] classes = new long[3];
    for (int i = 0; i < n; i++) {
      int x = r.nextInt(bound);
      assertTrue(x >= 0 && x < bound);
      classes[x % 3]++;
    }
    double sd = Math.sqrt(n * (1.0 / 3) * (2.0 / 3));
    for (long c : classes) {
      assertTrue(Math.abs(c - n / 3.0) < Z_999 * sd, Arrays.toString(classes));
    }
    // Upper and lower halves of the range equally likely too.
    long low = 0;
    RandomStream r2 = RandomStream.fromSeed(100);
    for (int i = 0; i < n; i++) {
      if (r2.nextInt(bound) < bound / 2) {
        low++;
      }
    }
    assertTrue(Math.abs(low - n / 2.0) < Z_999 * Math.sqrt(n * 0.25), "low half: " + low);
  }

  @Test
  void nextIntEdgeBounds() {
    RandomStream r = RandomStream.fromSeed(3);
    for (int i = 0; i < 1000; i++) {
      assertEquals(0, r.nextInt(1));
      int x = r.nextInt(Integer.MAX_VALUE);
      assertTrue(x >= 0 && x < Integer.MAX_VALUE);
    }
    assertThrows(IllegalStateException.class, () -> r.nextInt(0));
    assertThrows(IllegalStateException.class, () -> r.nextInt(-5));
  }

  @Test
  void nextDoubleIsInTheHalfOpenUnitInterval() {
    RandomStream r = RandomStream.fromSeed(11);
    int n = 1_000_000;
    double sum = 0;
    double min = 1;
    double max = 0;
    for (int i = 0; i < n; i++) {
      double u = r.nextDouble();
      assertTrue(u >= 0.0 && u < 1.0, "out of [0,1): " + u);
      sum += u;
      min = Math.min(min, u);
      max = Math.max(max, u);
    }
    // Mean of U(0,1): sd of the mean = sqrt(1/12/n); α = 0.001.
    assertEquals(0.5, sum / n, Z_999 * Math.sqrt(1.0 / 12 / n));
    assertTrue(min < 1e-5 && max > 1 - 1e-5, min + " " + max);
    // The extremes, from chosen states: nextLong() = -1 (all ones) and 0.
    double top = new RandomStream(0, 0, 0, -1L).nextDouble();
    assertTrue(top < 1.0, "all-ones bits must stay below 1: " + top);
    assertEquals(1.0 - 0x1.0p-53, top);
    assertEquals(0.0, new RandomStream(0, 1, 0, 0).nextDouble());
  }

  @Test
  void nextLogUniformIsNonPositive() {
    RandomStream r = RandomStream.fromSeed(5);
    for (int i = 0; i < 1_000_000; i++) {
      double l = r.nextLogUniform();
      assertTrue(l <= 0 && !Double.isNaN(l) && l > Double.NEGATIVE_INFINITY, "logU = " + l);
    }
  }

  /**
   * Kolmogorov–Smirnov test of exp(logU) against U(0,1), n = 200,000, α = 0.001: critical value
   * 1.9491 / √n.
   */
  @Test
  void expOfNextLogUniformIsUniform() {
    RandomStream r = RandomStream.fromSeed(2024);
    int n = 200_000;
    double[] u = new double[n];
    for (int i = 0; i < n; i++) {
      u[i] = Math.exp(r.nextLogUniform());
    }
    Arrays.sort(u);
    double d = 0;
    for (int i = 0; i < n; i++) {
      d = Math.max(d, Math.max((i + 1.0) / n - u[i], u[i] - (double) i / n));
    }
    assertTrue(d < 1.9491 / Math.sqrt(n), "KS D = " + d);
  }

  /**
   * nextUniform is the same variate as exp(nextLogUniform) without the logarithm: uniform on (0, 1)
   * (KS, α = 0.001), never 0 or 1, and from one seed it equals exp(nextLogUniform) to rounding.
   */
  @Test
  void nextUniformIsUniformAndAgreesWithNextLogUniform() {
    RandomStream r = RandomStream.fromSeed(77);
    int n = 200_000;
    double[] u = new double[n];
    for (int i = 0; i < n; i++) {
      u[i] = r.nextUniform();
      assertTrue(u[i] > 0 && u[i] < 1, "u = " + u[i]);
    }
    Arrays.sort(u);
    double d = 0;
    for (int i = 0; i < n; i++) {
      d = Math.max(d, Math.max((i + 1.0) / n - u[i], u[i] - (double) i / n));
    }
    assertTrue(d < 1.9491 / Math.sqrt(n), "KS D = " + d);
    RandomStream a = RandomStream.fromSeed(5);
    RandomStream b = RandomStream.fromSeed(5);
    for (int i = 0; i < 10_000; i++) {
      double x = a.nextUniform();
      double y = Math.exp(b.nextLogUniform());
      assertEquals(x, y, 1e-13 * x, "draw " + i); // exp(log u) rounds in the last bits
    }
    // Deep tail: all-zero leading words give a value far below 2^-53, not 0.
    assertTrue(new RandomStream(0, 0, 0, 1L).nextUniform() > 0);
  }

  /**
   * The lower tail, where a plain 53-bit uniform is coarse: P(logU &lt; ln 1e-3) = 1e-3, and
   * P(U &lt; 2^-11) = 2^-11 (the branch that draws a second long). Normal approximation of the
   * binomial, two-sided α = 0.001 for each.
   */
  @Test
  void lowerTailHasTheRightMass() {
    RandomStream r = RandomStream.fromSeed(31337);
    int n = 2_000_000;
    double ln1e3 = Math.log(1e-3);
    double ln2m11 = -11 * Math.log(2);
    double ln2m30 = -30 * Math.log(2);
    long below1e3 = 0;
    long below2m11 = 0;
    long below2m30 = 0;
    for (int i = 0; i < n; i++) {
      double l = r.nextLogUniform();
      if (l < ln1e3) {
        below1e3++;
      }
      if (l < ln2m11) {
        below2m11++;
      }
      if (l < ln2m30) {
        below2m30++;
      }
    }
    double p1 = 1e-3;
    assertEquals(n * p1, below1e3, Z_999 * Math.sqrt(n * p1 * (1 - p1)), "logU < ln 1e-3");
    double p2 = 0x1.0p-11;
    assertEquals(n * p2, below2m11, Z_999 * Math.sqrt(n * p2 * (1 - p2)), "U < 2^-11");
    // Expected 0.0019: more than 2 would be very unlikely (P ≈ 1e-9).
    assertTrue(below2m30 <= 2, "U < 2^-30 happened " + below2m30 + " times");
  }

  /** The geometric branch: when the top 11 bits are zero, U &lt; 2^-11 for sure. */
  @Test
  void nextLogUniformDeepTailBranch() {
    // s0 = s3 = 0 makes the first output 0: all 64 bits zero.
    RandomStream r = new RandomStream(0, 0x1234_5678_9ABC_DEF0L, 0x0FED_CBA9_8765_4321L, 0);
    double l = r.nextLogUniform();
    assertTrue(l < -11 * Math.log(2), "logU = " + l);
    assertTrue(l > -1200 * Math.log(2), "logU = " + l);
    assertFalse(Double.isInfinite(l));
  }

  @Test
  void nextLogUniformOfLargestBitsIsBelowZeroOrEqual() {
    // nextLong() = -1: top bit set (exponent 0), all mantissa bits ones, u as close to 1 as it gets.
    double l = new RandomStream(0, 0, 0, -1L).nextLogUniform();
    assertTrue(l <= 0.0, "logU = " + l);
  }

  @Test
  void nextLogUniformIsStrictlyNegative() {
    double l = new RandomStream(0, 0, 0, -1L).nextLogUniform();
    assertTrue(l < 0.0, "log of a uniform on (0,1) must be < 0, got " + l);
  }
}
