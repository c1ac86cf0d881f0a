package dev.dptext.knn;

/**
 * Per query of a block, the highest float scores seen so far (up to the query's own capacity) and
 * the admission threshold the score kernels test against.
 *
 * <p>A score is s = q'·φ'(y) − ‖φ'(y)‖²/2 = (‖q'‖² − d̃²)/2, so the highest scores are the nearest
 * words. Each query's candidates are a bounded max-heap ordered by (−2·s = d̃² − ‖q'‖², word). A
 * word is offered only when its score is strictly above {@link #threshold}: −∞ until the heap is full,
 * then the score of the worst candidate (a float, so a float comparison against it is exact). Hence after a scan every word left out has −2·s ≥ the heap
 * maximum, which is what {@link NearestWords} and {@link NeighbourSearch} certify against.
 *
 * <p>Capacities may differ per query (the all-pairs search keeps each word's row length plus a slack);
 * query i's heap is the slice [{@link #base}[i], base[i] + {@link #capacity}[i]) of the flat arrays.
 */
final class Candidates {
  /** Per query, the heap's capacity (at least 1). */
  final int[] capacity;
  /** Per query, where its heap starts in {@link #heap}. */
  final int[] base;
  /**
   * Per query, a max-heap in slots [base[i], base[i] + size[i]) of {@link #key}s: (−score, word)
   * packed in one long, so one comparison orders by (−2·score, word) = (approximate distance, rank) and
   * a heap step touches one array.
   */
  final long[] heap;
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
        throw new IllegalStateException("query " + i + " has capacity " + capacities[i]);
      }
      base[i] = (int) total;
      total += capacities[i];
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("too many candidates in one block: " + total);
    }
    heap = new long[(int) total];
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
   * (−score, word) as one long ordered like the pair: the high half is −score's bits made to sort as
   * signed ints (−0 read as +0), the low half the word (≥ 0).
   */
  static long key(float score, int word) {
    int b = Float.floatToRawIntBits(-score + 0.0f);
    return ((long) (b ^ ((b >> 31) & 0x7fffffff)) << 32) | word;
  }

  /** The score of a key. */
  static float score(long key) {
    int s = (int) (key >> 32);
    return -Float.intBitsToFloat(s ^ ((s >> 31) & 0x7fffffff));
  }

  /** The word of a key. */
  static int word(long key) {
    return (int) key;
  }

  /** The words of query i's candidates, in no particular order. */
  int[] words(int i) {
    int b = base[i];
    int[] out = new int[size[i]];
    for (int c = 0; c < out.length; c++) {
      out[c] = (int) heap[b + c];
    }
    return out;
  }

  /**
   * −2·(the lowest score among query i's candidates), exactly in double: every word left out of a full
   * heap has −2·score ≥ this.
   */
  double worst(int i) {
    return -2.0 * score(heap[base[i]]);
  }

  /**
   * Admits word {@code word} with {@code score} (&gt; threshold[i], checked by the caller) to query
   * i's candidates and returns the new threshold.
   */
  float offer(int i, float score, int word) {
    int b = base[i];
    int cap = capacity[i];
    int hs = size[i];
    long key = key(score, word);
    if (hs < cap) {
      // Until the heap is full the threshold is −∞ and every word is kept: append, then heapify once.
      heap[b + hs++] = key;
      size[i] = hs;
      if (hs < cap) {
        return Float.NEGATIVE_INFINITY;
      }
      for (int p = (cap >>> 1) - 1; p >= 0; p--) {
        siftDown(b, p, cap, heap[b + p]);
      }
    } else {
      siftDown(b, 0, hs, key);
    }
    float t = score(heap[b]);
    threshold[i] = t;
    return t;
  }

  /** Puts {@code key} at slot {@code pos} of the heap of {@code hs} keys at {@code b} and sifts it down. */
  private void siftDown(int b, int pos, int hs, long key) {
    long[] h = heap;
    while (true) {
      int left = 2 * pos + 1;
      if (left >= hs) {
        break;
      }
      long larger = h[b + left];
      int child = left;
      if (left + 1 < hs && h[b + left + 1] > larger) {
        larger = h[b + left + 1];
        child = left + 1;
      }
      if (key >= larger) {
        break;
      }
      h[b + pos] = larger;
      pos = child;
    }
    h[b + pos] = key;
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
