package dev.dptext.classic.partitioned;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;

/**
 * One contiguous rank range [lo, lo + count) of a partitioned model, held by one Spark partition of a
 * persisted RDD and so kept on an executor: its words and vectors, and, when the mechanism needs
 * them, its words' candidate rows for one target set. It answers the three questions the rounds of
 * {@link PartitionedSanitizer} ask: a word's vector, a word's candidate row, and the exact k nearest
 * words of a noisy vector within the shard, by (distance, rank).
 */
final class VocabularyShard implements QueryWords {
  private static final long serialVersionUID = 1L;

  final int index;
  final int lo;
  final int count;
  final int dim;
  final String[] words;
  final float[] vectors;
  /** Per word of the shard, its candidate row for {@link #tableStart} (null when not loaded). */
  int tableStart = -1;
  int[][] neighbours;
  double[][] distances;
  double[] bounds;

  VocabularyShard(int index, int lo, String[] words, float[] vectors, int dim) {
    this.index = index;
    this.lo = lo;
    this.count = words.length;
    this.dim = dim;
    this.words = words;
    this.vectors = vectors;
  }

  /**
   * This shard's words and vectors (shared, not copied) without a candidate table, to attach one to
   * ({@link Shards#withTable}) while the original, cached, stays as it is.
   */
  VocabularyShard withoutTable() {
    return new VocabularyShard(index, lo, words, vectors, dim);
  }

  @Override
  public int index() {
    return index;
  }

  @Override
  public int count() {
    return count;
  }

  @Override
  public int rank(int i) {
    return lo + i;
  }

  @Override
  public float[] vectors() {
    return vectors;
  }

  boolean contains(int rank) {
    return rank >= lo && rank < lo + count;
  }

  /** A copy of the vector of word {@code rank} (which must be in this shard). */
  float[] vector(int rank) {
    float[] v = new float[dim];
    System.arraycopy(vectors, (rank - lo) * dim, v, 0, dim);
    return v;
  }

  /**
   * The exact min(k, count) nearest words of each query within the shard, global ranks and exact
   * distances, nearest first by (distance, rank): {@link NearestWords} over the shard's words, whose
   * distances are the same doubles as over the whole vocabulary (same vectors, same arithmetic), and
   * whose local order is the global order shifted by {@link #lo}.
   */
  TopK[] nearest(double[] queries, int n, int k) {
    // Built per call and dropped after: the index holds the kernel's own copy of the shard's vectors
    // (centred, augmented), as large as the shard. Kept on the cached shard it doubled each executor's
    // memory (2M × 300 d: a further 1.2 GB per executor of two), while each shard is searched once per
    // run (one task holds every query of the run for that shard).
    NearestWords nearest = new NearestWords(new Embeddings(words, vectors, dim));
    int kk = Math.min(k, count);
    int[] found = new int[n * kk];
    double[] dist = new double[n * kk];
    nearest.search(queries, n, kk, found, dist);
    TopK[] out = new TopK[n];
    for (int q = 0; q < n; q++) {
      int[] w = new int[kk];
      double[] d = new double[kk];
      for (int c = 0; c < kk; c++) {
        w[c] = lo + found[q * kk + c];
        d[c] = dist[q * kk + c];
      }
      out[q] = new TopK(w, d);
    }
    return out;
  }

  /** The shard a rank belongs to, with {@code shardSize} words per shard. */
  static int shardOf(int rank, int shardSize) {
    return rank / shardSize;
  }

  /** Words per shard so that {@code shards} shards cover {@code size} words. */
  static int shardSize(int size, int shards) {
    return (size + shards - 1) / shards;
  }
}
