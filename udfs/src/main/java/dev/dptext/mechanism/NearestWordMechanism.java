package dev.dptext.mechanism;

import dev.dptext.knn.HnswNearestWords;
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

  /**
   * This mechanism with its nearest-word step answered by {@code index} (approximate: post-processing of
   * the noisy vector, so the guarantee is unchanged; outputs differ from exact search where the index
   * misses a neighbour). Only on the broadcast path, where the mechanism holds the vectors.
   */
  NearestWordMechanism withApproximateSearch(HnswNearestWords index);

  /** Chooses the output among the k nearest words (nearest first) of one noisy vector. */
  int choose(int[] words, double[] distances, int offset, RandomStream random);
}
