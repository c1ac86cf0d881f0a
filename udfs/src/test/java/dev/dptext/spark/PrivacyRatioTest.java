package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import dev.dptext.model.EmbeddedDefault;
import org.junit.jupiter.api.Test;

/** The privacy ratio against hand-computed values and a plain loop. */
class PrivacyRatioTest {

  @Test
  void euclideanAggregatesMatchTheHandComputedValues() {
    // Three words on a line: distances 5, 10, 5. Ordered pairs with the diagonal: 2·(5+10+5)/3² = 40/9.
    Embeddings e = new Embeddings(new String[] {"a", "b", "c"}, new float[] {0, 0, 3, 4, 6, 8}, 2);
    PrivacyRatio.Aggregate agg = PrivacyRatio.aggregate(SharedSpark.get(), new PrivacyRatio.EuclideanMetric(e), "Euclidean");
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
    PrivacyRatio.Aggregate agg = PrivacyRatio.aggregate(SharedSpark.get(), new PrivacyRatio.HammingMetric(codes), "Hamming");
    assertEquals(sum / (300.0 * 300), agg.average(), 1e-9);
    assertEquals(max, agg.maximum(), 0);
  }
}
