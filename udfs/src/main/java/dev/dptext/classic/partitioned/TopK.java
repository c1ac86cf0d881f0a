package dev.dptext.classic.partitioned;

import java.io.Serializable;

/**
 * The nearest words of one noisy vector found so far, nearest first by (distance, rank). Merging the
 * shards' lists keeps the global order: each shard's list is exact within the shard, so the k smallest
 * (distance, rank) pairs of their union are the k nearest of the whole vocabulary, ties to the lower
 * rank, which is what {@link dev.dptext.knn.NearestWords} returns on the broadcast path.
 */
record TopK(int[] words, double[] distances) implements Serializable {
  /** The k first of the union of two lists, by (distance, rank). */
  static TopK merge(TopK a, TopK b, int k) {
    int n = Math.min(k, a.words.length + b.words.length);
    int[] w = new int[n];
    double[] d = new double[n];
    int i = 0;
    int j = 0;
    for (int c = 0; c < n; c++) {
      boolean takeA = j >= b.words.length
          || (i < a.words.length && before(a.distances[i], a.words[i], b.distances[j], b.words[j]));
      if (takeA) {
        w[c] = a.words[i];
        d[c] = a.distances[i++];
      } else {
        w[c] = b.words[j];
        d[c] = b.distances[j++];
      }
    }
    return new TopK(w, d);
  }

  static boolean before(double d1, int r1, double d2, int r2) {
    return d1 < d2 || (d1 == d2 && r1 < r2);
  }
}
