package dev.dptext.knn;

import dev.dptext.errors.DpTextErrors;
import java.io.Serializable;

/**
 * For every word x of a vocabulary, its nearest words H_x within a target set (a row of a word's
 * own length), and a lower bound on the distance from x to every target word outside H_x.
 *
 * <p>The target set is the rank range {@code [targetStart, |V|)}: the whole vocabulary for SanText, the
 * least frequent words V_P for SanText+. Rows may differ in length (see {@link RowLengths}): frequent
 * words get longer rows. Memory: Σ row lengths ints plus |V| doubles; never |V|².
 *
 * <p>Invariant the samplers rely on (and {@link NeighbourSearch} guarantees with a float-rounding
 * margin): for every target word y ∉ H_x, {@code distance(x, y) >= outsideBound(x)} when distances
 * are computed by {@link dev.dptext.embedding.Embeddings#distance(int, int)}. Each row is sorted by
 * (distance, rank).
 */
public final class NeighbourTable implements Serializable {
  private static final long serialVersionUID = 2L;

  private final int targetStart;
  private final int[] offsets;
  private final int[] neighbours;
  private final double[] outsideBound;

  /**
   * @param targetStart first rank of the target set
   * @param offsets |V|+1 row offsets into {@code neighbours}: row x is [offsets[x], offsets[x+1])
   * @param neighbours the rows, concatenated
   * @param outsideBound per word, a lower bound on its distance to every target word not in its row;
   *     +∞ when the row holds the whole target set
   */
  public NeighbourTable(int targetStart, int[] offsets, int[] neighbours, double[] outsideBound) {
    if (offsets.length != outsideBound.length + 1 || offsets[0] != 0
        || offsets[offsets.length - 1] != neighbours.length) {
      // Reachable from a model file's tables (its reader reports the problem as the file's corruption).
      throw DpTextErrors.error("NEIGHBOUR_TABLE_INVALID", "problem", "its offsets must have |V|+1 = "
          + (outsideBound.length + 1) + " entries from 0 to " + neighbours.length + ", got " + offsets.length);
    }
    for (int x = 0; x < outsideBound.length; x++) {
      if (offsets[x + 1] <= offsets[x]) {
        throw DpTextErrors.error("NEIGHBOUR_TABLE_INVALID", "problem", "row " + x + " is empty or negative");
      }
    }
    this.targetStart = targetStart;
    this.offsets = offsets;
    this.neighbours = neighbours;
    this.outsideBound = outsideBound;
  }

  /** A table whose rows all have length {@code k}. */
  public NeighbourTable(int targetStart, int k, int[] neighbours, double[] outsideBound) {
    this(targetStart, uniformOffsets(outsideBound.length, k), neighbours, outsideBound);
  }

  private static int[] uniformOffsets(int n, int k) {
    if (k <= 0) { // dptext's computed tables
      throw new IllegalStateException("k must be positive, got " + k);
    }
    int[] o = new int[n + 1];
    for (int i = 0; i <= n; i++) {
      o[i] = i * k;
    }
    return o;
  }

  public int targetStart() {
    return targetStart;
  }

  /** The longest row's length. */
  public int k() {
    int max = 0;
    for (int x = 0; x < outsideBound.length; x++) {
      max = Math.max(max, rowLength(x));
    }
    return max;
  }

  /** The length of word x's row. */
  public int rowLength(int x) {
    return offsets[x + 1] - offsets[x];
  }

  /** Where word x's row starts in {@link #rawNeighbours()}. */
  public int rowOffset(int x) {
    return offsets[x];
  }

  /** Number of words that have a row (|V|). */
  public int size() {
    return outsideBound.length;
  }

  /** The j-th nearest target word of word x. */
  public int neighbour(int x, int j) {
    return neighbours[offsets[x] + j];
  }

  public double outsideBound(int x) {
    return outsideBound[x];
  }

  /** The backing arrays, for serialization; callers must not modify them. */
  public int[] rawOffsets() {
    return offsets;
  }

  public int[] rawNeighbours() {
    return neighbours;
  }

  public double[] rawOutsideBounds() {
    return outsideBound;
  }
}
