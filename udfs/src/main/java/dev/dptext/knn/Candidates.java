package dev.dptext.knn;

/**
 * Per query of a block, the highest float scores seen so far (up to the query's own capacity) and
 * the admission threshold the score kernels test against.
 *
 * <p>A score is s = q'·φ'(y) − ‖φ'(y)‖²/2 = (‖q'‖² − d̃²)/2, so the highest scores are the nearest
 * words. Each query's candidates are a bounded max-heap of −2·s = d̃² − ‖q'‖² (exact in double). A
 * word is offered only when its score is strictly above {@link #threshold}: −∞ until the heap is full,
 * then the score of the worst candidate (−½ of the heap maximum, exactly a float again, so a float
 * comparison against it is exact). Hence after a scan every word left out has −2·s ≥ the heap
 * maximum, which is what {@link NearestWords} and {@link NeighbourSearch} certify against.
 *
 * <p>Capacities may differ per query (the all-pairs search keeps each word's row length plus a slack);
 * query i's heap is the slice [{@link #base}[i], base[i] + {@link #capacity}[i]) of the flat arrays.
 */
final class Candidates {
  /** Per query, the heap's capacity (at least 1). */
  final int[] capacity;
  /** Per query, where its heap starts in {@link #heapD} and {@link #heapI}. */
  final int[] base;
  /** Per query, a max-heap of −2·score in slots [base[i], base[i] + size[i]). */
  final double[] heapD;
  final int[] heapI;
  final int[] size;
  /** A word enters query i's heap iff its score &gt; threshold[i]. */
  final float[] threshold;

  /** The same capacity for every query. */
  Candidates(int queries, int capacity) {
    this(uniform(queries, capacity));
  }

  /** Query i keeps up to {@code capacities[i]} (≥ 1) candidates. */
  Candidates(int[] capacities) {
    int queries = capacities.length;
    capacity = capacities.clone();
    base = new int[queries];
    long total = 0;
    for (int i = 0; i < queries; i++) {
      if (capacities[i] < 1) {
        throw new IllegalArgumentException("query " + i + " has capacity " + capacities[i]);
      }
      base[i] = (int) total;
      total += capacities[i];
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many candidates in one block: " + total);
    }
    heapD = new double[(int) total];
    heapI = new int[(int) total];
    size = new int[queries];
    threshold = new float[queries];
    java.util.Arrays.fill(threshold, Float.NEGATIVE_INFINITY);
  }

  private static int[] uniform(int queries, int capacity) {
    int[] c = new int[queries];
    java.util.Arrays.fill(c, capacity);
    return c;
  }

  /**
   * Admits word {@code word} with {@code score} (&gt; threshold[i], checked by the caller) to query
   * i's candidates and returns the new threshold.
   */
  float offer(int i, float score, int word) {
    int b = base[i];
    int cap = capacity[i];
    int hs = size[i];
    double d2 = -2.0 * score;
    if (hs < cap) {
      Heaps.push(heapD, heapI, b, hs++, d2, word);
      size[i] = hs;
      if (hs < cap) {
        return Float.NEGATIVE_INFINITY;
      }
    } else {
      Heaps.replaceTop(heapD, heapI, b, hs, d2, word);
    }
    float t = (float) (-0.5 * heapD[b]);
    threshold[i] = t;
    return t;
  }

  /** Offers every score of {@code scores[offset, offset + count)}, word {@code firstWord} first. */
  void offerRow(int i, float[] scores, int offset, int count, int firstWord) {
    float t = threshold[i];
    for (int j = 0; j < count; j++) {
      float s = scores[offset + j];
      if (s > t) {
        t = offer(i, s, firstWord + j);
      }
    }
  }
}
