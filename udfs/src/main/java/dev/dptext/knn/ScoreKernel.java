package dev.dptext.knn;

/**
 * Scores every word of its set (the vocabulary, or a rank range of it: row j is word firstWord + j)
 * against a block of queries in single precision and offers each query the words that beat its
 * threshold ({@link Candidates}), in increasing word order per query. Implementations differ only in how the
 * float scores s = q'·φ'(y) − ‖φ'(y)‖²/2 are computed (summation order, hence rounding); the error
 * of any order is within the bound {@link NearestWords} certifies with, so the final exact answer
 * never depends on which kernel ran. {@link NearestWords} and {@link NeighbourSearch} share them.
 */
interface ScoreKernel {
  /**
   * Thread-safe: the word layout is read-only and each call allocates its own buffers.
   *
   * @param queries row-major qn × (m+1): centred query q', then 1
   * @param qn number of queries
   * @param candidates per-query candidate heaps, updated in place
   */
  void scan(float[] queries, int qn, Candidates candidates);

  /** What runs, for the log line. */
  String describe();
}
