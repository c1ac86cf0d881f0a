package dev.dptext.embedding;

/**
 * An 8-bit copy of the embedding rows {@code [start, |V|)} that decides most comparisons
 * "is d(x, y) below t?" without reading y's float row, and says when it cannot.
 *
 * <h2>Why</h2>
 *
 * The exponential samplers test a uniformly drawn target word y against a threshold per round
 * (several rounds per token at small ε). Each test reads one random 4·m-byte row: with 74,000 words
 * of 100 dimensions that is a 30 MB array read at random, bound by memory latency, and two executors
 * on one machine each holding a copy no longer fit the shared cache. The 8-bit copy is 4× smaller
 * (m bytes a row), so the same test reads two cache lines instead of seven.
 *
 * <h2>The bound</h2>
 *
 * Dimension k is quantized on the grid Q_k(c) = lo_k + step_k·c, c ∈ {0, …, 255}, spanning the rows'
 * range in that dimension; row y is stored as the nearest grid point Q(y), and e_y ≥ ‖φ(y) − Q(y)‖
 * (computed at build time, rounded up). For any word x the triangle inequality gives
 *
 * <pre>  ‖φ(x) − Q(y)‖ − e_y  ≤  d(x, y)  ≤  ‖φ(x) − Q(y)‖ + e_y.</pre>
 *
 * {@link #compare} answers BELOW or NOT_BELOW only when this interval, widened on each side by
 * 10⁻⁹·(t + e_y) (far above the ~10⁻¹⁴·t rounding of either double-precision sum), lies entirely on one
 * side of t; otherwise UNKNOWN, and the caller computes the exact distance. So a caller that falls back on
 * UNKNOWN makes exactly the decisions of {@link Embeddings#squaredDistanceBelow}: outputs do not change,
 * only the memory read to reach them.
 *
 * <p>Not serialized: rebuilt from the embeddings in each JVM (|V|·m operations, milliseconds).
 */
public final class QuantizedRows {
  /** Relative widening of every bound, covering the rounding of both distance computations. */
  private static final double MARGIN = 1e-9;

  /** The result of {@link #compare}. */
  public enum Comparison {
    BELOW,
    NOT_BELOW,
    UNKNOWN
  }

  private final float[] vectors;
  private final int dim;
  private final int start;
  private final double[] lo;
  private final double[] step;
  private final byte[] codes;
  private final double[] error;

  private QuantizedRows(Embeddings e, int start) {
    this.vectors = e.rawVectors();
    this.dim = e.dim();
    this.start = start;
    int rows = e.size() - start;
    this.lo = new double[dim];
    this.step = new double[dim];
    for (int k = 0; k < dim; k++) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (int y = start; y < e.size(); y++) {
        min = Math.min(min, vectors[y * dim + k]);
        max = Math.max(max, vectors[y * dim + k]);
      }
      lo[k] = min;
      step[k] = (max - min) / 255.0; // 0 when the dimension is constant: every code is 0, exact
    }
    this.codes = new byte[rows * dim];
    this.error = new double[rows];
    for (int r = 0; r < rows; r++) {
      int row = (start + r) * dim;
      double sum = 0;
      for (int k = 0; k < dim; k++) {
        double v = vectors[row + k];
        int c = step[k] == 0 ? 0 : (int) Math.max(0, Math.min(255, Math.rint((v - lo[k]) / step[k])));
        codes[r * dim + k] = (byte) c;
        double d = v - grid(k, c);
        sum += d * d;
      }
      // Round up: the rounding of this sum and of the square root is far below the margin.
      error[r] = Math.sqrt(sum) * (1 + MARGIN) + Double.MIN_NORMAL;
    }
  }

  /** The 8-bit copy of rows {@code [start, |V|)} of {@code embeddings}. */
  public static QuantizedRows of(Embeddings embeddings, int start) {
    if (start < 0 || start >= embeddings.size()) {
      throw new IllegalArgumentException(
          "start must be a rank in [0, " + embeddings.size() + "), got " + start);
    }
    return new QuantizedRows(embeddings, start);
  }

  /** Q_k(c): the same expression at build and at query time, so both see the same doubles. */
  private double grid(int k, int c) {
    return lo[k] + step[k] * c;
  }

  /**
   * Whether d(x, y) &lt; t, when the 8-bit copy can tell: BELOW and NOT_BELOW are exactly what
   * {@code embeddings.squaredDistanceBelow(x, y, t·t) < t·t} would answer; UNKNOWN leaves it to that call.
   *
   * @param x any word of the vocabulary
   * @param y a word of rank ≥ start
   * @param t the threshold, ≥ 0 (+∞ allowed)
   */
  public Comparison compare(int x, int y, double t) {
    if (t == Double.POSITIVE_INFINITY) {
      return Comparison.BELOW; // every distance between finite vectors is finite
    }
    int r = y - start;
    double e = error[r];
    // The margin is relative to t + e, not to the gap t − e: the exact sum's rounding is relative
    // to d² ≈ t², so a small gap needs an absolute cushion of that size.
    double margin = MARGIN * (t + e);
    double outer = t + e + margin;
    double notBelow = outer * outer; // Σ ≥ this ⇒ d(x, y) ≥ t
    double inner = t - e - margin;
    double below = inner > 0 ? inner * inner : -1; // Σ ≤ this ⇒ d(x, y) < t
    float[] v = vectors;
    int xo = x * dim;
    int co = r * dim;
    double s0 = 0;
    double s1 = 0;
    double s2 = 0;
    double s3 = 0;
    int k = 0;
    // Partial sums only grow, so a prefix already past the outer bound decides NOT_BELOW.
    while (k + 3 < dim) {
      int stop = Math.min(dim - 3, k + 32);
      for (; k < stop; k += 4) {
        double d0 = v[xo + k] - grid(k, codes[co + k] & 0xff);
        double d1 = v[xo + k + 1] - grid(k + 1, codes[co + k + 1] & 0xff);
        double d2 = v[xo + k + 2] - grid(k + 2, codes[co + k + 2] & 0xff);
        double d3 = v[xo + k + 3] - grid(k + 3, codes[co + k + 3] & 0xff);
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
      }
      if ((s0 + s1) + (s2 + s3) >= notBelow) {
        return Comparison.NOT_BELOW;
      }
    }
    for (; k < dim; k++) {
      double d = v[xo + k] - grid(k, codes[co + k] & 0xff);
      s0 += d * d;
    }
    double sum = (s0 + s1) + (s2 + s3);
    if (sum >= notBelow) {
      return Comparison.NOT_BELOW;
    }
    return sum <= below ? Comparison.BELOW : Comparison.UNKNOWN;
  }

  /** The first row held. */
  public int start() {
    return start;
  }

  /** Bytes held (codes, per-row errors, grid), for logs and benchmarks. */
  public long bytes() {
    return codes.length + 8L * error.length + 16L * dim;
  }
}
