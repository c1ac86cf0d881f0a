package dev.dptext.mechanism;

import dev.dptext.random.RandomStream;

/**
 * The continuous distributions the embedding-noise mechanisms draw from, implemented on
 * {@link RandomStream} so that every draw is reproducible from the row seed. Logarithms are {@link
 * StrictMath}'s (fdlibm) and every other step is an IEEE operation in the written order, so the Python
 * engine repeats each variate bit for bit (docs/engine-spec.md).
 */
final class NoiseSampling {
  private NoiseSampling() {}

  /**
   * Fills {@code out[0..m)} with independent standard normal variates (Marsaglia's polar method:
   * exact, two variates per accepted pair, acceptance π/4).
   */
  static void gaussians(RandomStream random, double[] out, int m) {
    int i = 0;
    while (i < m) {
      double u;
      double v;
      double s;
      do {
        u = 2 * random.nextDouble() - 1;
        v = 2 * random.nextDouble() - 1;
        s = u * u + v * v;
      } while (s >= 1 || s == 0);
      double f = Math.sqrt(-2 * StrictMath.log(s) / s);
      out[i++] = u * f;
      if (i < m) {
        out[i++] = v * f;
      }
    }
  }

  /** One standard normal variate (the polar method's second variate is discarded). */
  static double gaussian(RandomStream random) {
    double u;
    double v;
    double s;
    do {
      u = 2 * random.nextDouble() - 1;
      v = 2 * random.nextDouble() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s == 0);
    return u * Math.sqrt(-2 * StrictMath.log(s) / s);
  }

  /** A point uniform on the unit sphere S^{m-1}: a standard normal vector, normalised. */
  static void unitSphere(RandomStream random, double[] out, int m) {
    double norm2;
    do {
      gaussians(random, out, m);
      norm2 = 0;
      for (int i = 0; i < m; i++) {
        norm2 += out[i] * out[i];
      }
    } while (norm2 == 0);
    double inv = 1 / Math.sqrt(norm2);
    for (int i = 0; i < m; i++) {
      out[i] *= inv;
    }
  }

  /**
   * Gamma(shape, scale 1) for shape ≥ 1, by Marsaglia and Tsang (2000): exact rejection from a
   * transformed normal, acceptance above 95 % for every shape ≥ 1.
   */
  static double gamma(RandomStream random, double shape) {
    if (!(shape >= 1)) { // dptext's callers pass the dimension m ≥ 1
      throw new IllegalStateException("gamma shape must be ≥ 1, got " + shape);
    }
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x;
      double v;
      do {
        x = gaussian(random);
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      double u = random.nextUniform();
      if (u < 1 - 0.0331 * x * x * x * x || StrictMath.log(u) < 0.5 * x * x + d * (1 - v + StrictMath.log(v))) {
        return d * v;
      }
    }
  }
}
