package dev.dptext.knn;

import dev.dptext.embedding.BinaryCodes;

/**
 * The codes of a {@link BinaryCodes} transposed for the vector kernel of {@link NearestCodes}: blocks of
 * 64·L words (L = longs per vector: 8 for 512-bit vectors, 4 for 256-bit ones), and in each block one
 * plane per code bit — L longs whose bit w of long l is that bit of word block·64L + 64l + w. A kernel
 * adds planes into bit-sliced counters with carry-save adders (Harley and Seal), so one vector operation
 * advances 512 (or 256) words' counts at once, instead of one scalar POPCNT per 64 bits of one word.
 *
 * <p><b>Half the planes.</b> With n bits, |q ⊕ c| = |q| + |c| − 2·|q ∧ c|, so a kernel adds only the
 * planes where the query has a 1 (|q ∧ c|, no XOR), or, when |q| &gt; n/2, the planes where it has a 0
 * (|¬q ∧ c| = |c| − |q ∧ c|): at most n/2 planes instead of n. The words' own weights enter as
 * n − |c| = 2a + p, stored per block as 8 planes of a (the counters' starting value) and one plane of p
 * (the parity); {@link #below} turns "distance below the bound" into a comparison of a + count with one
 * constant per query, plus the parity on equality.
 *
 * <p>Per block: planeCount code planes (padded to a multiple of 8 with zero planes), then the 8 planes
 * of a, the plane of p and one zero plane (what a query's plane list is padded with to a multiple of 8).
 * The last block is padded with zero words, which the search skips by rank. This class names no Vector
 * API type: the kernel is {@code HammingVectorKernel}, loaded only when the API is present.
 * Memory: the codes' plus 10 planes per block (3.3 MB for 100,000 words at 256 bits).
 */
final class BitSlicedCodes {
  /** The largest code length the 9-bit counters hold (a distance of 511 and a bound of 511). */
  static final int MAX_BITS = 510;

  /** Planes after the code planes in each block: 8 of a = ⌊(n − |c|)/2⌋, 1 of p = (n − |c|) mod 2, 1 zero. */
  static final int EXTRA_PLANES = 10;

  /** A kernel over one block: which words are nearer than a bound. No Vector API type in its signature. */
  interface Kernel {
    /** Longs per plane. */
    int lanes();

    String describe();

    /**
     * Sums, for each word of the block whose planes start at {@code planes[o]}, the planes at offsets
     * {@code planes[o + offsets[m + j]]}, j &lt; count (a multiple of 8), onto the word's a (the 8 planes
     * at {@code planes[x]}, x = o + planeCount·lanes, least significant first), giving S ≤ 510; then
     * {@code out[0 .. lanes)} gets the words with S &gt; k ({@code greater}) or S &lt; k (not), 0 ≤ k ≤
     * 511, and, if {@code parity}, also those with S = k and p = 1 (greater) or p = 0 (not), p being the
     * plane at x + 8·lanes; bit w of long l is word 64l + w of the block. Returns whether any word passed.
     */
    boolean select(long[] planes, int o, int x, int[] offsets, int m, int count, int k, boolean greater,
        boolean parity, long[] out);
  }

  final int lanes;
  final int bits;
  final int planeCount;
  /** Longs per block. */
  final int stride;
  final int blocks;
  final long[] planes;
  /** Ints per query in a list of plane offsets: at most n/2 planes, padded to a multiple of 8. */
  final int slot;

  BitSlicedCodes(BinaryCodes codes, int lanes) {
    if (codes.bits() > MAX_BITS) { // NearestCodes bit-slices only codes of at most MAX_BITS
      throw new IllegalStateException("bit-sliced codes hold at most " + MAX_BITS + " bits");
    }
    this.lanes = lanes;
    this.bits = codes.bits();
    this.planeCount = (bits + 7) & ~7;
    this.stride = (planeCount + EXTRA_PLANES) * lanes;
    this.slot = (bits / 2 + 7) & ~7;
    int words = 64 * lanes;
    int n = codes.size();
    this.blocks = (n + words - 1) / words;
    this.planes = new long[blocks * stride];
    for (int y = 0; y < n; y++) {
      int block = y / words;
      int lane = (y % words) >>> 6;
      long bit = 1L << (y & 63);
      int base = block * stride + lane;
      int weight = 0;
      for (int k = 0; k < codes.longs(); k++) {
        long v = codes.code(y, k);
        weight += Long.bitCount(v);
        while (v != 0) {
          int j = 64 * k + Long.numberOfTrailingZeros(v);
          v &= v - 1;
          planes[base + j * lanes] |= bit;
        }
      }
      int rest = bits - weight; // n − |c| = 2a + p
      int a = rest >>> 1;
      for (int b = 0; b < 8; b++) {
        if ((a >>> b & 1) != 0) {
          planes[base + (planeCount + b) * lanes] |= bit;
        }
      }
      if ((rest & 1) != 0) {
        planes[base + (planeCount + 8) * lanes] |= bit;
      }
    }
    // Padding words (beyond n) get a = p = 0 as if |c| = n; the search never reports them (it skips by rank).
  }

  /** Words per block. */
  int blockWords() {
    return 64 * lanes;
  }

  /**
   * Writes to {@code out[m .. m + slot)} the offsets (within a block) of the planes a kernel adds for
   * the query {@code q[offset ..]}: those where it has a 1 if |q| ≤ n/2, else those where it has a 0,
   * padded to a multiple of 8 with the zero plane. Returns |q| in the high half and the padded count in
   * the low half.
   */
  long queryPlanes(long[] q, int offset, int[] out, int m) {
    int weight = 0;
    for (int k = 0; k < (bits + 63) >>> 6; k++) {
      long v = q[offset + k];
      if (64 * k + 64 > bits) {
        v &= (1L << (bits - 64 * k)) - 1;
      }
      weight += Long.bitCount(v);
    }
    boolean ones = 2 * weight <= bits;
    int count = 0;
    for (int j = 0; j < bits; j++) {
      if ((((q[offset + (j >>> 6)] >>> (j & 63)) & 1) != 0) == ones) {
        out[m + count++] = j * lanes;
      }
    }
    int zero = (planeCount + 9) * lanes;
    while ((count & 7) != 0) {
      out[m + count++] = zero;
    }
    return ((long) weight << 32) | count;
  }

  /**
   * Whether some word of block b is at Hamming distance below {@code bound} from the query whose plane
   * list {@link #queryPlanes} wrote at {@code offsets[m]} (with |q| = {@code weight}, {@code count}
   * planes); if so, {@code out[0 .. lanes)} gets those words (bit w of long l: word 64l + w of the block).
   *
   * <p>With n − |c| = 2a + p and S = a + count: when the ones are listed (count = |q ∧ c|), d &lt; bound
   * ⟺ 2S + p &gt; T = n + |q| − bound; when the zeros are (count = |¬q ∧ c|), d = |q| − |c| + 2·count,
   * so d &lt; bound ⟺ 2S + p &lt; T = n − |q| + bound. With T = 2k + r (r = 0 or 1): 2S + p &gt; T ⟺
   * S &gt; k, or S = k and p = 1 and r = 0; 2S + p &lt; T ⟺ S &lt; k, or S = k and p = 0 and r = 1.
   */
  boolean below(Kernel kernel, int b, int[] offsets, int m, int weight, int count, int bound, long[] out) {
    boolean listsOnes = 2 * weight <= bits;
    int t = listsOnes ? bits + weight - bound : bits - weight + bound;
    int k = t >> 1; // floor, also for t < 0
    boolean odd = (t & 1) != 0;
    if (k < 0 || k > 511) {
      // S is in [0, 510]: every word passes (S > k, or S < k) or none does.
      boolean all = listsOnes == (k < 0);
      if (all) {
        java.util.Arrays.fill(out, 0, lanes, -1L);
      }
      return all;
    }
    int o = b * stride;
    return kernel.select(planes, o, o + planeCount * lanes, offsets, m, count, k, listsOnes,
        listsOnes ? !odd : odd, out);
  }
}
