package dev.dptext.knn;

/**
 * Bounded max-heaps of (distance, rank) kept in slices of flat arrays, for top-k selection. The
 * order is lexicographic, (distance, rank): among equal distances the higher rank is the larger, so a
 * full heap evicts it first and ties always resolve to the lower rank, as the mechanisms promise.
 */
final class Heaps {
  private Heaps() {}

  /** Adds (value, index) to the heap of {@code size} elements starting at {@code base}. */
  static void push(double[] d, int[] id, int base, int size, double value, int index) {
    int pos = size;
    while (pos > 0) {
      int parent = (pos - 1) >>> 1;
      if (!before(d[base + parent], id[base + parent], value, index)) {
        break;
      }
      d[base + pos] = d[base + parent];
      id[base + pos] = id[base + parent];
      pos = parent;
    }
    d[base + pos] = value;
    id[base + pos] = index;
  }

  /** Replaces the maximum of a full heap by (value, index). */
  static void replaceTop(double[] d, int[] id, int base, int size, double value, int index) {
    siftDown(d, id, base, 0, size, value, index);
  }

  /**
   * Puts (value, index) at position {@code pos} of the heap slice and moves it down until neither
   * child comes after it.
   */
  private static void siftDown(double[] d, int[] id, int base, int pos, int size, double value, int index) {
    while (true) {
      int left = 2 * pos + 1;
      if (left >= size) {
        break;
      }
      int right = left + 1;
      int larger = right < size && before(d[base + left], id[base + left], d[base + right], id[base + right])
          ? right : left;
      if (!before(value, index, d[base + larger], id[base + larger])) {
        break;
      }
      d[base + pos] = d[base + larger];
      id[base + pos] = id[base + larger];
      pos = larger;
    }
    d[base + pos] = value;
    id[base + pos] = index;
  }

  /** Whether (d1, i1) comes strictly before (d2, i2) in (distance, rank) order. */
  static boolean before(double d1, int i1, double d2, int i2) {
    return d1 < d2 || (d1 == d2 && i1 < i2);
  }

  /**
   * Sorts the pairs (d[c], id[c]), c &lt; n, in place into (distance, rank) order, nearest first: a heapsort
   * on the max-heap above. Ranks are distinct within a list, so the order is total and any correct sort
   * gives it; this one boxes nothing (a sort of {@code Integer} positions with a comparator took ~15 % of
   * a model build, BENCHMARKS.md "Model build").
   */
  static void sort(double[] d, int[] id, int n) {
    for (int pos = (n >>> 1) - 1; pos >= 0; pos--) {
      siftDown(d, id, 0, pos, n, d[pos], id[pos]);
    }
    for (int end = n - 1; end > 0; end--) {
      double top = d[0];
      int topId = id[0];
      siftDown(d, id, 0, 0, end, d[end], id[end]);
      d[end] = top;
      id[end] = topId;
    }
  }
}
