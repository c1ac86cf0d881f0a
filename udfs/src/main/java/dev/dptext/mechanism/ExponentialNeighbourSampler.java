package dev.dptext.mechanism;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowDistances;
import dev.dptext.random.RandomStream;
import java.io.Serializable;

/**
 * Exact sampling from the exponential mechanism over a target rank range T = [t, |V|):
 *
 * <pre>  P(y | x) = exp(−ε·d(x,y)/2) / Σ_{y'∈T} exp(−ε·d(x,y')/2),   y ∈ T</pre>
 *
 * with d the Euclidean distance of {@link Embeddings#distance(int, int)}, or, with a cap γ (TEM, the
 * truncated exponential mechanism), the capped distance min(d, γ) in its place throughout (SanText's
 * cap is +∞: the same numbers and the same draws, bit for bit).
 *
 * <h2>Method: rejection sampling with a neighbour envelope</h2>
 *
 * Write w(y) = exp(−ε·d(x,y)/2). A {@link NeighbourTable} gives x's K nearest target words H_x and a
 * bound b_x ≤ d(x,y) for every target y ∉ H_x, so w(y) ≤ g_out = exp(−ε·b_x/2) there. The envelope
 * g(y) = max(w(y), g_out) ≥ w(y) splits into a flat part g_out on all of T plus an "excess"
 * max(0, w(y) − g_out) on H_x. One round draws from g — a uniform y ∈ T with probability
 * |T|·g_out / G, else y ∈ H_x with probability ∝ excess(y), G being the total — and accepts y with
 * probability w(y)/g(y): always for an excess draw (there g = w), and
 * min(1, exp(−ε·(d(x,y) − b_x)/2)) for a uniform draw (tested as d &lt; b_x − 2·ln(u)/ε, which lets the
 * distance computation stop early, see {@link Embeddings#squaredDistanceBelow}). Accepted draws follow P(y | x) exactly. The
 * expected number of rounds is G / Σ_T w; the per-ε tables take O(|V|·K) memory, never O(|V|²).
 *
 * <h2>Numerics</h2>
 *
 * Weights are taken relative to the largest one; branch and acceptance tests use full-precision
 * uniforms ({@link RandomStream#nextUniform()}, {@link RandomStream#nextLogUniform()}) rather than 53-bit
 * ones, so a branch or an acceptance with a tiny positive probability keeps it. Within a neighbour
 * row the draw is an inverse-CDF lookup with a 53-bit uniform: a word whose share of its row's excess
 * mass is below 2^-53 is drawn with probability off by at most 2^-53. Every exp, log and log1p on the
 * sampling path is {@link StrictMath}'s (fdlibm), not {@link Math}'s (whose results may differ by an
 * ulp between JVMs and CPUs): the tables and draws are the same bits everywhere, and dptext's Python
 * engine, which implements the same fdlibm functions, reproduces them exactly.
 */
final class ExponentialNeighbourSampler implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Embeddings embeddings;
  private final NeighbourTable table;
  private final double epsilon;
  /** γ: distances are capped at it (+∞: no cap). */
  private final double cap;
  private final int targetStart;
  private final int targetSize;
  /** Per word, the cumulative excess weights of its neighbours (laid out like the table's rows),
   *  normalised to end at 1. */
  private final double[] cumulativeExcess;
  /** Per word, P(uniform branch); 0 when H_x is the whole target set. */
  private final double[] uniformBranch;

  /**
   * A sampler without tables or vectors (the partitioned path): only {@link #envelope(int[],
   * double[], double)} and {@link #sample(CandidateEnvelope, RandomStream, ProposalTest)} work.
   */
  private ExponentialNeighbourSampler(int size, int targetStart, double epsilon) {
    MechanismDefinition.EPSILON.check(epsilon);
    this.embeddings = null;
    this.table = null;
    this.epsilon = epsilon;
    this.cap = Double.POSITIVE_INFINITY;
    this.targetStart = targetStart;
    this.targetSize = size - targetStart;
    this.cumulativeExcess = null;
    this.uniformBranch = null;
  }

  static ExponentialNeighbourSampler withoutTables(int size, int targetStart, double epsilon) {
    return new ExponentialNeighbourSampler(size, targetStart, epsilon);
  }

  ExponentialNeighbourSampler(Embeddings embeddings, NeighbourTable table, double epsilon) {
    this(embeddings, table, epsilon, Double.POSITIVE_INFINITY);
  }

  /** With distances capped at {@code cap} = γ &gt; 0 (+∞: none): P(y | x) ∝ exp(−ε·min(d(x,y), γ)/2). */
  ExponentialNeighbourSampler(Embeddings embeddings, NeighbourTable table, double epsilon, double cap) {
    MechanismDefinition.EPSILON.check(epsilon);
    if (!(cap > 0)) { // +∞, or TEM's γ checked positive
      throw new IllegalStateException("the distance cap must be > 0, got " + cap);
    }
    this.cap = cap;
    if (table.size() != embeddings.size()) { // the model's own table over its own embeddings
      throw new IllegalStateException(
          "the neighbour table has " + table.size() + " rows for " + embeddings.size() + " words");
    }
    this.embeddings = embeddings;
    this.table = table;
    this.epsilon = epsilon;
    this.targetStart = table.targetStart();
    this.targetSize = embeddings.size() - targetStart;
    int n = embeddings.size();
    this.cumulativeExcess = new double[table.rawNeighbours().length];
    this.uniformBranch = new double[n];
    // Σ row lengths distances (8.9 M at 25,000 words: seconds on one core, on the critical path of a
    // small run): the words' rows are independent, so blocks of words go to the common pool's threads.
    // Each word's numbers are computed exactly as one thread would, so the tables do not depend on it;
    // the distances are computed four words at a time (RowDistances), also to the same bits.
    int blocks = (n + BUILD_BLOCK - 1) / BUILD_BLOCK;
    int longest = table.k();
    java.util.stream.IntStream.range(0, blocks).parallel().forEach(b -> {
      double[] d = new double[longest];
      for (int x = b * BUILD_BLOCK, end = Math.min(n, x + BUILD_BLOCK); x < end; x++) {
        int k = table.rowLength(x);
        // embeddings.distance(x, y) for the row's words, bit for bit, on the Vector API when present.
        RowDistances.distances(embeddings, x, table.rawNeighbours(), table.rowOffset(x), k, d, 0);
        for (int j = 0; j < k && cap != Double.POSITIVE_INFINITY; j++) {
          d[j] = Math.min(d[j], cap);
        }
        uniformBranch[x] = envelope(d, k, Math.min(table.outsideBound(x), cap), epsilon, targetSize,
            cumulativeExcess, table.rowOffset(x));
      }
    });
  }

  /** Words per parallel block of the table build: small enough to balance the long rows of the first words. */
  private static final int BUILD_BLOCK = 256;

  /**
   * One input word's envelope, from the distances {@code d[0..k)} to its candidates (nearest first)
   * and the bound b_x on every other target: writes the candidates' cumulative excess weights,
   * normalised to end at 1, into {@code cumulative[offset ..)} and returns P(uniform branch). Shared
   * by the broadcast sampler (all words at once) and the partitioned path (the row's words, from
   * candidate tables joined in), so both draw from the same numbers.
   */
  static double envelope(
      double[] d, int k, double bound, double epsilon, int targetSize, double[] cumulative, int offset) {
    double reference = Math.min(d[0], bound); // the largest weight is exp(−ε·reference/2)
    double logFlat = -0.5 * epsilon * (bound - reference); // log(g_out), relative
    double flat = StrictMath.exp(logFlat);
    double total = 0;
    for (int j = 0; j < k; j++) {
      double w = StrictMath.exp(-0.5 * epsilon * (d[j] - reference));
      total += Math.max(0.0, w - flat);
      cumulative[offset + j] = total;
    }
    for (int j = 0; j < k; j++) {
      cumulative[offset + j] /= total > 0 ? total : 1;
    }
    double logUniform = StrictMath.log(targetSize) + logFlat; // log(|T|·g_out)
    if (total == 0) {
      return 1.0;
    } else if (logUniform == Double.NEGATIVE_INFINITY) {
      return 0.0;
    }
    // U / (U + E) = 1 / (1 + E/U), computed in log space so that neither side overflows.
    double logExcess = StrictMath.log(total);
    return StrictMath.exp(
        logUniform >= logExcess
            ? -StrictMath.log1p(StrictMath.exp(logExcess - logUniform))
            : (logUniform - logExcess) - StrictMath.log1p(StrictMath.exp(logUniform - logExcess)));
  }

  /**
   * P(y | x) = exp(−ε·d(x,y)/2) / Σ_{y'} exp(−ε·d(x,y')/2) over the targets, written into
   * {@code out[y]} for every target y (other entries untouched): the exact distribution {@link #sample}
   * draws from, by brute force over the targets, in log space (for evaluation, not the hot path).
   */
  void exactConditional(int x, double[] out) {
    double[] logits = new double[targetSize];
    double max = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < targetSize; k++) {
      logits[k] = -epsilon * Math.min(embeddings.distance(x, targetStart + k), cap) / 2;
      max = Math.max(max, logits[k]);
    }
    double total = 0;
    for (int k = 0; k < targetSize; k++) {
      total += Math.exp(logits[k] - max);
    }
    for (int k = 0; k < targetSize; k++) {
      out[targetStart + k] = Math.exp(logits[k] - max) / total;
    }
  }

  /** |V|, the length of {@link #exactConditional}'s output. */
  int vocabularySize() {
    return embeddings.size();
  }

  double epsilon() {
    return epsilon;
  }

  /** Draws y ∈ T with P(y | x) ∝ exp(−ε·min(d(x,y), γ)/2). */
  int sample(int x, RandomStream random) {
    float[] v = embeddings.rawVectors();
    int dim = embeddings.dim();
    int xo = x * dim;
    // Embeddings.squaredDistanceBelow's value, bit for bit, on the Vector API when present.
    return sample(uniformBranch[x], Math.min(table.outsideBound(x), cap), cumulativeExcess, table.rawNeighbours(),
        table.rowOffset(x), table.rowLength(x), random,
        (y, limit) -> RowDistances.squaredDistanceBelow(v, xo, v, y * dim, dim, limit) < limit);
  }

  /** Draws from the envelope of an input word whose candidate row came from elsewhere. */
  int sample(CandidateEnvelope e, RandomStream random, ProposalTest test) {
    return sample(e.uniformBranch(), e.bound(), e.cumulativeExcess(), e.neighbours(), 0,
        e.neighbours().length, random, test);
  }

  /** The envelope of an input word from its candidate row (nearest first) and the outside bound. */
  CandidateEnvelope envelope(int[] neighbours, double[] distances, double bound) {
    double[] cumulative = new double[neighbours.length];
    double pUniform = envelope(distances, neighbours.length, bound, epsilon, targetSize, cumulative, 0);
    return new CandidateEnvelope(neighbours, cumulative, pUniform, bound);
  }

  /**
   * The rejection loop, once for both paths. The row's candidates are {@code neighbours[offset ..
   * offset+length)} with cumulative excess weights at the same positions of {@code cumulative}; the
   * draws are, per round: a full-precision uniform for the branch (skipped when the uniform branch is
   * certain), then either a uniform target and a log-uniform for the acceptance test, or one 53-bit
   * uniform for the excess pick.
   */
  private int sample(double pUniform, double bound, double[] cumulative, int[] neighbours, int offset,
      int length, RandomStream random, ProposalTest test) {
    while (true) {
      if (pUniform == 1.0 || random.nextUniform() < pUniform) {
        int y = targetStart + random.nextInt(targetSize);
        // Accept iff log u < −ε·(d − b)/2, i.e. d < b − 2·log(u)/ε: drawing u first lets the distance
        // computation stop as soon as its partial sum passes that threshold. With a cap γ (b ≤ γ here)
        // the test is min(d, γ) < threshold: always true when threshold > γ, else d < threshold.
        double threshold = bound - 2.0 * random.nextLogUniform() / epsilon;
        if (threshold > cap || test.closerThan(y, threshold * threshold)) {
          return y;
        }
      } else {
        return neighbours[offset + pickExcess(cumulative, offset, length, random.nextDouble())];
      }
    }
  }

  /**
   * The first index j of the row {@code cumulative[row .. row+length)} whose cumulative weight is &gt; u
   * (binary search over the row): the inverse-CDF pick of one row, shared with CusText's group rows.
   */
  static int pickExcess(double[] cumulative, int row, int length, double u) {
    int lo = row;
    int hi = row + length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] > u) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo - row;
  }
}
