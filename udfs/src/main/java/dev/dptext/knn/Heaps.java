package dev.dptext.knn;

import java.util.Arrays;

/**
 * Bounded max-heaps of (distance, rank) kept in slices of flat arrays, for top-k selection.
 *
 * <p>The heap is ordered by the pair (distance, rank), not by distance alone: its top is the farthest
 * entry and, among entries tied at that distance, the one with the highest rank. So when a nearer
 * word evicts the top, a tie straddling the k-th place keeps its lower ranks, and the k kept are
 * exactly the first k of the full order by (distance, rank) that every search promises.
 */
final class Heaps {
  private Heaps() {}

  /** Whether (d1, id1) comes after (d2, id2) in the order by (distance, rank). */
  private static boolean after(double d1, int id1, double d2, int id2) {
    return d1 > d2 || (d1 == d2 && id1 > id2);
  }

  /**
   * Whether (value, index) would enter a full heap of {@code size} entries at {@code base}: it comes
   * before the top in the order by (distance, rank).
   */
  static boolean admits(double[] d, int[] id, int base, double value, int index) {
    return after(d[base], id[base], value, index);
  }

  /** Adds (value, index) to the heap of {@code size} elements starting at {@code base}. */
  static void push(double[] d, int[] id, int base, int size, double value, int index) {
    int pos = size;
    while (pos > 0) {
      int parent = (pos - 1) >>> 1;
      if (!after(value, index, d[base + parent], id[base + parent])) {
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
      int larger = right < size && after(d[base + right], id[base + right], d[base + left], id[base + left])
          ? right : left;
      if (!after(d[base + larger], id[base + larger], value, index)) {
        break;
      }
      d[base + pos] = d[base + larger];
      id[base + pos] = id[base + larger];
      pos = larger;
    }
    d[base + pos] = value;
    id[base + pos] = index;
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
