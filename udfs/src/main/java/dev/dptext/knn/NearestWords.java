package dev.dptext.knn;

import dev.dptext.embedding.Embeddings;
import dev.ludovic.netlib.blas.BLAS;
import java.io.Serializable;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exact k-nearest vocabulary words of arbitrary points (noisy embeddings), a batch at a time.
 *
 * <p>The embedding-noise mechanisms map each noisy vector q back to argmin_y ‖φ(y) − q‖ (or the k
 * nearest). Per batch of queries, ‖φ(y) − q‖² = ‖q‖² + ‖φ(y)‖² − 2·q·φ(y) is computed for the whole
 * vocabulary with one single-precision matrix product per block (the −‖φ(y)‖²/2 term rides in the
 * product as an extra coordinate, so scanning a block is one comparison per word) (native BLAS when
 * {@code libblas.so.3} loads, else netlib's Java fallback — logged once), on mean-centred vectors to
 * keep rounding small. The result is then made exact: each query keeps k+{@value #SLACK} candidates,
 * their distances are recomputed in double ({@link Embeddings#squaredDistanceTo}), ordered by
 * (distance, rank), and certified against a bound on the float error of every word left out; a query
 * that cannot be certified is searched by brute force in double. So the answer is always what brute
 * force returns, ties broken by the lower rank, whatever BLAS ran.
 */
public final class NearestWords implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(NearestWords.class);
  private static final AtomicBoolean LOGGED = new AtomicBoolean();

  /** Extra float candidates per query, re-ranked exactly. */
  static final int SLACK = 8;
  private static final int QUERY_BLOCK = 512;
  private static final int WORD_BLOCK = 2048;

  private final Embeddings embeddings;
  /** Row-major |V| × (m+1): the centred vector φ'(y), then −‖φ'(y)‖²/2. */
  private final float[] augmented;
  private final double[] mean;
  private final double maxNorm;

  public NearestWords(Embeddings embeddings) {
    this.embeddings = embeddings;
    int n = embeddings.size();
    int m = embeddings.dim();
    float[] raw = embeddings.rawVectors();
    mean = embeddings.mean();
    // With the query augmented by a 1, one product gives q'·φ'(y) − ‖φ'(y)‖²/2 = (‖q'‖² − d²)/2: the
    // largest scores are the nearest words, and the scan is a single comparison per word.
    int a = m + 1;
    augmented = new float[n * a];
    double max = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (raw[i * m + d] - mean[d]);
        augmented[i * a + d] = c;
        s += (double) c * c;
      }
      augmented[i * a + m] = (float) (-0.5 * s);
      max = Math.max(max, Math.sqrt(s));
    }
    maxNorm = max;
  }

  public Embeddings embeddings() {
    return embeddings;
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
    if (k < 1 || k > size) {
      throw new IllegalArgumentException("k must be in [1, " + size + "], got " + k);
    }
    BLAS blas = BLAS.getInstance();
    if (LOGGED.compareAndSet(false, true)) {
      LOG.info("nearest-word search uses {}", blas.getClass().getSimpleName());
    }
    for (int q0 = 0; q0 < n; q0 += QUERY_BLOCK) {
      searchBlock(blas, queries, q0, Math.min(n, q0 + QUERY_BLOCK), k, outWords, outDistances);
    }
  }

  private void searchBlock(BLAS blas, double[] queries, int q0, int q1, int k, int[] outWords, double[] outDistances) {
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
    // Per query, a max-heap of −2·score = d² − ‖q'‖² (approximate), the `candidates` smallest.
    double[] heapD = new double[qn * candidates];
    int[] heapI = new int[qn * candidates];
    int[] heapSize = new int[qn];
    float[] scores = new float[WORD_BLOCK * qn];
    for (int w0 = 0; w0 < size; w0 += WORD_BLOCK) {
      int wn = Math.min(WORD_BLOCK, size - w0);
      // Column-major C (wn × qn) = W · Qᵀ: scores[j + i*wn] = φ'(w0+j)·q'_i − ‖φ'(w0+j)‖²/2.
      blas.sgemm("T", "N", wn, qn, a, 1.0f, augmented, w0 * a, a, qa, 0, a, 0.0f, scores, 0, wn);
      for (int i = 0; i < qn; i++) {
        int base = i * candidates;
        int hs = heapSize[i];
        // A word enters the heap when −2·score < heap max, i.e. score > −max/2 (exact in double).
        double threshold = hs == candidates ? -0.5 * heapD[base] : Double.NEGATIVE_INFINITY;
        int sb = i * wn;
        for (int j = 0; j < wn; j++) {
          float score = scores[sb + j];
          if (score > threshold) {
            double d2 = -2.0 * score;
            if (hs < candidates) {
              Heaps.push(heapD, heapI, base, hs++, d2, w0 + j);
            } else {
              Heaps.replaceTop(heapD, heapI, base, hs, d2, w0 + j);
            }
            threshold = hs == candidates ? -0.5 * heapD[base] : Double.NEGATIVE_INFINITY;
          }
        }
        heapSize[i] = hs;
      }
    }
    for (int i = 0; i < qn; i++) {
      int q = q0 + i;
      int hs = heapSize[i];
      int base = i * candidates;
      int[] ids = Arrays.copyOfRange(heapI, base, base + hs);
      double[] exact = new double[hs];
      for (int c = 0; c < hs; c++) {
        exact[c] = embeddings.squaredDistanceTo(queries, q * m, ids[c]);
      }
      Integer[] order = Heaps.order(exact, ids);
      boolean certified = true;
      if (hs < size) {
        // Words never kept have approximate d² ≥ the heap's maximum; allow for float rounding of the
        // product (m+1 terms, the last ‖φ'‖²/2) and of the centred coordinates.
        double qNorm = Math.sqrt(qNorm2[i]);
        double margin = 8.0 * a * 0x1.0p-23 * (qNorm * maxNorm + maxNorm * maxNorm + 1)
            + 8.0 * Math.sqrt(m) * 0x1.0p-23 * (qNorm + maxNorm) * maxNorm + 1e-9;
        double restLowerBound = heapD[base] + qNorm2[i] - margin;
        certified = exact[order[k - 1]] < restLowerBound;
      }
      if (certified) {
        for (int c = 0; c < k; c++) {
          outWords[q * k + c] = ids[order[c]];
          outDistances[q * k + c] = Math.sqrt(exact[order[c]]);
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
      } else if (d2 < heapD[0]) {
        Heaps.replaceTop(heapD, heapI, 0, hs, d2, y);
      }
    }
    Integer[] order = Heaps.order(heapD, heapI);
    for (int c = 0; c < k; c++) {
      outWords[q * k + c] = heapI[order[c]];
      outDistances[q * k + c] = Math.sqrt(heapD[order[c]]);
    }
  }
}
