package dev.dptext.knn;

/** The threshold scan of a BLAS score row one score at a time (no Vector API on this JVM). */
final class ScalarRowScan implements BlasScoreKernel.RowScan {
  @Override
  public void scan(Candidates candidates, int query, float[] scores, int offset, int count, int firstWord) {
    candidates.offerRow(query, scores, offset, count, firstWord);
  }

  @Override
  public String describe() {
    return "scalar scan";
  }
}
