package dev.dptext.knn;

import dev.ludovic.netlib.blas.BLAS;

/**
 * Scores by SGEMM (native OpenBLAS through netlib's JNI binding, or netlib's Java BLAS), one block of
 * words at a time, then scans each query's row of the block.
 *
 * <p>The block is sized so that its score matrix (words × queries floats) stays in the L2 cache
 * between being written by the product and read by the scan: at V = 100,000 and a few hundred
 * queries the whole V × queries matrix would be ~100 MB and the scan would stream it from memory.
 */
final class BlasScoreKernel implements ScoreKernel {
  /** Target size of one block's score matrix, in floats (256 KB, half an L2 of this generation). */
  private static final int SCORE_BLOCK_FLOATS = 1 << 16;
  private static final int MIN_WORDS = 256;
  private static final int MAX_WORDS = 4096;

  private final BLAS blas;
  private final RowScan rowScan;
  /** Row-major size × (m+1): φ'(y), then −‖φ'(y)‖²/2. */
  private final float[] augmented;
  private final int size;
  private final int width;
  /** The word id of row 0: row j is offered as word firstWord + j. */
  private final int firstWord;

  /** Scans one query's row of a score block against its threshold. */
  interface RowScan {
    void scan(Candidates candidates, int query, float[] scores, int offset, int count, int firstWord);

    /** For the log line. */
    String describe();
  }

  BlasScoreKernel(BLAS blas, RowScan rowScan, float[] augmented, int size, int width) {
    this(blas, rowScan, augmented, size, width, 0);
  }

  BlasScoreKernel(BLAS blas, RowScan rowScan, float[] augmented, int size, int width, int firstWord) {
    this.blas = blas;
    this.rowScan = rowScan;
    this.augmented = augmented;
    this.size = size;
    this.width = width;
    this.firstWord = firstWord;
  }

  static int wordsPerBlock(int queries) {
    int w = SCORE_BLOCK_FLOATS / Math.max(1, queries);
    return Math.max(MIN_WORDS, Math.min(MAX_WORDS, w & ~15));
  }

  @Override
  public void scan(float[] queries, int qn, Candidates candidates) {
    int block = wordsPerBlock(qn);
    float[] scores = new float[Math.min(block, size) * qn];
    for (int w0 = 0; w0 < size; w0 += block) {
      int wn = Math.min(block, size - w0);
      // Column-major C (wn × qn) = W · Qᵀ: scores[j + i·wn] = φ'(w0+j)·q'_i − ‖φ'(w0+j)‖²/2.
      blas.sgemm("T", "N", wn, qn, width, 1.0f, augmented, w0 * width, width, queries, 0, width, 0.0f,
          scores, 0, wn);
      for (int i = 0; i < qn; i++) {
        rowScan.scan(candidates, i, scores, i * wn, wn, firstWord + w0);
      }
    }
  }

  @Override
  public String describe() {
    return blas.getClass().getSimpleName() + " sgemm + " + rowScan.describe();
  }
}
