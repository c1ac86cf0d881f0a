package dev.dptext.knn;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.BinaryCodes;
import java.io.Serializable;

/**
 * The exact Hamming nearest-word search over a vocabulary's {@link BinaryCodes}, for BRR; the
 * Euclidean one is {@link NearestWords}.
 *
 * <p><b>Exact nearest word.</b> {@link #nearest(long[], int[], int, int[])} returns, for each query,
 * the word of least Hamming distance, ties to the lower rank — the same as a plain scan of every code
 * (tests compare with brute force). It is faster than that scan for reasons that do not change the
 * answer: (1) a hint word's distance b (for BRR, the input word's) bounds the search; (2) when b is
 * small (below 3 per 16-bit chunk: 48 at 256 bits) a multi-index over the codes' chunks
 * ({@link ChunkIndex}) lists every word that can be within b, so only those are compared; otherwise
 * (3) the codes are scanned, and a word whose head alone already reaches the best distance found is
 * abandoned (distances only grow with more bits), which for 256-bit codes skips the tail of almost
 * every word when the bound is well below the 64 that half the bits of an unrelated word differ by;
 * (4) the scan goes over tiles that stay in the L1 cache while every query of a batch passes over
 * them, so a batch reads the table from memory once rather than once per query.
 *
 * <p><b>The full scan's kernel</b> ({@link Kernel}). Where the bound is far (BRR at the ε that matches
 * Laplace ε = 10: the flipped code is ~92 bits from its word, ~128 from the others) every code is
 * read and the scan is bound by scalar POPCNT throughput. When the Vector API is present the scan instead
 * runs over a bit-sliced copy of the codes ({@link BitSlicedCodes}, built on first use per JVM) and
 * computes 512 or 256 words' distances per vector operation (the JVM's vector width) with carry-save adders, adding only the
 * planes where the query has a 1 (or a 0, whichever are fewer) onto the words' precomputed weights; the
 * words it reports below the bound are then compared exactly in rank order, so the answer is the plain
 * scan's.
 */
public final class NearestCodes implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Words per tile: 1,024 heads of 2 longs = 16 KB, half of a typical 32 KB L1 data cache. */
  private static final int TILE = 1024;

  /**
   * Above this bound the head check of a 256-bit scan rarely abandons a word (an unrelated word's
   * head distance is Binomial(128, ½): 64 ± 5.7), so a mispredicted branch would cost more than the
   * tail it saves; the scan then computes whole distances.
   */
  private static final int HEAD_CHECK_LIMIT = 48;

  /** Chunk width of the multi-index (see {@link ChunkIndex}): 2^16-entry tables. */
  private static final int CHUNK_BITS = 16;

  /**
   * The chunk index is probed up to this many bits from each query chunk (1 + 16 + 120 values per
   * chunk); a farther bound means a full scan is cheaper. For 256-bit codes: bounds up to 47.
   */
  private static final int MAX_CHUNK_RADIUS = 2;

  /** Overrides the choice of the full scan's kernel in a JVM: {@code scalar} or {@code vector}. */
  public static final String KERNEL_PROPERTY = "dptext.brr.kernel";

  /**
   * How the full scan computes distances. Both give the same (exact) answers; public so that benchmarks
   * can compare them in one JVM, while the product takes {@link #best()} (or {@value #KERNEL_PROPERTY}).
   * The vector kernel's width is not a kernel of its own: it is fixed per JVM by {@link VectorWidth}
   * (the CPU's widest vectors, or {@code -Ddptext.knn.vectorBits=256|512}), as for the float kernels.
   */
  public enum Kernel {
    /** Four {@code Long.bitCount} per 256-bit word over the row-major codes (with head abandoning). */
    SCALAR("scalar"),
    /** Bit-sliced carry-save counting on long vectors of this JVM's width (512 bits on AVX-512, else 256). */
    VECTOR("vector");

    private final String key;

    Kernel(String key) {
      this.key = key;
    }

    /** The name {@value #KERNEL_PROPERTY} takes. */
    public String key() {
      return key;
    }

    /** Whether it can run in this JVM: the Vector API is present and compiles 256-bit long vectors to hardware. */
    public boolean available() {
      return this == SCALAR || vectorApiBits() >= 256;
    }

    /**
     * The kernel of this JVM: the one named by {@value #KERNEL_PROPERTY} if set, else the vector kernel
     * where it runs on 512-bit vectors (AVX-512, and the width not forced down to 256), else the scalar
     * one. Measured (docs/benchmarks-history.md, BRR, Intel Xeon): the kernel on 512-bit vectors, adding half
     * the planes, runs the full scan ~6× as fast as the scalar one (~2.5× before the halving); on 256-bit
     * vectors, on the same CPU restricted to AVX2 ({@code -XX:UseAVX=2}: no {@code vpternlogq}), it was
     * only ~1.1× before the halving — not enough to choose it unmeasured on AVX2-only CPUs (AMD EPYC,
     * whose scalar POPCNT is cheaper), where {@code -Ddptext.brr.kernel=vector} can be tried. The rule
     * follows the width the kernel would run at, not the CPU's, so that a JVM forced to 256 bits chooses
     * as an AVX2 CPU would.
     */
    public static Kernel best() {
      String forced = System.getProperty(KERNEL_PROPERTY, "").trim();
      if (!forced.isEmpty()) {
        for (Kernel k : values()) {
          if (k.key.equalsIgnoreCase(forced)) {
            if (!k.available()) {
              throw new IllegalStateException("-D" + KERNEL_PROPERTY + "=" + forced + ": needs "
                  + "--add-modules=jdk.incubator.vector and a CPU and JVM with 256-bit vectors");
            }
            return k;
          }
        }
        throw DpTextErrors.error("JVM_PROPERTY_INVALID", "property", KERNEL_PROPERTY, "value", forced, "what",
            "a Hamming search kernel", "choices", "scalar or vector (-Ddptext.knn.vectorBits sets the width)");
      }
      // Asks VectorWidth wherever the Vector API runs, so that a bad width property fails here by name.
      int bits = vectorApiBits();
      return bits >= 256 && VectorWidth.choose(bits) == 512 ? VECTOR : SCALAR;
    }

    BitSlicedCodes.Kernel vectorKernel() {
      if (this != VECTOR) {
        throw new IllegalStateException("not a vector kernel: " + this);
      }
      return new HammingVectorKernel();
    }
  }

  private static volatile Integer vectorApiBits;

  /**
   * The widest long vectors the Vector API compiles to hardware in this JVM, or 0 if the API's module
   * is not in the boot layer (the JVM was not started with {@code --add-modules=jdk.incubator.vector}).
   * Checked before any class that names the API is loaded, so its absence is the scalar path, never an
   * error.
   */
  static int vectorApiBits() {
    Integer v = vectorApiBits;
    if (v == null) {
      int bits = 0;
      if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
        try {
          bits = VectorWidth.Hardware.longBits();
        } catch (LinkageError | RuntimeException e) {
          bits = 0;
        }
      }
      vectorApiBits = v = bits;
    }
    return v;
  }

  private final BinaryCodes codes;
  /** The kernel asked for, or null: {@link Kernel#best()} of the JVM the search runs in. */
  private final Kernel forced;
  /** Built on first use on each JVM (not shipped with the codes: it is derived from them). */
  private transient volatile ChunkIndex chunkIndex;
  private transient volatile Kernel kernel;
  private transient volatile BitSlicedCodes sliced;
  private transient volatile BitSlicedCodes.Kernel vectorKernel;

  public NearestCodes(BinaryCodes codes) {
    this(codes, null);
  }

  /** A search whose full scan uses {@code kernel} (null: {@link Kernel#best()} on each JVM), e.g. to compare them. */
  public NearestCodes(BinaryCodes codes, Kernel kernel) {
    if (kernel != null && !kernel.available()) { // benchmarks and tests ask for a kernel they checked
      throw new IllegalStateException(kernel.key() + " is not available in this JVM");
    }
    this.codes = codes;
    this.forced = kernel;
  }

  /**
   * The full scan's kernel in this JVM. The scalar one for codes longer than {@value
   * BitSlicedCodes#MAX_BITS} bits (the vector kernel's counters have 9 bits).
   */
  public Kernel kernel() {
    Kernel k = kernel;
    if (k == null) {
      k = forced != null ? forced : Kernel.best();
      if (codes.bits() > BitSlicedCodes.MAX_BITS) {
        k = Kernel.SCALAR;
      }
      kernel = k;
    }
    return k;
  }

  /** What the full scan runs on, for logs and benchmarks. */
  public String describeKernel() {
    Kernel k = kernel();
    return k == Kernel.SCALAR ? "scalar Long.bitCount scan" : k.vectorKernel().describe();
  }

  /** The codes searched. */
  public BinaryCodes codes() {
    return codes;
  }

  /** The word nearest to code {@code q[offset .. offset+longs)} in Hamming distance, ties to the lower rank. */
  public int nearest(long[] q, int offset) {
    long[] one = new long[codes.longs()];
    System.arraycopy(q, offset, one, 0, codes.longs());
    int[] out = new int[1];
    nearest(one, null, 1, out);
    return out[0];
  }

  /**
   * For each i &lt; count, {@code out[i]} = the word nearest in Hamming distance to the code
   * {@code queries[i·longs .. (i+1)·longs)}, ties to the lower rank (exact; see the class comment).
   *
   * @param hints optional (may be null): for each query a word whose distance to it starts the search
   *     as an upper bound — typically the word the query was derived from. Any word gives the same
   *     answer; a near one makes the search faster.
   */
  public void nearest(long[] queries, int[] hints, int count, int[] out) {
    if (queries.length < count * codes.longs() || out.length < count || (hints != null && hints.length < count)) {
      throw new IllegalStateException("buffers too small for " + count + " queries");
    }
    int[] best = new int[count];
    int[] bestWord = new int[count];
    int[] scanned = new int[count]; // the queries left for the scan
    int scans = 0;
    for (int i = 0; i < count; i++) {
      if (hints == null) {
        best[i] = Integer.MAX_VALUE;
        bestWord[i] = -1;
        scanned[scans++] = i;
        continue;
      }
      int bound = codes.hammingTo(queries, i * codes.longs(), hints[i]);
      if (bound < chunks(codes) * (MAX_CHUNK_RADIUS + 1)) {
        out[i] = chunkIndex().nearest(codes, queries, i * codes.longs(), hints[i], bound);
      } else {
        // best is exclusive: a word wins with d < best. The hint has d = best − 1, so some word
        // always wins, and the first to reach the least distance (the lowest rank) keeps it.
        best[i] = bound + 1;
        bestWord[i] = -1;
        scanned[scans++] = i;
      }
    }
    if (scans > 0 && kernel() != Kernel.SCALAR) {
      scanSliced(queries, scanned, scans, best, bestWord);
    } else {
      scanTiles(queries, scanned, scans, best, bestWord);
    }
    for (int s = 0; s < scans; s++) {
      out[scanned[s]] = bestWord[scanned[s]];
    }
  }

  /** The full scan on the scalar kernel, tile by tile. */
  private void scanTiles(long[] queries, int[] scanned, int scans, int[] best, int[] bestWord) {
    int n = codes.size();
    for (int start = 0; start < n && scans > 0; start += TILE) {
      int end = Math.min(n, start + TILE);
      for (int s = 0; s < scans; s++) {
        int i = scanned[s];
        long packed = codes.longs() == 4
            ? scan256(queries, i * 4, start, end, best[i], bestWord[i])
            : scan(queries, i * codes.longs(), start, end, best[i], bestWord[i]);
        best[i] = (int) (packed >>> 32);
        bestWord[i] = (int) packed;
      }
    }
  }

  /**
   * The full scan on the vector kernel: block by block (17 KB at 256 bits: L1-resident while every query
   * of the batch passes over it), the kernel lists the words below each query's bound, and those are compared
   * exactly in rank order (a word wins with d &lt; best, so ties keep the lowest rank, as in the plain
   * scan). Almost no block lists any word once a query's best is near its final value.
   */
  private void scanSliced(long[] queries, int[] scanned, int scans, int[] best, int[] bestWord) {
    BitSlicedCodes sc = sliced();
    BitSlicedCodes.Kernel k = vectorKernel;
    int longs = codes.longs();
    int bits = codes.bits();
    int slot = sc.slot;
    int[] offsets = new int[scans * slot];
    int[] weight = new int[scans];
    int[] count = new int[scans];
    for (int s = 0; s < scans; s++) {
      int i = scanned[s];
      long wc = sc.queryPlanes(queries, i * longs, offsets, s * slot);
      weight[s] = (int) (wc >>> 32);
      count[s] = (int) wc;
      // Every distance is at most bits, so bits + 1 is a bound whatever the hint (and fits 9 bits).
      best[i] = Math.min(best[i], bits + 1);
    }
    int n = codes.size();
    int words = sc.blockWords();
    int lanes = sc.lanes;
    long[] below = new long[lanes];
    for (int b = 0; b < sc.blocks; b++) {
      int first = b * words;
      for (int s = 0; s < scans; s++) {
        int i = scanned[s];
        if (!sc.below(k, b, offsets, s * slot, weight[s], count[s], best[i], below)) {
          continue;
        }
        int q = i * longs;
        for (int l = 0; l < lanes; l++) {
          for (long m = below[l]; m != 0; m &= m - 1) {
            int y = first + 64 * l + Long.numberOfTrailingZeros(m);
            if (y >= n) {
              break; // padding
            }
            int d = codes.hammingTo(queries, q, y);
            if (d < best[i]) {
              best[i] = d;
              bestWord[i] = y;
            }
          }
        }
      }
    }
  }

  private BitSlicedCodes sliced() {
    BitSlicedCodes sc = sliced;
    if (sc == null) {
      synchronized (this) {
        sc = sliced;
        if (sc == null) {
          BitSlicedCodes.Kernel k = kernel().vectorKernel();
          sc = new BitSlicedCodes(codes, k.lanes());
          vectorKernel = k;
          sliced = sc;
        }
      }
    }
    return sc;
  }

  /** Codes are cut into 16-bit chunks for the chunk index (the last may be shorter). */
  private static int chunks(BinaryCodes codes) {
    return (codes.bits() + CHUNK_BITS - 1) / CHUNK_BITS;
  }

  private static int chunkValue(BinaryCodes codes, int y, int j) {
    int bit = j * CHUNK_BITS;
    return (int) (codes.code(y, bit >>> 6) >>> (bit & 63)) & 0xFFFF;
  }

  private ChunkIndex chunkIndex() {
    ChunkIndex ix = chunkIndex;
    if (ix == null) {
      synchronized (this) {
        ix = chunkIndex;
        if (ix == null) {
          ix = new ChunkIndex(codes);
          chunkIndex = ix;
        }
      }
    }
    return ix;
  }

  /**
   * Multi-index hashing (Norouzi, Punjani and Fleet, "Fast Exact Search in Hamming Space with
   * Multi-Index Hashing", 2014), exact: the code is cut into c chunks of 16 bits and, for each chunk,
   * the words are listed by that chunk's value (in rank order within a value). If d(q, y) ≤ b then,
   * by pigeonhole, some chunk of y is within ⌊b/c⌋ bits of q's chunk, so probing every value within
   * that radius in every chunk's table finds every word within b of q — in particular every word
   * that can beat or tie the hint word at distance b. The winner among them (least distance, then
   * lowest rank) is the exact answer. Memory: c·(2^16 + 1 + |V|) ints (10.5 MB at 256 bits and
   * 100,000 words).
   */
  private static final class ChunkIndex {
    private final int[][] starts;
    private final int[][] words;

    ChunkIndex(BinaryCodes codes) {
      int c = chunks(codes);
      int n = codes.size();
      starts = new int[c][];
      words = new int[c][];
      for (int j = 0; j < c; j++) {
        int[] start = new int[(1 << CHUNK_BITS) + 1];
        for (int y = 0; y < n; y++) {
          start[chunkValue(codes, y, j) + 1]++;
        }
        for (int v = 0; v < 1 << CHUNK_BITS; v++) {
          start[v + 1] += start[v];
        }
        int[] next = java.util.Arrays.copyOf(start, 1 << CHUNK_BITS);
        int[] list = new int[n];
        for (int y = 0; y < n; y++) {
          list[next[chunkValue(codes, y, j)]++] = y;
        }
        starts[j] = start;
        words[j] = list;
      }
    }

    /**
     * The nearest word to q given that word {@code hint} is at distance {@code bound} ≤ 3c − 1.
     *
     * <p>Chunk radii r_j are chosen as the search goes so that Σ_j (r_j + 1) ≥ best + 1, best being
     * the least distance found so far (Norouzi et al.'s refinement of the pigeonhole bound: a word
     * missed by every probe differs in more than r_j bits in every chunk j, so it is farther than
     * best and cannot win). Each chunk gets ⌈need/(chunks left)⌉ − 1, at most 2; once the radii
     * already probed cover best + 1 the search stops.
     */
    int nearest(BinaryCodes codes, long[] q, int offset, int hint, int bound) {
      int c = starts.length;
      int best = bound;
      int bestWord = hint;
      int covered = 0; // Σ (r_j + 1) over the chunks probed so far
      for (int j = 0; j < c; j++) {
        int need = best + 1 - covered;
        if (need <= 0) {
          break;
        }
        int radius = (need + (c - j) - 1) / (c - j) - 1; // ≤ MAX_CHUNK_RADIUS as best only falls
        covered += radius + 1;
        if (radius < 0) {
          continue;
        }
        int bit = j * CHUNK_BITS;
        int width = Math.min(CHUNK_BITS, codes.bits() - bit);
        int value = (int) (q[offset + (bit >>> 6)] >>> (bit & 63)) & 0xFFFF;
        int[] start = starts[j];
        int[] list = words[j];
        // Every value within `radius` bits of `value`.
        long packed = probe(codes, q, offset, start, list, value, best, bestWord);
        if (radius >= 1) {
          for (int a = 0; a < width; a++) {
            int va = value ^ (1 << a);
            packed = probe(codes, q, offset, start, list, va, (int) (packed >>> 32), (int) packed);
            if (radius >= 2) {
              for (int b = a + 1; b < width; b++) {
                packed = probe(codes, q, offset, start, list, va ^ (1 << b), (int) (packed >>> 32), (int) packed);
              }
            }
          }
        }
        best = (int) (packed >>> 32);
        bestWord = (int) packed;
      }
      return bestWord;
    }

    /** Candidates of one bucket: (least distance, lowest rank) wins; returns (best, bestWord) packed. */
    private static long probe(BinaryCodes codes, long[] q, int offset, int[] start, int[] list, int value,
        int best, int bestWord) {
      int k = start[value];
      int end = start[value + 1];
      if (codes.longs() == 4) {
        long[] h = codes.heads();
        long[] t = codes.tails();
        long q0 = q[offset];
        long q1 = q[offset + 1];
        long q2 = q[offset + 2];
        long q3 = q[offset + 3];
        for (; k < end; k++) {
          int y = list[k];
          int i = 2 * y;
          int d = Long.bitCount(q0 ^ h[i]) + Long.bitCount(q1 ^ h[i + 1])
              + Long.bitCount(q2 ^ t[i]) + Long.bitCount(q3 ^ t[i + 1]);
          if (d < best || (d == best && y < bestWord)) {
            best = d;
            bestWord = y;
          }
        }
      } else {
        for (; k < end; k++) {
          int y = list[k];
          int d = codes.hammingTo(q, offset, y);
          if (d < best || (d == best && y < bestWord)) {
            best = d;
            bestWord = y;
          }
        }
      }
      return pack(best, bestWord);
    }
  }

  private static long pack(int best, int bestWord) {
    return ((long) best << 32) | (bestWord & 0xFFFF_FFFFL);
  }

  /** Words [start, end) against one query of any length; returns (best, bestWord) packed. */
  private long scan(long[] q, int offset, int start, int end, int best, int bestWord) {
    long[] head = codes.heads();
    long[] tail = codes.tails();
    int headLongs = codes.headLongs();
    int tailLongs = codes.tailLongs();
    for (int y = start; y < end; y++) {
      int d = 0;
      int h = y * headLongs;
      for (int k = 0; k < headLongs; k++) {
        d += Long.bitCount(q[offset + k] ^ head[h + k]);
      }
      if (d >= best) {
        continue;
      }
      int t = y * tailLongs;
      for (int k = 0; k < tailLongs && d < best; k++) {
        d += Long.bitCount(q[offset + headLongs + k] ^ tail[t + k]);
      }
      if (d < best) {
        best = d;
        bestWord = y;
      }
    }
    return pack(best, bestWord);
  }

  /** {@link #scan} for 256-bit codes (the default; the hot path), unrolled. */
  private long scan256(long[] q, int offset, int start, int end, int best, int bestWord) {
    long q0 = q[offset];
    long q1 = q[offset + 1];
    long q2 = q[offset + 2];
    long q3 = q[offset + 3];
    long[] h = codes.heads();
    long[] t = codes.tails();
    int y = start;
    while (y < end) {
      if (best <= HEAD_CHECK_LIMIT) {
        for (; y < end; y++) {
          int i = 2 * y;
          int d = Long.bitCount(q0 ^ h[i]) + Long.bitCount(q1 ^ h[i + 1]);
          if (d >= best) {
            continue;
          }
          d += Long.bitCount(q2 ^ t[i]) + Long.bitCount(q3 ^ t[i + 1]);
          if (d < best) {
            best = d;
            bestWord = y;
          }
        }
      } else {
        for (; y < end; y++) {
          int i = 2 * y;
          int d = Long.bitCount(q0 ^ h[i]) + Long.bitCount(q1 ^ h[i + 1])
              + Long.bitCount(q2 ^ t[i]) + Long.bitCount(q3 ^ t[i + 1]);
          if (d < best) {
            best = d;
            bestWord = y;
            if (best <= HEAD_CHECK_LIMIT) {
              y++;
              break; // switch to the abandoning loop
            }
          }
        }
      }
    }
    return pack(best, bestWord);
  }
}
