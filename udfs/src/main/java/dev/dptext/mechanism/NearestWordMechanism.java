package dev.dptext.mechanism;

import dev.dptext.random.RandomStream;

/**
 * A mechanism that perturbs the input words' embeddings and maps each noisy vector to one of its k
 * nearest words (Laplace, Mahalanobis, Vickrey), split into its three steps so that the partitioned
 * path can run the middle one on vocabulary shards: {@link #addNoise} (all the row's noise draws, in
 * token order), the exact k-nearest search (ties by the lower rank), and {@link #choose} (any
 * selection draws, in token order). {@link #sanitize(int[], int, RandomStream, int[])} is these three
 * steps with the search in memory.
 */
public interface NearestWordMechanism extends WordMechanism {
  /** k, the nearest words {@link #choose} reads per query. */
  int neighboursWanted();

  /** The embedding dimension m. */
  int dim();

  /**
   * Adds one noise draw to each of {@code count} points laid out row-major in {@code points} (each
   * holding its input word's embedding, widened to double), in order.
   */
  void addNoise(double[] points, int count, RandomStream random);

  /** Chooses the output among the k nearest words (nearest first) of one noisy vector. */
  int choose(int[] words, double[] distances, int offset, RandomStream random);
}
