package dev.dptext.embedding;

import dev.dptext.random.RandomStream;
import java.io.Serializable;

/**
 * n-bit binary codes of a vocabulary's embeddings, packed 64 to a {@code long}, for the BRR
 * mechanism (Carvalho et al., "Private Text Sanitization with Binary Embeddings and Randomized
 * Response").
 *
 * <p><b>Binarisation: random hyperplanes (SimHash, Charikar 2002) on centred vectors.</b> Bit i of
 * word y is [g_i · (φ(y) − μ) ≥ 0], with μ the vocabulary's mean vector and g_1..g_n standard normal
 * vectors drawn from a fixed public seed. For two words at angle θ (after centring) each bit differs
 * with probability θ/π, so the Hamming distance estimates the angle and n bits keep neighbourhoods
 * in proportion to n; it needs no training, works for any n (including n &gt; m), and uses only the
 * embedding table and a public seed — never the private text, so the codes are public like the
 * embeddings. Centring matters for GloVe, whose vectors share a large common component that would
 * otherwise put most words on the same side of most hyperplanes.
 *
 * <p><b>Layout.</b> Each code is split in a head (its first ⌈L/2⌉ longs, L = ⌈n/64⌉) and a tail
 * (the rest), stored in two arrays, so a scan that can abandon a word after its head streams only
 * half the memory. Memory: |V|·n/8 bytes either way (3.2 MB for 100,000 words at 256 bits, against
 * 40 MB of float vectors).
 *
 * <p>The exact Hamming nearest-word search over these codes is {@link dev.dptext.knn.NearestCodes}.
 */
public final class BinaryCodes implements Serializable {
  private static final long serialVersionUID = 2L;

  /** The public seed of the hyperplanes unless another is given. */
  public static final long DEFAULT_SEED = 0x5eed_b1c0_de5L;

  private final int bits;
  private final int longs;
  private final int headLongs;
  private final int tailLongs;
  private final long[] head;
  private final long[] tail;

  private BinaryCodes(int bits, long[] codes) {
    this.bits = bits;
    this.longs = (bits + 63) / 64;
    this.headLongs = (longs + 1) / 2;
    this.tailLongs = longs - headLongs;
    int n = codes.length / longs;
    this.head = new long[n * headLongs];
    this.tail = new long[n * tailLongs];
    for (int y = 0; y < n; y++) {
      System.arraycopy(codes, y * longs, head, y * headLongs, headLongs);
      System.arraycopy(codes, y * longs + headLongs, tail, y * tailLongs, tailLongs);
    }
  }

  /** Binarises {@code e} with {@code bits} random hyperplanes drawn from {@code seed}. */
  public static BinaryCodes of(Embeddings e, int bits, long seed) {
    if (bits < 1 || bits > 4096) { // BRR's bits setting is checked to [1, 4096] first
      throw new IllegalStateException("the number of bits must be in [1, 4096], got " + bits);
    }
    int n = e.size();
    int m = e.dim();
    float[] v = e.rawVectors();
    double[] mean = e.mean();
    double[] planes = new double[bits * m];
    RandomStream r = RandomStream.fromSeed(seed);
    for (int i = 0; i < planes.length; i += 2) {
      // Box–Muller with StrictMath (fdlibm: the same bits on every JVM and in the Python engine; Math's
      // log/sin/cos may be intrinsics that differ in the last bit). sqrt is correctly rounded everywhere.
      double u1 = 1.0 - r.nextDouble();
      double u2 = r.nextDouble();
      double rad = StrictMath.sqrt(-2 * StrictMath.log(u1));
      double angle = 2 * Math.PI * u2;
      planes[i] = rad * StrictMath.cos(angle);
      if (i + 1 < planes.length) {
        planes[i + 1] = rad * StrictMath.sin(angle);
      }
    }
    int longs = (bits + 63) / 64;
    long[] codes = new long[n * longs];
    double[] c = new double[m];
    for (int y = 0; y < n; y++) {
      for (int d = 0; d < m; d++) {
        c[d] = v[y * m + d] - mean[d];
      }
      for (int b = 0; b < bits; b++) {
        // A plain loop in component order (Java never fuses the multiply and the add): the sign, and so
        // the bit, is specified exactly (docs/engine-spec.md).
        double dot = 0;
        for (int d = 0; d < m; d++) {
          dot += planes[b * m + d] * c[d];
        }
        if (dot >= 0) {
          codes[y * longs + (b >>> 6)] |= 1L << (b & 63);
        }
      }
    }
    return new BinaryCodes(bits, codes);
  }

  /**
   * Codes given directly, {@code longs = ⌈bits/64⌉} per word (bits beyond {@code bits} must be 0): for
   * tests and tools that need codes with a chosen structure.
   */
  public static BinaryCodes ofCodes(int bits, long[] codes) {
    int longs = (bits + 63) / 64;
    if (bits < 1 || codes.length % longs != 0) { // tests' and tools' own codes
      throw new IllegalStateException(codes.length + " longs do not hold whole " + bits + "-bit codes");
    }
    return new BinaryCodes(bits, codes.clone());
  }

  public int bits() {
    return bits;
  }

  /** Longs per code. */
  public int longs() {
    return longs;
  }

  public int size() {
    return head.length / headLongs;
  }

  /** Long k of word y's code. */
  public long code(int y, int k) {
    return k < headLongs ? head[y * headLongs + k] : tail[y * tailLongs + k - headLongs];
  }

  /** Copies word y's code into {@code out[offset .. offset+longs)}. */
  public void copyCode(int y, long[] out, int offset) {
    System.arraycopy(head, y * headLongs, out, offset, headLongs);
    System.arraycopy(tail, y * tailLongs, out, offset + headLongs, tailLongs);
  }

  /** The Hamming distance between words i and j. */
  public int hamming(int i, int j) {
    int d = 0;
    for (int k = 0; k < longs; k++) {
      d += Long.bitCount(code(i, k) ^ code(j, k));
    }
    return d;
  }

  /** The Hamming distance between {@code q[offset .. offset+longs)} and word j. */
  public int hammingTo(long[] q, int offset, int j) {
    int d = 0;
    int h = j * headLongs;
    for (int k = 0; k < headLongs; k++) {
      d += Long.bitCount(q[offset + k] ^ head[h + k]);
    }
    int t = j * tailLongs;
    for (int k = 0; k < tailLongs; k++) {
      d += Long.bitCount(q[offset + headLongs + k] ^ tail[t + k]);
    }
    return d;
  }

  /** The codes' first halves ({@link #headLongs()} longs per word), shared, for the search in {@code knn}. */
  public long[] heads() {
    return head;
  }

  /** The codes' second halves ({@link #tailLongs()} longs per word), shared, for the search in {@code knn}. */
  public long[] tails() {
    return tail;
  }

  /** Longs per code in {@link #heads()}: ⌈longs/2⌉. */
  public int headLongs() {
    return headLongs;
  }

  /** Longs per code in {@link #tails()}. */
  public int tailLongs() {
    return tailLongs;
  }

  /** Memory of the codes in bytes. */
  public long bytes() {
    return 8L * (head.length + tail.length);
  }
}
