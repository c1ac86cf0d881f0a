package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.HnswNearestWords;
import dev.dptext.knn.NearestWords;
import dev.dptext.knn.SearchTally;
import dev.dptext.random.RandomStream;

/**
 * The shared skeleton of the mechanisms that perturb a word's embedding and map the noisy vector
 * back to the vocabulary: for a batch of words, draw each word's noise from the row's stream (in
 * order), find the k nearest words of every noisy vector with one {@link NearestWords} search, then
 * let the subclass choose among them (drawing any further randomness in order). The choice uses only
 * the noisy vector and the public embeddings, so it is post-processing: the guarantee is the noise's.
 */
abstract class NoisyEmbeddingMechanism implements NearestWordMechanism, Cloneable {
  private static final long serialVersionUID = 1L;

  private final Embeddings embeddings;
  private final NearestWords nearest;
  private final EmbeddingNoise noise;
  private final int k;
  private final int dim;
  /** The approximate index answering the search instead of {@link #nearest}, if chosen (set on a copy only). */
  private HnswNearestWords approximate;

  /** Without vectors (the partitioned path): the search happens on shards, so only the steps work. */
  NoisyEmbeddingMechanism(int dim, EmbeddingNoise noise, int k) {
    this.embeddings = null;
    this.nearest = null;
    this.noise = noise;
    this.k = k;
    this.dim = dim;
  }

  NoisyEmbeddingMechanism(Embeddings embeddings, NearestWords nearest, EmbeddingNoise noise, int k) {
    this.dim = embeddings.dim();
    if (nearest.embeddings() != embeddings) { // the definitions pass the model's own index
      throw new IllegalStateException("the nearest-word index was built for other embeddings");
    }
    this.embeddings = embeddings;
    this.nearest = nearest;
    this.noise = noise;
    this.k = k;
  }

  @Override
  public abstract int choose(int[] words, double[] distances, int offset, RandomStream random);

  @Override
  public int neighboursWanted() {
    return k;
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public void addNoise(double[] points, int count, RandomStream random) {
    int m = dim;
    double[] scratch = new double[2 * m];
    for (int i = 0; i < count; i++) {
      noise.addTo(points, i * m, random, scratch);
    }
  }

  double epsilon() {
    return noise.epsilon();
  }

  @Override
  public int sanitize(int word, RandomStream random) {
    int[] out = new int[1];
    sanitize(new int[] {word}, 1, random, out);
    return out[0];
  }

  @Override
  public NearestWordMechanism withApproximateSearch(HnswNearestWords index) {
    if (nearest == null) {
      throw new IllegalStateException(name() + " was built for the partitioned path: its search runs on shards");
    }
    if (index.embeddings() != embeddings) { // the model's own index
      throw new IllegalStateException("the approximate index was built for other embeddings");
    }
    try {
      NoisyEmbeddingMechanism copy = (NoisyEmbeddingMechanism) clone();
      copy.approximate = index;
      return copy;
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /** The approximate index in use, or null for exact search. */
  HnswNearestWords approximateSearch() {
    return approximate;
  }

  @Override
  public void sanitize(int[] words, int count, RandomStream random, int[] out) {
    sanitize(words, count, random, out, null);
  }

  @Override
  public void sanitize(int[] words, int count, RandomStream random, int[] out, SearchTally tally) {
    if (count == 0) {
      return;
    }
    if (nearest == null) {
      throw new IllegalStateException(name() + " was built for the partitioned path: its search runs on shards");
    }
    int m = embeddings.dim();
    float[] v = embeddings.rawVectors();
    double[] points = new double[count * m];
    for (int i = 0; i < count; i++) {
      int w = words[i];
      for (int d = 0; d < m; d++) {
        points[i * m + d] = v[w * m + d];
      }
    }
    addNoise(points, count, random);
    int[] found = new int[count * k];
    double[] dist = new double[count * k];
    if (approximate != null) {
      approximate.search(points, count, k, found, dist, tally);
    } else {
      nearest.search(points, count, k, found, dist);
    }
    for (int i = 0; i < count; i++) {
      out[i] = choose(found, dist, i * k, random);
    }
  }

  @Override
  public int outputStart() {
    return 0;
  }

}
