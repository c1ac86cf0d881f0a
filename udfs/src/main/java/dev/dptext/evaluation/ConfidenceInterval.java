package dev.dptext.evaluation;

import java.io.Serializable;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * The mean of n independent trials with its two-sided 95 % confidence interval from Student's t
 * distribution: mean ± t_{0.975, n−1}·s/√n, s the sample standard deviation, intersected with the range
 * [min, max] the quantity can take (a score such as accuracy or an AUC: [0, 1]; the intersection of a
 * confidence interval with the parameter space covers the true value at least as often). With one trial
 * the interval is undefined (NaN half-width).
 *
 * @param mean the sample mean
 * @param halfWidth t_{0.975, n−1}·s/√n
 * @param trials n
 * @param min the smallest value the quantity can take
 * @param max the largest
 */
public record ConfidenceInterval(double mean, double halfWidth, int trials, double min, double max)
    implements Serializable {

  /** Unbounded. */
  public static ConfidenceInterval of(double... values) {
    return bounded(Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, values);
  }

  /** A score in [0, 1] (accuracy, AUC): the interval stays inside it. */
  public static ConfidenceInterval ofScore(double... values) {
    return bounded(0, 1, values);
  }

  /** Within [min, max]. */
  public static ConfidenceInterval bounded(double min, double max, double... values) {
    int n = values.length;
    if (n == 0) { // dptext's estimators pass at least one run
      throw new IllegalStateException("no values");
    }
    double mean = 0;
    for (double v : values) {
      mean += v;
    }
    mean /= n;
    if (n == 1) {
      return new ConfidenceInterval(mean, Double.NaN, 1, min, max);
    }
    double ss = 0;
    for (double v : values) {
      ss += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(ss / (n - 1));
    double t = new TDistribution(null, n - 1).inverseCumulativeProbability(0.975);
    return new ConfidenceInterval(mean, t * sd / Math.sqrt(n), n, min, max);
  }

  /** The lower end, at least {@link #min}. */
  public double low() {
    return Math.max(min, mean - halfWidth);
  }

  /** The upper end, at most {@link #max}. */
  public double high() {
    return Math.min(max, mean + halfWidth);
  }
}
