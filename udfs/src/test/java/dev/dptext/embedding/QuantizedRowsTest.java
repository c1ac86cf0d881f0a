package dev.dptext.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.QuantizedRows.Comparison;
import dev.dptext.testing.Fixtures;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link QuantizedRows#compare} never contradicts the float rows — above all at thresholds within
 * rounding of the true distance, where a bound without its error term or margin would — and still
 * decides nearly every comparison away from that edge (else it would not save any reading).
 */
class QuantizedRowsTest {

  /** The float rows' own answer, as the sampler computes it. */
  private static boolean below(Embeddings e, int x, int y, double t) {
    double limit = t * t;
    return e.squaredDistanceBelow(x, y, limit) < limit;
  }

  /** Checks every decided comparison against the float rows; returns how many were decided. */
  private static int checkAgrees(Embeddings e, QuantizedRows q, int x, int y, double t) {
    Comparison c = q.compare(x, y, t);
    if (c == Comparison.UNKNOWN) {
      return 0;
    }
    assertEquals(below(e, x, y, t), c == Comparison.BELOW,
        "x=" + x + " y=" + y + " t=" + t + " d=" + e.distance(x, y) + " said " + c);
    return 1;
  }

  /** Thresholds at, and one or a few ulps around, the computed distance, and far from it. */
  private static double[] thresholds(double d) {
    return new double[] {
      d, Math.nextUp(d), Math.nextDown(d), d * (1 + 1e-15), d * (1 - 1e-15), d * (1 + 1e-10), d * (1 - 1e-10),
      d * 0.5, d * 0.8, d * 1.25, d * 2, 0, Double.MIN_VALUE, Double.POSITIVE_INFINITY};
  }

  @Test
  void agreesWithTheFloatRowsOnGlove() {
    Embeddings e = Fixtures.gloveTop2000();
    for (int start : new int[] {0, 200, 1999}) {
      QuantizedRows q = QuantizedRows.of(e, start);
      SplittableRandom r = new SplittableRandom(start);
      for (int i = 0; i < 20_000; i++) {
        int x = r.nextInt(e.size());
        int y = start + r.nextInt(e.size() - start);
        for (double t : thresholds(e.distance(x, y))) {
          checkAgrees(e, q, x, y, t);
        }
      }
    }
  }

  @Test
  void decidesNearlyAllComparisonsAwayFromTheEdge() {
    Embeddings e = Fixtures.gloveTop2000();
    QuantizedRows q = QuantizedRows.of(e, 0);
    SplittableRandom r = new SplittableRandom(7);
    int decided = 0;
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      int x = r.nextInt(e.size());
      int y = r.nextInt(e.size());
      if (x == y) {
        continue;
      }
      double d = e.distance(x, y);
      decided += checkAgrees(e, q, x, y, d * 0.9) + checkAgrees(e, q, x, y, d * 1.1);
    }
    // GloVe 100-d: the 8-bit error is ~1 % of a typical distance, so a 10 % gap is decided.
    assertTrue(decided > 0.99 * 2 * n * 0.999, "decided " + decided + " of " + 2 * n);
    assertTrue(q.bytes() < e.rawVectors().length * 4L / 3, "bytes " + q.bytes());
  }

  /**
   * Awkward rows: a constant dimension (step 0), values spanning 10^±6, duplicate rows, a row
   * equal to the query. Every decided comparison must still agree.
   */
  @Test
  void agreesOnAwkwardVectors() {
    int dim = 7;
    int n = 300;
    SplittableRandom r = new SplittableRandom(3);
    float[] v = new float[n * dim];
    String[] words = new String[n];
    for (int i = 0; i < n; i++) {
      words[i] = "w" + i;
      for (int k = 0; k < dim; k++) {
        v[i * dim + k] = switch (k) {
          case 0 -> 1.5f; // constant
          case 1 -> (float) (r.nextDouble() * 1e6 - 5e5);
          case 2 -> (float) (r.nextDouble() * 1e-6);
          default -> i % 10 == 0 ? 0.25f : (float) r.nextGaussian();
        };
      }
    }
    System.arraycopy(v, 5 * dim, v, 6 * dim, dim); // a duplicate row
    Embeddings e = new Embeddings(words, v, dim);
    for (int start : new int[] {0, 150}) {
      QuantizedRows q = QuantizedRows.of(e, start);
      for (int x = 0; x < n; x++) {
        for (int y = start; y < n; y++) {
          for (double t : thresholds(e.distance(x, y))) {
            checkAgrees(e, q, x, y, t);
          }
        }
      }
    }
  }

  @Test
  void rejectsAStartOutsideTheVocabulary() {
    Embeddings e = Fixtures.gloveTop2000();
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> QuantizedRows.of(e, 2000));
    assertTrue(ex.getMessage().contains("2000"), ex.getMessage());
  }
}
