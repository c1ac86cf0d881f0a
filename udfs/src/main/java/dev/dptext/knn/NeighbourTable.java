package dev.dptext.knn;

import java.io.Serializable;

/**
 * For every word x of a vocabulary, its K nearest words H_x within a target set, and a lower bound on
 * the distance from x to every target word outside H_x.
 *
 * <p>The target set is the rank range {@code [targetStart, |V|)}: the whole vocabulary for SanText, the
 * least frequent words V_P for SanText+. Memory: |V|·K ints plus |V| doubles; never |V|².
 *
 * <p>Invariant the samplers rely on (and {@link NeighbourSearch} guarantees with a float-rounding
 * margin): for every target word y ∉ H_x, {@code distance(x, y) >= outsideBound(x)} when distances
 * are computed by {@link dev.dptext.embedding.Embeddings#distance(int, int)}.
 */
public final class NeighbourTable implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int targetStart;
  private final int k;
  private final int[] neighbours;
  private final double[] outsideBound;

  /**
   * @param targetStart first rank of the target set
   * @param k neighbours per word (at most the target set's size)
   * @param neighbours row-major |V|×k, each row sorted by (distance, rank)
   * @param outsideBound per word, a lower bound on its distance to every target word not in its row;
   *     +∞ when the row holds the whole target set
   */
  public NeighbourTable(int targetStart, int k, int[] neighbours, double[] outsideBound) {
    if (neighbours.length != (long) outsideBound.length * k) {
      throw new IllegalArgumentException(
          "neighbours has " + neighbours.length + " entries; expected " + outsideBound.length + "×" + k);
    }
    this.targetStart = targetStart;
    this.k = k;
    this.neighbours = neighbours;
    this.outsideBound = outsideBound;
  }

  public int targetStart() {
    return targetStart;
  }

  public int k() {
    return k;
  }

  /** Number of words that have a row (|V|). */
  public int size() {
    return outsideBound.length;
  }

  /** The j-th nearest target word of word x. */
  public int neighbour(int x, int j) {
    return neighbours[x * k + j];
  }

  public double outsideBound(int x) {
    return outsideBound[x];
  }

  /** The backing arrays, for serialization; callers must not modify them. */
  public int[] rawNeighbours() {
    return neighbours;
  }

  public double[] rawOutsideBounds() {
    return outsideBound;
  }
}
