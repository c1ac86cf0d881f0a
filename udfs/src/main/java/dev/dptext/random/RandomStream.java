package dev.dptext.random;

/**
 * A fast, deterministic pseudo-random stream: xoshiro256++ (Blackman and Vigna, 2019).
 *
 * <p>The algorithm is fixed here rather than taken from {@code java.util.Random} or
 * {@code SplittableRandom} so that the same seed yields the same output on every JVM and every
 * executor, whatever its version. It is not cryptographic: its unpredictability comes entirely from
 * the seed, which {@link RowSeeder} derives from the secret key with HMAC-SHA256.
 *
 * <p>Not thread-safe; one instance drives one row.
 */
public final class RandomStream {
  private static final double TWO_POW_MINUS_53 = 0x1.0p-53;
  private static final double LN_2 = StrictMath.log(2.0);

  private long s0;
  private long s1;
  private long s2;
  private long s3;

  /** Seeds the stream with 256 bits; an all-zero state (probability 2^-256) is replaced. */
  public RandomStream(long a, long b, long c, long d) {
    reseed(a, b, c, d);
  }

  /** Seeds from one 64-bit value expanded with SplitMix64; for tests and non-keyed uses. */
  public static RandomStream fromSeed(long seed) {
    long z0 = splitMix(seed += 0x9E3779B97F4A7C15L);
    long z1 = splitMix(seed += 0x9E3779B97F4A7C15L);
    long z2 = splitMix(seed += 0x9E3779B97F4A7C15L);
    long z3 = splitMix(seed + 0x9E3779B97F4A7C15L);
    return new RandomStream(z0, z1, z2, z3);
  }

  void reseed(long a, long b, long c, long d) {
    if ((a | b | c | d) == 0) {
      a = 0x9E3779B97F4A7C15L;
    }
    s0 = a;
    s1 = b;
    s2 = c;
    s3 = d;
  }

  /**
   * The stream's current position, 256 bits: with {@link #resume(long[])} a computation can stop
   * after some draws, travel (e.g. through a Spark shuffle of the partitioned path) and continue with
   * exactly the draws it would have made. The state is xoshiro's, seeded by HMAC-SHA256 of the key:
   * it reveals neither the key nor any other row's stream (the HMAC is a pseudo-random function), but
   * it does determine this row's remaining draws, so it is treated like the row's data, never logged.
   */
  public long[] state() {
    return new long[] {s0, s1, s2, s3};
  }

  /** A stream continuing exactly where the one whose {@link #state()} this is stopped. */
  public static RandomStream resume(long[] state) {
    if (state.length != 4) { // a state() of dptext's own
      throw new IllegalStateException("a stream state has 4 words, got " + state.length);
    }
    return new RandomStream(state[0], state[1], state[2], state[3]);
  }

  private static long splitMix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The next 64 uniformly random bits. */
  public long nextLong() {
    long result = Long.rotateLeft(s0 + s3, 23) + s0;
    long t = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = Long.rotateLeft(s3, 45);
    return result;
  }

  /** Uniform on [0, 1) with 53 random bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * TWO_POW_MINUS_53;
  }

  /** Uniform on [0, bound) without modulo bias (Lemire's multiply-and-reject). */
  public int nextInt(int bound) {
    if (bound <= 0) { // dptext's callers draw among a non-empty set
      throw new IllegalStateException("bound must be positive, got " + bound);
    }
    long m = (nextLong() >>> 32) * bound;
    long low = m & 0xFFFFFFFFL;
    if (low < bound) {
      long threshold = (0x1_0000_0000L - bound) % bound;
      while (low < threshold) {
        m = (nextLong() >>> 32) * bound;
        low = m & 0xFFFFFFFFL;
      }
    }
    return (int) (m >>> 32);
  }

  /**
   * The natural logarithm of a uniform variate on (0, 1), exact down to the smallest doubles.
   *
   * <p>A plain 53-bit uniform cannot fall below 2^-53, so a test "u &lt; p" would treat every
   * probability below that as 0. Here leading zero bits are drawn 64 at a time (a geometric
   * exponent) and 52 more bits form the mantissa, so log-space tests {@code logU < log p} are exact
   * for every p a double can hold. Costs one {@link #nextLong()} except with probability 2^-12. The
   * logarithm is {@link StrictMath#log} (fdlibm): the same bits on every JVM and in the Python engine.
   */
  public double nextLogUniform() {
    long bits = nextLong();
    int exponent = leadingExponent(bits);
    // u = 2^-(exponent+1) · 1.f, uniform within its binade [2^-(exponent+1), 2^-exponent).
    return StrictMath.log(mantissa(bits)) - (exponent + 1) * LN_2;
  }

  /**
   * A uniform variate on (0, 1) with the same full precision as {@link #nextLogUniform()} (a test
   * {@code u < p} is exact for every p a double can hold, subnormals aside), without the logarithm.
   */
  public double nextUniform() {
    long bits = nextLong();
    int exponent = leadingExponent(bits);
    return Math.scalb(mantissa(bits), -(exponent + 1));
  }

  /** 1.f in [1, 2) from the low 52 bits, exactly representable. */
  private static double mantissa(long bits) {
    return 1.0 + (bits & ((1L << 52) - 1)) * 0x1.0p-52;
  }

  /**
   * The number of leading zero bits of an infinite random bit string whose first 12 bits are the top
   * of {@code bits}; more words are drawn only when those 12 are all zero (probability 2^-12).
   */
  private int leadingExponent(long bits) {
    long top = bits >>> 52;
    if (top != 0) {
      return Long.numberOfLeadingZeros(top) - 52;
    }
    int exponent = 12;
    long more;
    while ((more = nextLong()) == 0 && exponent < 1100) {
      exponent += 64;
    }
    return exponent + Long.numberOfLeadingZeros(more);
  }


}
