package dev.dptext.evaluation;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * How much meaning a binarisation keeps: for a sample of words, the overlap of each word's k nearest
 * neighbours in the real (Euclidean) space and in the binary (Hamming) space, averaged. k words in
 * common is perfect; k²/|V| is chance.
 */
public final class NeighbourOverlap {
  private NeighbourOverlap() {}

  /** The mean overlap over {@code sample} words spread evenly over the rank order. */
  public static double mean(Embeddings e, BinaryCodes codes, int k, int sample) {
    int n = e.size();
    double total = 0;
    for (int s = 0; s < sample; s++) {
      int x = (int) ((long) s * n / sample);
      total += overlap(nearestEuclidean(e, x, k), nearestHamming(codes, x, k));
    }
    return total / sample;
  }

  private static int overlap(int[] a, int[] b) {
    Set<Integer> set = new HashSet<>();
    for (int v : a) {
      set.add(v);
    }
    int c = 0;
    for (int v : b) {
      c += set.contains(v) ? 1 : 0;
    }
    return c;
  }

  private static int[] nearestEuclidean(Embeddings e, int x, int k) {
    double[] d = new double[e.size()];
    for (int y = 0; y < d.length; y++) {
      d[y] = y == x ? Double.POSITIVE_INFINITY : e.distance(x, y);
    }
    return smallest(d, k);
  }

  private static int[] nearestHamming(BinaryCodes c, int x, int k) {
    double[] d = new double[c.size()];
    for (int y = 0; y < d.length; y++) {
      d[y] = y == x ? Double.POSITIVE_INFINITY : c.hamming(x, y);
    }
    return smallest(d, k);
  }

  /** Indices of the k smallest values, ties by index. */
  private static int[] smallest(double[] d, int k) {
    Integer[] order = new Integer[d.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> d[a] != d[b] ? Double.compare(d[a], d[b]) : Integer.compare(a, b));
    int[] out = new int[k];
    for (int i = 0; i < k; i++) {
      out[i] = order[i];
    }
    return out;
  }
}
