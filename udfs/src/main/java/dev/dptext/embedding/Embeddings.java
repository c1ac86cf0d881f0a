package dev.dptext.embedding;

import dev.dptext.errors.DpTextErrors;
import java.io.Serializable;

/**
 * A vocabulary with its word embeddings φ: V → R^m, in public frequency order.
 *
 * <p>Word {@code i} is the i-th word of the embedding file. GloVe, word2vec and fastText files list
 * words most frequent first, so the index is the word's public frequency rank: rank 0 is the most
 * frequent word. SanText+ uses that rank to choose its sensitive set without looking at private text.
 *
 * <p>Vectors are stored row-major in one {@code float[]} (memory |V|·m·4 bytes). Distances are
 * computed by {@link #distance(int, int)}, in double precision in a fixed order, so every JVM and
 * every executor computes bit-identical distances and so draws identical outputs from one seed.
 */
public final class Embeddings implements Vocabulary, Serializable {
  private static final long serialVersionUID = 1L;

  private final String[] words;
  private final float[] vectors;
  private final int dim;
  /** The words and their index (rebuilt where deserialized). */
  private final WordList vocabulary;

  /**
   * @param words the vocabulary in frequency order, no duplicates
   * @param vectors row-major, {@code words.length * dim} finite values
   * @param dim the embedding dimension m
   */
  public Embeddings(String[] words, float[] vectors, int dim) {
    // Reachable from files (a model file's counts, a partitioned model's shards): EMBEDDINGS_INVALID, which the
    // model readers report as their file's corruption.
    if (dim <= 0) {
      throw DpTextErrors.error("EMBEDDINGS_INVALID", "problem", "the dimension is " + dim);
    }
    if (words.length == 0) {
      throw DpTextErrors.error("EMBEDDINGS_INVALID", "problem", "the vocabulary is empty");
    }
    if ((long) words.length * dim != vectors.length) {
      throw DpTextErrors.error("EMBEDDINGS_INVALID", "problem",
          vectors.length + " values for " + words.length + " words × " + dim + " dimensions");
    }
    this.words = words;
    this.vectors = vectors;
    this.dim = dim;
    this.vocabulary = new WordList(words);
  }

  /** |V|. */
  @Override
  public int size() {
    return words.length;
  }

  /** The dimension m. */
  public int dim() {
    return dim;
  }

  /** The word of rank {@code i}. */
  @Override
  public String word(int i) {
    return words[i];
  }

  /** The rank of {@code word}, or -1 if it is not in the vocabulary. */
  @Override
  public int indexOf(String word) {
    return vocabulary.indexOf(word);
  }

  @Override
  public int indexOf(String text, int from, int to, boolean asciiLowerCase) {
    return vocabulary.indexOf(text, from, to, asciiLowerCase);
  }

  /** The words alone, for the paths that do not need the vectors. */
  public WordList vocabulary() {
    return vocabulary;
  }

  /** The backing row-major vector array; callers must not modify it. */
  public float[] rawVectors() {
    return vectors;
  }

  /** The words in rank order; callers must not modify the array. */
  public String[] rawWords() {
    return words;
  }

  /** Euclidean distance between words {@code i} and {@code j}, computed exactly as described above. */
  public double distance(int i, int j) {
    return Math.sqrt(squaredDistance(vectors, i * dim, vectors, j * dim, dim));
  }

  /**
   * The squared Euclidean distance of two float vectors, accumulated in double in a fixed order.
   * Four independent accumulators keep the CPU busy; the order is part of the contract (Java does not
   * reassociate floating-point sums), so results are identical on every JVM.
   */
  public static double squaredDistance(float[] a, int aOffset, float[] b, int bOffset, int dim) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int k = 0;
    for (; k + 3 < dim; k += 4) {
      double d0 = (double) a[aOffset + k] - b[bOffset + k];
      double d1 = (double) a[aOffset + k + 1] - b[bOffset + k + 1];
      double d2 = (double) a[aOffset + k + 2] - b[bOffset + k + 2];
      double d3 = (double) a[aOffset + k + 3] - b[bOffset + k + 3];
      s0 += d0 * d0;
      s1 += d1 * d1;
      s2 += d2 * d2;
      s3 += d3 * d3;
    }
    for (; k < dim; k++) {
      double d = (double) a[aOffset + k] - b[bOffset + k];
      s0 += d * d;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /**
   * The squared Euclidean distance between a point {@code q[qOffset .. qOffset+m)} (double
   * precision, e.g. a noisy embedding) and word {@code j}, accumulated in a fixed order like
   * {@link #squaredDistance}, so nearest-word decisions are identical on every JVM.
   */
  public double squaredDistanceTo(double[] q, int qOffset, int j) {
    float[] v = vectors;
    int bo = j * dim;
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int k = 0;
    for (; k + 3 < dim; k += 4) {
      double d0 = q[qOffset + k] - v[bo + k];
      double d1 = q[qOffset + k + 1] - v[bo + k + 1];
      double d2 = q[qOffset + k + 2] - v[bo + k + 2];
      double d3 = q[qOffset + k + 3] - v[bo + k + 3];
      s0 += d0 * d0;
      s1 += d1 * d1;
      s2 += d2 * d2;
      s3 += d3 * d3;
    }
    for (; k < dim; k++) {
      double d = q[qOffset + k] - v[bo + k];
      s0 += d * d;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /**
   * The squared distance of words {@code i} and {@code j} if it is below {@code limit}; otherwise some
   * value ≥ {@code limit}, possibly computed from a prefix of the dimensions. The sum is accumulated
   * exactly as in {@link #squaredDistance}: partial sums of non-negative terms only grow under
   * rounding, so stopping early never changes a comparison with {@code limit}, and when no early
   * stop happens the result is bit-identical to {@code squaredDistance}.
   */
  public double squaredDistanceBelow(int i, int j, double limit) {
    return squaredDistanceBelow(vectors, i * dim, vectors, j * dim, dim, limit);
  }

  /**
   * {@link #squaredDistanceBelow(int, int, double)} for two vectors held anywhere (the partitioned
   * path holds the input word's and the proposal's vectors outside any {@link Embeddings}): the same
   * arithmetic in the same order, so the same comparisons with {@code limit}. The reference for
   * {@code dev.dptext.knn.RowDistances.squaredDistanceBelow}, which the samplers call: the same values,
   * bit for bit, on the Vector API.
   */
  public static double squaredDistanceBelow(float[] a, int ao, float[] b, int bo, int dim, double limit) {
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int k = 0;
    while (k + 3 < dim) {
      int stop = Math.min(dim - 3, k + 24);
      for (; k < stop; k += 4) {
        double d0 = (double) a[ao + k] - b[bo + k];
        double d1 = (double) a[ao + k + 1] - b[bo + k + 1];
        double d2 = (double) a[ao + k + 2] - b[bo + k + 2];
        double d3 = (double) a[ao + k + 3] - b[bo + k + 3];
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
      }
      double partial = (s0 + s1) + (s2 + s3);
      if (partial >= limit) {
        return partial;
      }
    }
    for (; k < dim; k++) {
      double d = (double) a[ao + k] - b[bo + k];
      s0 += d * d;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /** The mean vector of the vocabulary, in double precision. */
  public double[] mean() {
    double[] mean = new double[dim];
    int n = words.length;
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < dim; d++) {
        mean[d] += vectors[i * dim + d];
      }
    }
    for (int d = 0; d < dim; d++) {
      mean[d] /= n;
    }
    return mean;
  }

  /** The embeddings of the {@code n} most frequent words (a prefix of the rank order). */
  public Embeddings topWords(int n) {
    if (n <= 0 || n > words.length) { // callers keep 0 < n <= |V| (vocabSize larger than the file: all words)
      throw new IllegalStateException(
          "cannot keep the top " + n + " words of a vocabulary of " + words.length);
    }
    if (n == words.length) {
      return this;
    }
    return new Embeddings(
        java.util.Arrays.copyOf(words, n), java.util.Arrays.copyOf(vectors, n * dim), dim);
  }
}
