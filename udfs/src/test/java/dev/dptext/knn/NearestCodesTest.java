package dev.dptext.knn;

import dev.dptext.embedding.BinaryCodes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.random.RandomStream;
import org.junit.jupiter.api.Test;

/**
 * The exact Hamming-nearest search (bound from a hint, head-only abandoning, tiles, batches) returns
 * what a plain scan of every code returns, ties to the lower rank, for every code length path.
 */
class NearestCodesTest {

  /** 3,000 words (three tiles) drawn as small perturbations of 40 base codes: many exact ties. */
  private static long[] clusteredCodes(int bits, int words, RandomStream r, long[][] bases) {
    int longs = (bits + 63) / 64;
    long[] codes = new long[words * longs];
    for (int y = 0; y < words; y++) {
      long[] base = bases[r.nextInt(bases.length)];
      System.arraycopy(base, 0, codes, y * longs, longs);
      int flips = r.nextInt(3); // 0, 1 or 2 flipped bits: duplicates and equal distances abound
      for (int f = 0; f < flips; f++) {
        int b = r.nextInt(bits);
        codes[y * longs + (b >>> 6)] ^= 1L << (b & 63);
      }
    }
    return codes;
  }

  private static long[] randomCode(int bits, RandomStream r) {
    int longs = (bits + 63) / 64;
    long[] c = new long[longs];
    for (int k = 0; k < longs; k++) {
      c[k] = r.nextLong();
    }
    if (bits % 64 != 0) {
      c[longs - 1] &= (1L << (bits % 64)) - 1;
    }
    return c;
  }

  private static int bruteForce(BinaryCodes codes, long[] q, int offset) {
    int best = Integer.MAX_VALUE;
    int bestWord = -1;
    for (int y = 0; y < codes.size(); y++) {
      int d = codes.hammingTo(q, offset, y);
      if (d < best) {
        best = d;
        bestWord = y;
      }
    }
    return bestWord;
  }

  /**
   * Searches the batch {@code queries} twice, with {@code hints} and without, asserts that both give
   * every query brute force's answer, and returns those answers.
   */
  private static int[] batchEqualsBruteForce(NearestCodes search, long[] queries, int[] hints, int count,
      String what) {
    int longs = search.codes().longs();
    int[] withHints = new int[count];
    int[] withoutHints = new int[count];
    search.nearest(queries, hints, count, withHints);
    search.nearest(queries, null, count, withoutHints);
    int[] expected = new int[count];
    for (int i = 0; i < count; i++) {
      expected[i] = bruteForce(search.codes(), queries, i * longs);
      assertEquals(expected[i], withHints[i], what + ", query " + i + " (batch, hinted)");
      assertEquals(expected[i], withoutHints[i], what + ", query " + i + " (batch, no hint)");
    }
    return expected;
  }

  /** Every kernel this JVM runs (the vector ones when the test JVM has the Vector API, as Maven's does). */
  private static java.util.List<NearestCodes.Kernel> kernels() {
    java.util.List<NearestCodes.Kernel> ks = new java.util.ArrayList<>();
    for (NearestCodes.Kernel k : NearestCodes.Kernel.values()) {
      if (k.available()) {
        ks.add(k);
      }
    }
    return ks;
  }

  @Test
  void theTestJvmRunsAVectorKernel() {
    // Maven's test JVM is started with --add-modules=jdk.incubator.vector; on any x86-64 CPU with AVX2
    // the vector kernel then runs, so the tests below cover it and not only the scalar scan (at the CPU's
    // width; VectorWidthTest runs them again at 256 bits on an AVX-512 CPU).
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
        && jdk.incubator.vector.LongVector.SPECIES_PREFERRED.vectorBitSize() >= 256) {
      org.junit.jupiter.api.Assertions.assertTrue(NearestCodes.Kernel.VECTOR.available());
    }
  }

  @Test
  void nearestEqualsBruteForceWithTiesToTheLowerRankForEveryCodeLengthAndKernel() {
    for (NearestCodes.Kernel kernel : kernels()) {
      // 510 bits: the longest code the vector kernels' 9-bit counters hold; 511: the scalar fallback.
      for (int bits : new int[] {64, 100, 192, 256, 320, 510, 511}) {
        nearestEqualsBruteForce(kernel, bits);
      }
    }
  }

  private static void nearestEqualsBruteForce(NearestCodes.Kernel kernel, int bits) {
    RandomStream r = RandomStream.fromSeed(bits);
    int longs = (bits + 63) / 64;
    long[][] bases = new long[40][];
    for (int i = 0; i < bases.length; i++) {
      bases[i] = randomCode(bits, r);
    }
    int words = 3_000;
    BinaryCodes codes = BinaryCodes.ofCodes(bits, clusteredCodes(bits, words, r, bases));
    NearestCodes search = new NearestCodes(codes, kernel);
    assertEquals(bits > 510 ? NearestCodes.Kernel.SCALAR : kernel, search.kernel());
    int count = 700;
    long[] queries = new long[count * longs];
    int[] hints = new int[count];
    for (int i = 0; i < count; i++) {
      hints[i] = r.nextInt(words);
      // A word's own code with 0 (exact: d = 0), few, many or half its bits flipped, a random code, or
      // exactly 1 or 2 bits flipped in every 16-bit chunk (the hint's duplicates of lower rank are
      // then found only by the chunk index's radius-1 or radius-2 probes).
      int kind = i % 7;
      if (kind >= 5) {
        codes.copyCode(hints[i], queries, i * longs);
        for (int c = 0; c * 16 < bits; c++) {
          int width = Math.min(16, bits - c * 16);
          int a = r.nextInt(width);
          int b = (a + 1 + r.nextInt(width - 1)) % width;
          for (int bit : kind == 5 ? new int[] {a} : new int[] {a, b}) {
            int pos = c * 16 + bit;
            queries[i * longs + (pos >>> 6)] ^= 1L << (pos & 63);
          }
        }
      } else if (kind == 4) {
        System.arraycopy(randomCode(bits, r), 0, queries, i * longs, longs);
      } else {
        codes.copyCode(hints[i], queries, i * longs);
        int flips = new int[] {0, 3, 40, bits / 2}[kind];
        for (int f = 0; f < flips; f++) {
          int b = r.nextInt(bits);
          queries[i * longs + (b >>> 6)] ^= 1L << (b & 63);
        }
      }
    }
    int[] expected = batchEqualsBruteForce(search, queries, hints, count, kernel.key() + ", " + bits + " bits");
    for (int i = 0; i < count; i++) {
      String what = kernel.key() + ", " + bits + " bits, query " + i;
      assertEquals(expected[i], search.nearest(queries, i * longs), what + " (single)");
      // Any hint, even a far one, gives the same answer.
      int[] one = new int[1];
      long[] q = java.util.Arrays.copyOfRange(queries, i * longs, (i + 1) * longs);
      search.nearest(q, new int[] {words - 1 - hints[i]}, 1, one);
      assertEquals(expected[i], one[0], what + " (other hint)");
    }
  }

  /** The vector kernel of this JVM, if it has one (none without the Vector API). */
  private static java.util.List<NearestCodes.Kernel> vectorKernels() {
    java.util.List<NearestCodes.Kernel> ks = kernels();
    ks.remove(NearestCodes.Kernel.SCALAR);
    return ks;
  }

  /** A query of exactly {@code weight} ones among {@code bits}, at random positions. */
  private static long[] codeOfWeight(int bits, int weight, RandomStream r) {
    int[] order = new int[bits];
    for (int j = 0; j < bits; j++) {
      order[j] = j;
    }
    for (int j = bits - 1; j > 0; j--) {
      int o = r.nextInt(j + 1);
      int t = order[j];
      order[j] = order[o];
      order[o] = t;
    }
    long[] c = new long[(bits + 63) / 64];
    for (int j = 0; j < weight; j++) {
      c[order[j] >>> 6] |= 1L << (order[j] & 63);
    }
    return c;
  }

  /** Query weights the kernels treat differently: none, few, just below, at and above n/2, many, all. */
  private static int[] edgeWeights(int bits) {
    return new int[] {0, 1, Math.max(0, bits / 2 - 1), bits / 2, (bits + 1) / 2, Math.min(bits, bits / 2 + 1),
        bits - 1, bits};
  }

  /**
   * The block test alone, against brute force, word by word: for every bound from 0 (nothing is below
   * it) to n + 2, the words the kernel reports below it are exactly those at distance &lt; bound, for
   * queries of ones fewer than, equal to and more than n/2 (the kernels then add the planes of its ones,
   * or of its zeros), the all-zero and all-one queries, codes with every weight from 0 to n (all-zero and
   * all-one words included), and code lengths that are not multiples of 64 or 8, odd and even.
   */
  @Test
  void theBlockTestReportsExactlyTheWordsBelowEveryBound() {
    for (NearestCodes.Kernel kernel : vectorKernels()) {
      BitSlicedCodes.Kernel k = kernel.vectorKernel();
      for (int bits : new int[] {1, 2, 7, 8, 63, 64, 65, 100, 127, 200, 255, 256, 257, 509, 510}) {
        RandomStream r = RandomStream.fromSeed(1_000 + bits);
        int longs = (bits + 63) / 64;
        // Two and a half blocks: every weight 0 .. n in turn, the rest random (the last block padded).
        int words = 5 * 64 * k.lanes() / 2;
        long[] raw = new long[words * longs];
        for (int y = 0; y < words; y++) {
          long[] c = y % 3 == 0 ? codeOfWeight(bits, y % (bits + 1), r) : randomCode(bits, r);
          System.arraycopy(c, 0, raw, y * longs, longs);
        }
        BinaryCodes codes = BinaryCodes.ofCodes(bits, raw);
        BitSlicedCodes sc = new BitSlicedCodes(codes, k.lanes());
        int[] offsets = new int[sc.slot];
        long[] out = new long[k.lanes()];
        java.util.List<long[]> queries = new java.util.ArrayList<>();
        for (int w : edgeWeights(bits)) {
          queries.add(codeOfWeight(bits, w, r));
        }
        queries.add(randomCode(bits, r));
        for (long[] q : queries) {
          long wc = sc.queryPlanes(q, 0, offsets, 0);
          int weight = (int) (wc >>> 32);
          int count = (int) wc;
          int ones = 0;
          for (long v : q) {
            ones += Long.bitCount(v);
          }
          assertEquals(ones, weight, bits + " bits: |q|");
          org.junit.jupiter.api.Assertions.assertTrue(count % 8 == 0 && count <= sc.slot
              && count >= Math.min(weight, bits - weight), bits + " bits, weight " + weight + ": " + count + " planes");
          for (int bound = 0; bound <= bits + 2; bound++) {
            for (int b = 0; b < sc.blocks; b++) {
              java.util.Arrays.fill(out, 0x5555_5555_5555_5555L);
              boolean any = sc.below(k, b, offsets, 0, weight, count, bound, out);
              boolean anyExpected = false;
              for (int v = 0; v < sc.blockWords(); v++) {
                int y = b * sc.blockWords() + v;
                if (y >= words) {
                  break; // padding: never compared
                }
                boolean expected = codes.hammingTo(q, 0, y) < bound;
                anyExpected |= expected;
                boolean reported = any && ((out[v >>> 6] >>> (v & 63)) & 1) != 0;
                if (expected != reported) {
                  org.junit.jupiter.api.Assertions.fail(kernel.key() + ", " + bits + " bits, query weight " + weight
                      + ", bound " + bound + ", word " + y + " at distance " + codes.hammingTo(q, 0, y)
                      + ": reported " + reported);
                }
              }
              if (anyExpected) {
                org.junit.jupiter.api.Assertions.assertTrue(any);
              }
            }
          }
        }
      }
    }
  }

  /**
   * The whole search with queries of every edge weight (fewer ones than n/2, n/2, more, none, all), on
   * clustered codes with ties, with and without hints: the plain scan's answer.
   */
  @Test
  void nearestEqualsBruteForceForQueriesOfEveryWeight() {
    for (NearestCodes.Kernel kernel : kernels()) {
      for (int bits : new int[] {8, 65, 100, 127, 256, 257, 510}) {
        RandomStream r = RandomStream.fromSeed(2_000 + bits);
        int longs = (bits + 63) / 64;
        long[][] bases = new long[40][];
        for (int i = 0; i < bases.length; i++) {
          bases[i] = i < 4 ? codeOfWeight(bits, new int[] {0, bits, bits / 2, 1}[i], r) : randomCode(bits, r);
        }
        int words = 2_000;
        BinaryCodes codes = BinaryCodes.ofCodes(bits, clusteredCodes(bits, words, r, bases));
        NearestCodes search = new NearestCodes(codes, kernel);
        java.util.List<long[]> qs = new java.util.ArrayList<>();
        for (int w : edgeWeights(bits)) {
          for (int rep = 0; rep < 6; rep++) {
            qs.add(codeOfWeight(bits, w, r));
          }
        }
        int count = qs.size();
        long[] queries = new long[count * longs];
        int[] hints = new int[count];
        for (int i = 0; i < count; i++) {
          System.arraycopy(qs.get(i), 0, queries, i * longs, longs);
          hints[i] = r.nextInt(words);
        }
        batchEqualsBruteForce(search, queries, hints, count, kernel.key() + ", " + bits + " bits");
      }
    }
  }

  @Test
  void anExactCodeMapsToTheLowestRankHoldingIt() {
    // Words 5, 700 and 2,500 share a code; every query equal to it must return 5.
    RandomStream r = RandomStream.fromSeed(11);
    int words = 3_000;
    long[] raw = new long[words * 4];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = r.nextLong();
    }
    for (int y : new int[] {700, 2_500}) {
      System.arraycopy(raw, 5 * 4, raw, y * 4, 4);
    }
    BinaryCodes codes = BinaryCodes.ofCodes(256, raw);
    for (NearestCodes.Kernel kernel : kernels()) {
      NearestCodes search = new NearestCodes(codes, kernel);
      long[] q = new long[4];
      codes.copyCode(2_500, q, 0);
      int[] out = new int[1];
      for (int hint : new int[] {5, 700, 2_500, 0, 2_999}) {
        search.nearest(q, new int[] {hint}, 1, out);
        assertEquals(5, out[0], kernel.key() + ", hint " + hint);
      }
      // The full scan at a far bound: the copy with 60 bits flipped (hint 2,999, ~128 bits away) lies
      // 60 from words 5, 700 and 2,500 and ~128 from the rest (beyond the chunk index), so only the full
      // scan finds them; 5 wins.
      for (int b = 0; b < 60; b++) {
        q[b >>> 6] ^= 1L << (b & 63);
      }
      search.nearest(q, new int[] {2_999}, 1, out);
      assertEquals(5, out[0], kernel.key() + ", far bound");
      search.nearest(q, null, 1, out);
      assertEquals(5, out[0], kernel.key() + ", no hint");
    }
    assertEquals(0, codes.hamming(5, 2_500));
    assertEquals(256 * 3_000 / 8, codes.bytes());
  }
}
