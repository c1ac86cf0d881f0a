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
 * vocabulary with one single-precision matrix product per block (native BLAS when
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
  private static final int WORD_BLOCK = 4096;

  private final Embeddings embeddings;
  private final float[] centred;
  private final double[] mean;
  private final double[] norms2;
  private final double maxNorm;

  public NearestWords(Embeddings embeddings) {
    this.embeddings = embeddings;
    int n = embeddings.size();
    int m = embeddings.dim();
    float[] raw = embeddings.rawVectors();
    mean = new double[m];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < m; d++) {
        mean[d] += raw[i * m + d];
      }
    }
    for (int d = 0; d < m; d++) {
      mean[d] /= n;
    }
    centred = new float[raw.length];
    norms2 = new double[n];
    double max = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (raw[i * m + d] - mean[d]);
        centred[i * m + d] = c;
        s += (double) c * c;
      }
      norms2[i] = s;
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
    int size = embeddings.size();
    int qn = q1 - q0;
    int candidates = Math.min(k + SLACK, size);
    float[] qc = new float[qn * m];
    double[] qNorm2 = new double[qn];
    for (int i = 0; i < qn; i++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (queries[(q0 + i) * m + d] - mean[d]);
        qc[i * m + d] = c;
        s += (double) c * c;
      }
      qNorm2[i] = s;
    }
    double[] heapD = new double[qn * candidates];
    int[] heapI = new int[qn * candidates];
    int[] heapSize = new int[qn];
    float[] scores = new float[WORD_BLOCK * qn];
    for (int w0 = 0; w0 < size; w0 += WORD_BLOCK) {
      int wn = Math.min(WORD_BLOCK, size - w0);
      // Column-major C (wn × qn) = W · Qᵀ: scores[j + i*wn] = φ'(w0+j) · q'_i.
      blas.sgemm("T", "N", wn, qn, m, 1.0f, centred, w0 * m, m, qc, 0, m, 0.0f, scores, 0, wn);
      for (int i = 0; i < qn; i++) {
        int base = i * candidates;
        int hs = heapSize[i];
        double top = hs == candidates ? heapD[base] : Double.POSITIVE_INFINITY;
        int sb = i * wn;
        for (int j = 0; j < wn; j++) {
          double d2 = norms2[w0 + j] - 2.0 * scores[sb + j]; // + ‖q'‖², the same for every word
          if (hs < candidates) {
            Heaps.push(heapD, heapI, base, hs++, d2, w0 + j);
            top = hs == candidates ? heapD[base] : Double.POSITIVE_INFINITY;
          } else if (d2 < top) {
            Heaps.replaceTop(heapD, heapI, base, hs, d2, w0 + j);
            top = heapD[base];
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
        // Words never kept have approximate d² ≥ the heap's maximum; allow for float rounding.
        double qNorm = Math.sqrt(qNorm2[i]);
        double margin = 8.0 * m * 0x1.0p-23 * qNorm * maxNorm
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
