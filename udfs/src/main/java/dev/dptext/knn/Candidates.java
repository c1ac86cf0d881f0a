package dev.dptext.knn;

/**
 * Per query of a block, the {@code capacity} highest float scores seen so far and the admission
 * threshold the score kernels test against.
 *
 * <p>A score is s = q'·φ'(y) − ‖φ'(y)‖²/2 = (‖q'‖² − d̃²)/2, so the highest scores are the nearest
 * words. Each query's candidates are a bounded max-heap of −2·s = d̃² − ‖q'‖² (exact in double). A
 * word is offered only when its score is strictly above {@link #threshold}: −∞ until the heap is full,
 * then the score of the worst candidate (−½ of the heap maximum, exactly a float again, so a float
 * comparison against it is exact). Hence after a scan every word left out has −2·s ≥ the heap
 * maximum, which is what {@link NearestWords} certifies against.
 */
final class Candidates {
  final int capacity;
  /** Per query, a max-heap of −2·score in slots [i·capacity, i·capacity + size[i]). */
  final double[] heapD;
  final int[] heapI;
  final int[] size;
  /** A word enters query i's heap iff its score &gt; threshold[i]. */
  final float[] threshold;

  Candidates(int queries, int capacity) {
    this.capacity = capacity;
    heapD = new double[queries * capacity];
    heapI = new int[queries * capacity];
    size = new int[queries];
    threshold = new float[queries];
    java.util.Arrays.fill(threshold, Float.NEGATIVE_INFINITY);
  }

  /**
   * Admits word {@code word} with {@code score} (&gt; threshold[i], checked by the caller) to query
   * i's candidates and returns the new threshold.
   */
  float offer(int i, float score, int word) {
    int base = i * capacity;
    int hs = size[i];
    double d2 = -2.0 * score;
    if (hs < capacity) {
      Heaps.push(heapD, heapI, base, hs++, d2, word);
      size[i] = hs;
      if (hs < capacity) {
        return Float.NEGATIVE_INFINITY;
      }
    } else {
      Heaps.replaceTop(heapD, heapI, base, hs, d2, word);
    }
    float t = (float) (-0.5 * heapD[base]);
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
