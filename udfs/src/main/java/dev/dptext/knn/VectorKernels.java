package dev.dptext.knn;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The pure-Java kernels, on the (incubating) Vector API with 256-bit float vectors on AVX2 CPUs and
 * 512-bit ones on AVX-512 CPUs (the width is {@link VectorWidth}'s, which a system property overrides).
 *
 * <p>This class is loaded only after {@link NearestWords} has checked that the module
 * {@code jdk.incubator.vector} is in the boot layer (the JVM was started with
 * {@code --add-modules=jdk.incubator.vector}, as Spark 4's launcher does) and that the JIT maps
 * 256-bit vectors to hardware ({@link VectorWidth.Hardware}); otherwise the search runs on BLAS with a
 * scalar scan.
 */
final class VectorKernels {
  private VectorKernels() {}

  /**
   * The widest float vectors the CPU has, at most 512 bits, unless {@link VectorWidth} is told otherwise; a
   * static final so that the JIT compiles every vector operation for this one shape (a species read from
   * an instance field would box).
   */
  static final VectorSpecies<Float> S =
      VectorWidth.choose(VectorWidth.Hardware.floatBits()) == 512 ? FloatVector.SPECIES_512 : FloatVector.SPECIES_256;
  /** Lanes of one vector. */
  static final int L = S.length();

  /**
   * The threshold scan of a BLAS score row, thirty-two scores per comparison: the row's maximum over
   * four vectors is compared once, and only a chunk holding a candidate is looked at score by score
   * (after the first few hundred words almost none does).
   */
  static final class Scan implements BlasScoreKernel.RowScan {
    private static final int CHUNK = 4 * L;

    @Override
    public void scan(Candidates candidates, int query, float[] scores, int offset, int count, int firstWord) {
      float t = candidates.threshold[query];
      int j = 0;
      int upper = count - count % CHUNK;
      for (; j < upper; j += CHUNK) {
        int o = offset + j;
        FloatVector m = FloatVector.fromArray(S, scores, o).max(FloatVector.fromArray(S, scores, o + L))
            .max(FloatVector.fromArray(S, scores, o + 2 * L).max(FloatVector.fromArray(S, scores, o + 3 * L)));
        if (m.compare(VectorOperators.GT, t).anyTrue()) {
          for (int jj = j; jj < j + CHUNK; jj++) {
            float s = scores[offset + jj];
            if (s > t) {
              t = candidates.offer(query, s, firstWord + jj);
            }
          }
        }
      }
      for (; j < count; j++) {
        float s = scores[offset + j];
        if (s > t) {
          t = candidates.offer(query, s, firstWord + j);
        }
      }
    }

    @Override
    public String describe() {
      return "Vector API scan";
    }
  }

  /**
   * Scores fused with the threshold scan, never materialising the score matrix.
   *
   * <p>Words are stored in panels of {@link #PANEL} = 2·{@link #L} words (dimension-major within a panel: the panel's
   * values of coordinate d are contiguous), queries in groups of {@value #GROUP} (query-minor). The
   * micro-kernel keeps a {@value #GROUP} queries × {@link #PANEL} words tile of scores in twelve
   * vector registers over the m+1 coordinates: per coordinate two word loads, six broadcasts and
   * twelve fused multiply-adds. The finished tile is compared with the six thresholds (one max and
   * one comparison per query); only a tile holding a candidate is looked at score by score.
   */
  static final class Fused implements ScoreKernel {
    static final int PANEL = 2 * L;
    static final int GROUP = 6;

    private final float[] panels;
    private final int size;
    private final int width;
    private final int panelCount;
    private final int firstWord;

    /** @param augmented row-major |V| × width (φ'(y), then −‖φ'(y)‖²/2) */
    Fused(float[] augmented, int size, int width) {
      this(augmented, size, width, 0);
    }

    /**
     * @param augmented row-major size × width (φ'(y), then −‖φ'(y)‖²/2)
     * @param firstWord the id offered for row 0 (row j is offered as word firstWord + j)
     */
    Fused(float[] augmented, int size, int width, int firstWord) {
      this.size = size;
      this.width = width;
      this.firstWord = firstWord;
      panelCount = (size + PANEL - 1) / PANEL;
      panels = new float[panelCount * PANEL * width];
      for (int y = 0; y < size; y++) {
        int base = (y / PANEL) * PANEL * width + y % PANEL;
        for (int d = 0; d < width; d++) {
          panels[base + d * PANEL] = augmented[y * width + d];
        }
      }
    }

    @Override
    public void scan(float[] queries, int qn, Candidates candidates) {
      int a = width;
      int groups = qn / GROUP;
      int rest = qn - groups * GROUP;
      // Query-minor groups: coordinate d of the group's queries is contiguous, so the kernel reads
      // its six broadcasts from one place per coordinate. The partial group is zero-padded.
      float[] grouped = new float[(groups + (rest > 0 ? 1 : 0)) * GROUP * a];
      for (int i = 0; i < qn; i++) {
        int base = (i / GROUP) * GROUP * a + i % GROUP;
        for (int d = 0; d < a; d++) {
          grouped[base + d * GROUP] = queries[i * a + d];
        }
      }
      float[] tile = new float[PANEL];
      for (int p = 0; p < panelCount; p++) {
        int pb = p * PANEL * a;
        int word0 = p * PANEL;
        for (int g = 0; g < groups; g++) {
          tile6(grouped, g * GROUP * a, pb, g * GROUP, word0, candidates, tile);
        }
        for (int r = 0; r < rest; r++) {
          tile1(grouped, groups * GROUP * a + r, pb, groups * GROUP + r, word0, candidates, tile);
        }
      }
    }

    private void tile6(float[] q, int qb, int pb, int query0, int word0, Candidates c, float[] tile) {
      float[] w = panels;
      FloatVector c00 = FloatVector.zero(S);
      FloatVector c01 = c00;
      FloatVector c10 = c00;
      FloatVector c11 = c00;
      FloatVector c20 = c00;
      FloatVector c21 = c00;
      FloatVector c30 = c00;
      FloatVector c31 = c00;
      FloatVector c40 = c00;
      FloatVector c41 = c00;
      FloatVector c50 = c00;
      FloatVector c51 = c00;
      for (int d = 0; d < width; d++) {
        int wo = pb + d * PANEL;
        int qo = qb + d * GROUP;
        FloatVector w0 = FloatVector.fromArray(S, w, wo);
        FloatVector w1 = FloatVector.fromArray(S, w, wo + L);
        FloatVector x = FloatVector.broadcast(S, q[qo]);
        c00 = w0.fma(x, c00);
        c01 = w1.fma(x, c01);
        x = FloatVector.broadcast(S, q[qo + 1]);
        c10 = w0.fma(x, c10);
        c11 = w1.fma(x, c11);
        x = FloatVector.broadcast(S, q[qo + 2]);
        c20 = w0.fma(x, c20);
        c21 = w1.fma(x, c21);
        x = FloatVector.broadcast(S, q[qo + 3]);
        c30 = w0.fma(x, c30);
        c31 = w1.fma(x, c31);
        x = FloatVector.broadcast(S, q[qo + 4]);
        c40 = w0.fma(x, c40);
        c41 = w1.fma(x, c41);
        x = FloatVector.broadcast(S, q[qo + 5]);
        c50 = w0.fma(x, c50);
        c51 = w1.fma(x, c51);
      }
      // The threshold tests stay in this method: a vector passed to a method the JIT does not inline
      // is boxed, which costs more than the tile. Only a tile holding a candidate leaves registers.
      float[] t = c.threshold;
      if (c00.max(c01).compare(VectorOperators.GT, t[query0]).anyTrue()) {
        c00.intoArray(tile, 0);
        c01.intoArray(tile, L);
        offerTile(c, query0, word0, tile);
      }
      if (c10.max(c11).compare(VectorOperators.GT, t[query0 + 1]).anyTrue()) {
        c10.intoArray(tile, 0);
        c11.intoArray(tile, L);
        offerTile(c, query0 + 1, word0, tile);
      }
      if (c20.max(c21).compare(VectorOperators.GT, t[query0 + 2]).anyTrue()) {
        c20.intoArray(tile, 0);
        c21.intoArray(tile, L);
        offerTile(c, query0 + 2, word0, tile);
      }
      if (c30.max(c31).compare(VectorOperators.GT, t[query0 + 3]).anyTrue()) {
        c30.intoArray(tile, 0);
        c31.intoArray(tile, L);
        offerTile(c, query0 + 3, word0, tile);
      }
      if (c40.max(c41).compare(VectorOperators.GT, t[query0 + 4]).anyTrue()) {
        c40.intoArray(tile, 0);
        c41.intoArray(tile, L);
        offerTile(c, query0 + 4, word0, tile);
      }
      if (c50.max(c51).compare(VectorOperators.GT, t[query0 + 5]).anyTrue()) {
        c50.intoArray(tile, 0);
        c51.intoArray(tile, L);
        offerTile(c, query0 + 5, word0, tile);
      }
    }

    /** One query (at stride {@value #GROUP} in {@code q}) against one panel. */
    private void tile1(float[] q, int qb, int pb, int query, int word0, Candidates c, float[] tile) {
      float[] w = panels;
      FloatVector c0 = FloatVector.zero(S);
      FloatVector c1 = c0;
      for (int d = 0; d < width; d++) {
        int wo = pb + d * PANEL;
        FloatVector x = FloatVector.broadcast(S, q[qb + d * GROUP]);
        c0 = FloatVector.fromArray(S, w, wo).fma(x, c0);
        c1 = FloatVector.fromArray(S, w, wo + L).fma(x, c1);
      }
      if (c0.max(c1).compare(VectorOperators.GT, c.threshold[query]).anyTrue()) {
        c0.intoArray(tile, 0);
        c1.intoArray(tile, L);
        offerTile(c, query, word0, tile);
      }
    }

    /**
     * Offers a tile's scores one by one (row word0 + j as word firstWord + word0 + j); the last panel's
     * padding is never offered.
     */
    private void offerTile(Candidates c, int query, int word0, float[] tile) {
      float t = c.threshold[query];
      int n = Math.min(PANEL, size - word0);
      int id0 = firstWord + word0;
      for (int j = 0; j < n; j++) {
        if (tile[j] > t) {
          t = c.offer(query, tile[j], id0 + j);
        }
      }
    }

    @Override
    public String describe() {
      return "pure-Java Vector API kernel (" + GROUP + " queries × " + PANEL + " words tiles, " + S.vectorBitSize()
          + "-bit vectors)";
    }
  }
}
