package dev.dptext.knn;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.Embeddings;
import dev.ludovic.netlib.blas.BLAS;
import dev.ludovic.netlib.blas.JavaBLAS;
import dev.ludovic.netlib.blas.NativeBLAS;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exact k-nearest vocabulary words of arbitrary points (noisy embeddings), a batch at a time.
 *
 * <p>The embedding-noise mechanisms map each noisy vector q back to argmin_y ‖φ(y) − q‖ (or the k
 * nearest). Per batch of queries, ‖φ(y) − q‖² = ‖q‖² + ‖φ(y)‖² − 2·q·φ(y) is scored for the whole
 * vocabulary in single precision, on mean-centred vectors to keep rounding small; the −‖φ(y)‖²/2 term
 * rides in the product as an extra coordinate, so each word costs one comparison. Three kernels
 * compute these scores ({@link Backend}, decided in each JVM, logged once): a pure-Java Vector API
 * kernel that fuses the product with the scan, native BLAS SGEMM over L2-sized word blocks when
 * {@code libblas.so.3} loads, or netlib's Java SGEMM. The result is then made exact: each query
 * keeps k+{@value #SLACK} candidates, their distances are recomputed in double ({@link
 * Embeddings#squaredDistanceTo}), ordered by (distance, rank), and certified against a bound on the
 * float error of every word left out (a bound valid for any summation order, so for every kernel); a
 * query that cannot be certified is searched by brute force in double. So the answer is always what
 * brute force returns, ties broken by the lower rank, whatever kernel ran.
 */
public final class NearestWords implements Serializable {
  private static final long serialVersionUID = 2L;
  private static final Logger LOG = LoggerFactory.getLogger(NearestWords.class);
  private static final AtomicBoolean LOGGED = new AtomicBoolean();

  /** Extra float candidates per query, re-ranked exactly. */
  static final int SLACK = 8;
  private static final int QUERY_BLOCK = 512;

  /** Overrides the choice of backend in a JVM: {@code native}, {@code vector} or {@code java}. */
  public static final String BACKEND_PROPERTY = "dptext.knn.backend";

  /**
   * How the float scores are computed. All three give the same (exact) answers. Public so that
   * benchmarks can compare them side by side in one JVM; the product chooses with {@link #BACKEND_PROPERTY}.
   */
  public enum Backend {
    /** Native BLAS SGEMM (OpenBLAS via netlib's JNI binding) and a Vector API or scalar scan. */
    NATIVE_BLAS("native"),
    /** The pure-Java Vector API kernel, product and scan fused ({@code VectorKernels.Fused}). */
    JAVA_VECTOR("vector"),
    /** netlib's Java SGEMM and a scalar scan: no native BLAS and no Vector API on this JVM. */
    JAVA_BLAS("java");

    final String key;

    Backend(String key) {
      this.key = key;
    }

    /**
     * The backend of this JVM: the one named by {@value #BACKEND_PROPERTY} if set, else the fastest
     * measured, which is the fused Vector API kernel wherever the Vector API runs: on an AVX2 CPU (AMD
     * EPYC, 256-bit vectors) it beat OpenBLAS 0.3.21 by 1.13× and on an AVX-512 CPU (Intel Xeon,
     * 512-bit vectors) by 4× (docs/benchmarks-history.md, "Exact nearest words on 512-bit vectors"): it never packs the vocabulary per call
     * and never writes the score matrix. Native BLAS is next, netlib's Java SGEMM the last resort.
     */
    static Backend best() {
      String forced = System.getProperty(BACKEND_PROPERTY, "").trim();
      if (!forced.isEmpty()) {
        for (Backend b : values()) {
          if (b.key.equalsIgnoreCase(forced)) {
            if (!b.available()) {
              throw new IllegalStateException("-D" + BACKEND_PROPERTY + "=" + forced + ": that backend is "
                  + "not available in this JVM (" + b.requirement() + ")");
            }
            return b;
          }
        }
        throw DpTextErrors.error("JVM_PROPERTY_INVALID", "property", BACKEND_PROPERTY, "value", forced, "what",
            "a nearest-word backend", "choices", "native, vector or java");
      }
      if (vectorApi()) {
        return JAVA_VECTOR;
      }
      return NATIVE_BLAS.available() ? NATIVE_BLAS : JAVA_BLAS;
    }

    /** Whether this backend can run in this JVM. */
    public boolean available() {
      switch (this) {
        case NATIVE_BLAS:
          return BLAS.getInstance() instanceof NativeBLAS;
        case JAVA_VECTOR:
          return vectorApi();
        default:
          return true;
      }
    }

    private String requirement() {
      switch (this) {
        case NATIVE_BLAS:
          return "needs libblas.so.3, e.g. Debian's libopenblas0, loadable by netlib's JNIBLAS";
        case JAVA_VECTOR:
          return "needs --add-modules=jdk.incubator.vector and a CPU with 256-bit vectors";
        default:
          return "always available";
      }
    }
  }

  private static volatile Boolean vectorApi;

  /**
   * Whether the incubating Vector API is usable: its module is in the boot layer (the JVM was started
   * with {@code --add-modules=jdk.incubator.vector}) and 256-bit vectors are compiled to hardware.
   * Checked before any class that names the API is loaded, so its absence is a slower path, never an
   * error.
   */
  static boolean vectorApi() {
    Boolean v = vectorApi;
    if (v == null) {
      boolean ok = false;
      if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
        try {
          ok = VectorWidth.Hardware.floatBits() >= 256;
        } catch (LinkageError | RuntimeException e) {
          ok = false;
        }
      }
      vectorApi = v = ok;
    }
    return v;
  }

  private final Embeddings embeddings;
  private final double[] mean;
  private final double maxNorm;
  private final Backend backend;
  private transient ScoreKernel kernel;

  /** An index on the best backend of this JVM (and of each JVM it is deserialized in). */
  public NearestWords(Embeddings embeddings) {
    this(embeddings, null);
  }

  /** An index on the given backend ({@code null}: the best available, decided in each JVM). */
  public NearestWords(Embeddings embeddings, Backend backend) {
    if (backend != null && !backend.available()) {
      throw new IllegalStateException("nearest-word backend " + backend + " is not available in this JVM");
    }
    this.embeddings = embeddings;
    this.backend = backend;
    mean = embeddings.mean();
    int n = embeddings.size();
    int m = embeddings.dim();
    float[] raw = embeddings.rawVectors();
    double max = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (raw[i * m + d] - mean[d]);
        s += (double) c * c;
      }
      max = Math.max(max, Math.sqrt(s));
    }
    maxNorm = max;
    kernel = buildKernel();
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    kernel = buildKernel(); // the kernel and its layout are rebuilt where the index is used
  }

  /**
   * The words in the layout of the chosen kernel. With the query augmented by a 1, one product gives
   * q'·φ'(y) − ‖φ'(y)‖²/2 = (‖q'‖² − d²)/2: the largest scores are the nearest words.
   */
  private ScoreKernel buildKernel() {
    int n = embeddings.size();
    int m = embeddings.dim();
    return kernel(backend, augmented(embeddings.rawVectors(), 0, n, m, mean), n, m + 1, 0);
  }

  /**
   * Rows [from, to) of row-major raw vectors, centred on {@code mean} and rounded to float, each
   * followed by −‖φ'(y)‖²/2 of its float coordinates (summed in double, then rounded): the words'
   * layout of {@link ScoreKernel}.
   */
  static float[] augmented(float[] raw, int from, int to, int m, double[] mean) {
    int a = m + 1;
    float[] augmented = new float[(to - from) * a];
    for (int i = 0; i < to - from; i++) {
      double s = 0;
      int r = (from + i) * m;
      for (int d = 0; d < m; d++) {
        float c = (float) (raw[r + d] - mean[d]);
        augmented[i * a + d] = c;
        s += (double) c * c;
      }
      augmented[i * a + m] = (float) (-0.5 * s);
    }
    return augmented;
  }

  /**
   * The score kernel of {@code backend} ({@code null}: {@link Backend#best()}) over {@code size}
   * augmented rows (see {@link #augmented}); row j is offered as word {@code firstWord + j}.
   */
  static ScoreKernel kernel(Backend backend, float[] augmented, int size, int width, int firstWord) {
    Backend b = backend != null ? backend : Backend.best();
    switch (b) {
      case NATIVE_BLAS:
        return new BlasScoreKernel(NativeBLAS.getInstance(),
            vectorApi() ? new VectorKernels.Scan() : new ScalarRowScan(), augmented, size, width, firstWord);
      case JAVA_VECTOR:
        return new VectorKernels.Fused(augmented, size, width, firstWord);
      default:
        return new BlasScoreKernel(JavaBLAS.getInstance(), new ScalarRowScan(), augmented, size, width, firstWord);
    }
  }

  /**
   * The allowance for float rounding in an approximate squared distance ‖q'‖² − 2·fl(s) from a
   * kernel score s = q'·φ'(y) + a_y of float-centred vectors, |q'| = {@code qNorm} and every
   * |φ'(y)| ≤ {@code maxNorm}, against the exact squared distance of the uncentred vectors: so a word
   * whose approximate d² is ≥ h has exact d² ≥ h − margin.
   *
   * <p>It is {@link NeighbourSearch#roundingMargin}, whose derivation (see there) holds for any query
   * point, not only for vocabulary words, because it uses of the query only what is also true here:
   *
   * <ul>
   *   <li>its float-centred coordinates are fl32(q_d − μ_d) with the subtraction in double (here q_d is a
   *       double, there a float widened exactly; either way each coordinate is within u·(1 + 2^-29) of
   *       q_d − μ_d relatively, u = 2^-24), its augmented coordinate is 1 (exact), and qNorm is the norm
   *       of those float coordinates, summed in double;
   *   <li>the score is m+1 float products summed in any order, with or without fused multiply-adds, so it
   *       is off by ≤ γ_{m+1}·(qNorm·maxNorm + |a_y|) (Cauchy–Schwarz over the first m terms), whatever
   *       the kernel; a_y = fl(−‖φ'(y)‖²/2) is the words' augmented coordinate, made by {@link #augmented}
   *       for both searches;
   *   <li>centring moves the query and the word by at most u·(1 + 2u)·qNorm and u·(1 + 2u)·maxNorm, so,
   *       by the triangle inequality, the distance D by δ ≤ u·(1 + 2u)·(qNorm + maxNorm) and D² by ≤
   *       δ·(2·(qNorm + maxNorm) + δ); the bound allows 4u·(qNorm + maxNorm)² = 2^-22·(qNorm + maxNorm)²,
   *       about twice that. This term grows with the square of the query's norm, as the error does: a query
   *       far outside the vocabulary (a tiny ε) gets a valid, wider bound, is certified less often and is
   *       answered by brute force, never wrongly. Its spare half also covers the double rounding of
   *       ‖q'‖² (relative ~m·2^-53) in the certificate.
   * </ul>
   *
   * <p>An earlier margin here allowed about eight times the product error, for no reason the proof needs.
   * The gain is one bound, derived once, for both searches, rather than speed: on GloVe 100-d (100,000
   * words, IMDb tokens with Laplace noise) neither margin sent any query to brute force at ε = 6 or 12
   * (docs/benchmarks-history.md, "NearestWords on NeighbourSearch's rounding margin").
   */
  static double margin(int m, double qNorm, double maxNorm) {
    return NeighbourSearch.roundingMargin(m, qNorm, maxNorm);
  }

  public Embeddings embeddings() {
    return embeddings;
  }

  /** What computes the float scores here, e.g. for a benchmark's report. */
  public String describeKernel() {
    return kernel.describe();
  }

  /**
   * The k nearest words of each query.
   *
   * @param queries row-major n × m points
   * @param n number of queries
   * @param k neighbours wanted (1 ≤ k ≤ |V|)
   * @param outWords n × k ranks, nearest first
   * @param outDistances n × k Euclidean distances (exact, double)
   */
  public void search(double[] queries, int n, int k, int[] outWords, double[] outDistances) {
    int size = embeddings.size();
    if (k < 1 || k > size) { // the mechanisms' validate(spec, model) keeps k <= |V|
      throw new IllegalStateException("k must be in [1, " + size + "], got " + k);
    }
    if (LOGGED.compareAndSet(false, true)) {
      LOG.info("nearest-word search uses {}", kernel.describe());
    }
    for (int q0 = 0; q0 < n; q0 += QUERY_BLOCK) {
      searchBlock(queries, q0, Math.min(n, q0 + QUERY_BLOCK), k, outWords, outDistances);
    }
  }

  private void searchBlock(double[] queries, int q0, int q1, int k, int[] outWords, double[] outDistances) {
    int m = embeddings.dim();
    int a = m + 1;
    int size = embeddings.size();
    int qn = q1 - q0;
    int candidates = Math.min(k + SLACK, size);
    float[] qa = new float[qn * a];
    double[] qNorm2 = new double[qn];
    for (int i = 0; i < qn; i++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (queries[(q0 + i) * m + d] - mean[d]);
        qa[i * a + d] = c;
        s += (double) c * c;
      }
      qa[i * a + m] = 1f;
      qNorm2[i] = s;
    }
    Candidates found = new Candidates(qn, candidates);
    kernel.scan(qa, qn, found);
    for (int i = 0; i < qn; i++) {
      int q = q0 + i;
      int hs = found.size[i];
      int[] ids = found.words(i);
      double[] exact = new double[hs];
      for (int c = 0; c < hs; c++) {
        exact[c] = embeddings.squaredDistanceTo(queries, q * m, ids[c]);
      }
      Heaps.sort(exact, ids, hs); // ids is the query's own copy
      boolean certified = true;
      if (hs < size) {
        // Words never kept have approximate d² ≥ the heap's maximum; allow for float rounding of the
        // product (m+1 terms, the last ‖φ'‖²/2, in any order) and of the centred coordinates.
        double margin = margin(m, Math.sqrt(qNorm2[i]), maxNorm);
        double restLowerBound = found.worst(i) + qNorm2[i] - margin;
        certified = exact[k - 1] < restLowerBound;
      }
      if (certified) {
        for (int c = 0; c < k; c++) {
          outWords[q * k + c] = ids[c];
          outDistances[q * k + c] = Math.sqrt(exact[c]);
        }
      } else {
        bruteForce(queries, q, k, outWords, outDistances);
      }
    }
  }

  /** Exact search over every word, in double; for queries the float pass could not certify. */
  void bruteForce(double[] queries, int q, int k, int[] outWords, double[] outDistances) {
    int m = embeddings.dim();
    int size = embeddings.size();
    double[] heapD = new double[k];
    int[] heapI = new int[k];
    int hs = 0;
    for (int y = 0; y < size; y++) {
      double d2 = embeddings.squaredDistanceTo(queries, q * m, y);
      if (hs < k) {
        Heaps.push(heapD, heapI, 0, hs++, d2, y);
      } else if (Heaps.before(d2, y, heapD[0], heapI[0])) {
        Heaps.replaceTop(heapD, heapI, 0, hs, d2, y);
      }
    }
    Heaps.sort(heapD, heapI, hs);
    for (int c = 0; c < k; c++) {
      outWords[q * k + c] = heapI[c];
      outDistances[q * k + c] = Math.sqrt(heapD[c]);
    }
  }
}
