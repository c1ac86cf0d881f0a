package dev.dptext.classic.partitioned;

/** Some words of the vocabulary, in rank order, with their vectors: one on-demand query block. */
record QueryBlock(int index, int[] ranks, float[] vectors) implements QueryWords {
  @Override
  public int count() {
    return ranks.length;
  }

  @Override
  public int rank(int i) {
    return ranks[i];
  }
}
