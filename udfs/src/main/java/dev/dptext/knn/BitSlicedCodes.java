package dev.dptext.knn;

import dev.dptext.embedding.BinaryCodes;

/**
 * The codes of a {@link BinaryCodes} transposed for the vector kernel of {@link NearestCodes}: blocks of
 * 64·L words (L = longs per vector: 8 for 512-bit vectors, 4 for 256-bit ones), and in each block one
 * plane per code bit — L longs whose bit w of long l is that bit of word block·64L + 64l + w. A kernel
 * then XORs a plane with the query's bit broadcast (0 or −1) and adds the 64·L resulting one-bit values
 * into bit-sliced counters with carry-save adders (Harley and Seal), so one vector operation advances
 * 512 (or 256) words' distances at once, instead of one scalar POPCNT per 64 bits of one word.
 *
 * <p>Planes are padded to a multiple of 8 with zero planes (the query's mask there is 0 too, so they
 * add nothing), and the last block with zero words, which the search skips by rank. This class names no
 * Vector API type: the kernels are in {@code HammingVectorKernels}, loaded only when the API is present.
 * Memory: the same as the codes (3.2 MB for 100,000 words at 256 bits).
 */
final class BitSlicedCodes {
  /** The largest code length the 9-bit counters hold (a distance of 511 and a bound of 511). */
  static final int MAX_BITS = 510;

  /** A kernel over one block: which words are nearer than a bound. No Vector API type in its signature. */
  interface Kernel {
    /** Longs per plane. */
    int lanes();

    String describe();

    /**
     * Whether some word of the block whose planes start at {@code planes[o]} is at Hamming distance
     * below {@code bound} from the query whose masks start at {@code queryMasks[m]} (one long per plane,
     * 0 or −1: the query's bit); if so, {@code out[0 .. lanes)} gets the words below it, bit w of long
     * l being word 64l + w of the block.
     */
    boolean below(long[] planes, int o, int planeCount, long[] queryMasks, int m, int bound, long[] out);
  }

  final int lanes;
  final int planeCount;
  final int blocks;
  final long[] planes;

  BitSlicedCodes(BinaryCodes codes, int lanes) {
    if (codes.bits() > MAX_BITS) {
      throw new IllegalArgumentException("bit-sliced codes hold at most " + MAX_BITS + " bits");
    }
    this.lanes = lanes;
    this.planeCount = (codes.bits() + 7) & ~7;
    int words = 64 * lanes;
    int n = codes.size();
    this.blocks = (n + words - 1) / words;
    this.planes = new long[blocks * planeCount * lanes];
    for (int y = 0; y < n; y++) {
      int block = y / words;
      int lane = (y % words) >>> 6;
      long bit = 1L << (y & 63);
      int base = block * planeCount * lanes + lane;
      for (int k = 0; k < codes.longs(); k++) {
        long v = codes.code(y, k);
        while (v != 0) {
          int j = 64 * k + Long.numberOfTrailingZeros(v);
          v &= v - 1;
          planes[base + j * lanes] |= bit;
        }
      }
    }
  }

  /** Words per block. */
  int blockWords() {
    return 64 * lanes;
  }

  /** Writes the query's masks (one long per plane: 0 or −1) to {@code out[m .. m + planeCount)}. */
  void queryMasks(long[] q, int offset, int bits, long[] out, int m) {
    for (int j = 0; j < planeCount; j++) {
      out[m + j] = j < bits ? -((q[offset + (j >>> 6)] >>> (j & 63)) & 1) : 0;
    }
  }
}
