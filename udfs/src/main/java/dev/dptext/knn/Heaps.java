package dev.dptext.knn;

import java.util.Arrays;

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
    int pos = 0;
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

  /** Positions 0..n-1 of (d, id) ordered by (d, id): nearest first, ties by the lower rank. */
  static Integer[] order(double[] d, int[] id) {
    Integer[] order = new Integer[d.length];
    for (int c = 0; c < order.length; c++) {
      order[c] = c;
    }
    Arrays.sort(order, (a, b) -> d[a] != d[b] ? Double.compare(d[a], d[b]) : Integer.compare(id[a], id[b]));
    return order;
  }
}
