package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.spark.SharedSpark;
import dev.dptext.model.EmbeddedDefault;
import org.junit.jupiter.api.Test;

/** The privacy ratio against hand-computed values and a plain loop. */
class PrivacyRatioTest {

  @Test
  void euclideanAggregatesMatchTheHandComputedValues() {
    // Three words on a line: distances 5, 10, 5. Ordered pairs with the diagonal: 2·(5+10+5)/3² = 40/9.
    Embeddings e = new Embeddings(new String[] {"a", "b", "c"}, new float[] {0, 0, 3, 4, 6, 8}, 2);
    PrivacyRatio.Aggregate agg = PrivacyRatio.aggregate(SharedSpark.get(), WordMetric.euclidean(e));
    assertEquals(40.0 / 9, agg.average(), 1e-12);
    assertEquals(10.0, agg.maximum(), 1e-12);
    // ε_B for a metric whose P_d is 2: ε_A·(40/9)/2.
    assertEquals(10 * (40.0 / 9) / 2, PrivacyRatio.matchingEpsilon(10, agg.average(), 2), 1e-12);
  }

  @Test
  void hammingAggregatesEqualAPlainLoopOverAllPairs() {
    Embeddings e = EmbeddedDefault.embeddings().topWords(300);
    BinaryCodes codes = BinaryCodes.of(e, 128, 3);
    double sum = 0;
    double max = 0;
    for (int i = 0; i < e.size(); i++) {
      for (int j = 0; j < e.size(); j++) {
        sum += codes.hamming(i, j);
        max = Math.max(max, codes.hamming(i, j));
      }
    }
    PrivacyRatio.Aggregate agg = PrivacyRatio.aggregate(SharedSpark.get(), WordMetric.hamming(codes));
    assertEquals(sum / (300.0 * 300), agg.average(), 1e-9);
    assertEquals(max, agg.maximum(), 0);
  }

  @Test
  void sampledEstimatesContainTheExactValuesWithinTheirStatedError() {
    // z at α = 1e-5 two-sided: the false-failure rate of each check (fixed seeds, so deterministic).
    double z = PrivacyRatio.zScore(1 - 1e-5);
    Embeddings e = EmbeddedDefault.embeddings().topWords(300);
    BinaryCodes codes = BinaryCodes.of(e, 256, 3);
    WordMetric[] metrics = {WordMetric.euclidean(e), WordMetric.hamming(codes)};
    for (WordMetric metric : metrics) {
      PrivacyRatio.Aggregate exact = PrivacyRatio.aggregate(SharedSpark.get(), metric);
      // 300,000 pairs: two sampling blocks, so the block seeding is exercised.
      PrivacyRatio.Estimate est = PrivacyRatio.sample(SharedSpark.get(), metric, 300_000, 11);
      String what = metric.getClass().getSimpleName() + ": exact " + exact.average() + ", sampled "
          + est.average() + " ± " + est.standardError();
      assertTrue(Math.abs(est.average() - exact.average()) <= z * est.standardError(), what);
      // The stated standard error against the exact σ/√N, σ² the variance of d(I, J) over all ordered
      // pairs (computed here): the sample standard deviation of N pairs is off by a relative
      // ½·√((κ − 1)/N) (κ the kurtosis of d(I, J)) in standard deviation, so z of those at α = 1e-5.
      int n = metric.size();
      double mean = exact.average();
      double m2 = 0;
      double m4 = 0;
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          double c = metric.distance(i, j) - mean;
          m2 += c * c / ((double) n * n);
          m4 += c * c * c * c / ((double) n * n);
        }
      }
      double exactSe = Math.sqrt(m2 / est.pairs());
      double tolerance = z * 0.5 * Math.sqrt((m4 / (m2 * m2) - 1) / est.pairs());
      assertEquals(1, est.standardError() / exactSe, tolerance, what + ": standard error against the exact " + exactSe);
      assertTrue(est.sampledMaximum() <= exact.maximum(), what);
      assertTrue(exact.maximum() <= est.maximumUpperBound(), what + ", max " + exact.maximum()
          + " above the bound " + est.maximumUpperBound());
      assertEquals(est, PrivacyRatio.sample(SharedSpark.get(), metric, 300_000, 11), "same seed, same estimate");
    }
  }

  @Test
  void zScoreIsTheTwoSidedNormalQuantile() {
    assertEquals(1.959964, PrivacyRatio.zScore(0.95), 1e-6);
    assertEquals(4.417173, PrivacyRatio.zScore(1 - 1e-5), 1e-5);
  }
}
