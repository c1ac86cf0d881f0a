package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The sampler with frequency-tiered rows (the product default): rows of 64·K, 8·K and K words by
 * rank. On the 2,000-word fixture with K = 8, ranks below 1,024 get 512 neighbours, the rest 64. Each case is checked against the exact distribution with the same
 * chi-square test (α = 1e-5 per check) as {@link SanTextDistributionTest}, for a word in each tier
 * and for SanText+ over its sensitive set.
 */
class SanTextTieredRowsTest {
  static final int SAMPLES = 100_000;

  @Test
  void tieredRowsHaveTheDocumentedLengthsAndKeepTheInvariant() {
    Embeddings e = Fixtures.gloveTop2000();
    NeighbourTable t = NeighbourSearch.compute(e, 0, RowLengths.tiered(8));
    assertEquals(8 * RowLengths.HEAD_FACTOR, t.rowLength(0));
    assertEquals(8 * RowLengths.HEAD_FACTOR, t.rowLength(1023));
    assertEquals(8 * RowLengths.MIDDLE_FACTOR, t.rowLength(1024));
    assertEquals(8 * RowLengths.MIDDLE_FACTOR, t.rowLength(1999));
    for (int x : new int[] {0, 7, 1023, 1024, 1999}) {
      java.util.Set<Integer> row = new java.util.HashSet<>();
      for (int j = 0; j < t.rowLength(x); j++) {
        row.add(t.neighbour(x, j));
        if (j > 0) {
          assertTrue(e.distance(x, t.neighbour(x, j - 1)) <= e.distance(x, t.neighbour(x, j)));
        }
      }
      for (int y = 0; y < e.size(); y++) {
        if (!row.contains(y)) {
          assertTrue(e.distance(x, y) >= t.outsideBound(x), "bound violated for x=" + x + " y=" + y);
        }
      }
    }
  }

  @Test
  void sanTextWithTieredRowsMatchesTheExactDistribution() {
    Embeddings e = Fixtures.gloveTop2000();
    NeighbourTable t = NeighbourSearch.compute(e, 0, RowLengths.tiered(8));
    for (double eps : new double[] {1, 3, 10}) {
      SanText m = new SanText(e, t, eps);
      for (int x : new int[] {e.indexOf("the"), 500, 1500}) {
        long[] observed = SamplerStatistics.histogram(m, e.size(), x, SAMPLES, RandomStream.fromSeed(31L * x + (long) eps));
        SamplerStatistics.assertFits(observed, SamplerStatistics.exponential(e, x, eps, 0),
            "tiered SanText eps=" + eps + " x=" + e.word(x));
      }
    }
  }

  @Test
  void sanTextPlusWithTieredRowsMatchesTheExactDistribution() {
    Embeddings e = Fixtures.gloveTop2000();
    int start = SanTextPlus.sensitiveStart(e.size(), 0.9);
    NeighbourTable t = NeighbourSearch.compute(e, start, RowLengths.tiered(8));
    SanTextPlus m = new SanTextPlus(e, t, 3.0, 0.9, 1.0); // p = 1: always sampled, never kept
    for (int x : new int[] {0, 150, 1500}) {
      long[] observed = SamplerStatistics.histogram(m, e.size(), x, SAMPLES, RandomStream.fromSeed(97L * x));
      SamplerStatistics.assertFits(observed, SamplerStatistics.exponential(e, x, 3.0, start),
          "tiered SanText+ x=" + e.word(x));
    }
  }
}
