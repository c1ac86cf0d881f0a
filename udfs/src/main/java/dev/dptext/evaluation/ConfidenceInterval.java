package dev.dptext.evaluation;

import java.io.Serializable;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * The mean of n independent trials with its two-sided 95 % confidence interval from Student's t
 * distribution: mean ± t_{0.975, n−1}·s/√n, s the sample standard deviation. With one trial the
 * interval is undefined (NaN half-width).
 *
 * @param mean the sample mean
 * @param halfWidth t_{0.975, n−1}·s/√n
 * @param trials n
 */
public record ConfidenceInterval(double mean, double halfWidth, int trials) implements Serializable {

  public static ConfidenceInterval of(double... values) {
    int n = values.length;
    if (n == 0) {
      throw new IllegalArgumentException("no values");
    }
    double mean = 0;
    for (double v : values) {
      mean += v;
    }
    mean /= n;
    if (n == 1) {
      return new ConfidenceInterval(mean, Double.NaN, 1);
    }
    double ss = 0;
    for (double v : values) {
      ss += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(ss / (n - 1));
    double t = new TDistribution(null, n - 1).inverseCumulativeProbability(0.975);
    return new ConfidenceInterval(mean, t * sd / Math.sqrt(n), n);
  }

  public double low() {
    return mean - halfWidth;
  }

  public double high() {
    return mean + halfWidth;
  }
}
