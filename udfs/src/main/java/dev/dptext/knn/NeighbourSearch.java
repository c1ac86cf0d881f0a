package dev.dptext.knn;

import dev.ludovic.netlib.blas.BLAS;
import dev.dptext.embedding.Embeddings;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.stream.IntStream;

/**
 * Exact all-pairs K-nearest-neighbour search: for every word, its K nearest words in a target rank
 * range, and a certified lower bound on the distance to all the others.
 *
 * <p>Distances come from a matrix product, ‖x−y‖² = ‖x‖² + ‖y‖² − 2·x·y, computed block by block with
 * single-precision GEMM (native BLAS when {@code libblas.so.3} loads, else netlib's Java fallback).
 * Float rounding must not decide the result, so the search keeps K+{@value #SLACK} candidates per
 * word, recomputes their distances exactly with {@link Embeddings#distance(int, int)} and keeps the
 * exact top K (ties by rank). The bound for the words never considered comes from the float scores
 * less a rounding margin: |fl(x·y) − x·y| ≤ m·2^-23·‖x‖·‖y‖ (a generous form of the standard
 * dot-product error bound), so the bound holds whatever BLAS computed the products.
 *
 * <p>Cost O(|V|·|T|·m) time, O(block) extra memory; parallel over the query words.
 */
public final class NeighbourSearch {
  private static final Logger LOG = LoggerFactory.getLogger(NeighbourSearch.class);

  /** Extra float candidates per word, re-ranked exactly. */
  static final int SLACK = 16;

  private static final int QUERY_BLOCK = 512;
  private static final int TARGET_BLOCK = 2048;

  private NeighbourSearch() {}

  /**
   * Computes the table for all words of {@code embeddings} against the target ranks
   * {@code [targetStart, size)}.
   */
  public static NeighbourTable compute(Embeddings embeddings, int targetStart, int k) {
    return compute(embeddings, targetStart, RowLengths.uniform(k));
  }

  /**
   * Computes the table with per-word row lengths for all words of {@code embeddings} against the
   * target ranks {@code [targetStart, size)}.
   */
  public static NeighbourTable compute(Embeddings embeddings, int targetStart, RowLengths rows) {
    int n = embeddings.size();
    if (targetStart < 0 || targetStart >= n) {
      throw new IllegalArgumentException(
          "targetStart must be in [0, " + n + "), got " + targetStart);
    }
    int targets = n - targetStart;
    int[] offsets = new int[n + 1];
    for (int x = 0; x < n; x++) {
      offsets[x + 1] = offsets[x] + rows.forRank(x, targets);
    }
    int dim = embeddings.dim();
    // Distances do not change under translation; centring on the mean keeps the float products small,
    // so cancellation in ‖x‖² + ‖y‖² − 2·x·y cannot swamp the differences between neighbours.
    float[] v = centred(embeddings);
    double[] norms2 = new double[n];
    double maxNorm = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < dim; d++) {
        s += (double) v[i * dim + d] * v[i * dim + d];
      }
      norms2[i] = s;
      maxNorm = Math.max(maxNorm, Math.sqrt(s));
    }
    int[] neighbours = new int[offsets[n]];
    double[] bounds = new double[n];
    BLAS blas = BLAS.getInstance();
    long started = System.nanoTime();
    LOG.debug("neighbour search: {} words, targets [{}, {}), {}, BLAS {}", n, targetStart, n, rows,
        blas.getClass().getSimpleName());
    double maxNormFinal = maxNorm;
    int blocks = (n + QUERY_BLOCK - 1) / QUERY_BLOCK;
    AtomicInteger done = new AtomicInteger();
    IntStream.range(0, blocks)
        .parallel()
        .forEach(
            b -> {
              int q0 = b * QUERY_BLOCK;
              int q1 = Math.min(n, q0 + QUERY_BLOCK);
              searchBlock(
                  embeddings, v, blas, norms2, maxNormFinal, targetStart, offsets, q0, q1,
                  neighbours, bounds);
              done.incrementAndGet();
            });
    LOG.info("neighbour table for {} words × {} targets ({} entries) built in {} s with {}", n, targets, offsets[n],
        String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9),
        blas.getClass().getSimpleName());
    return new NeighbourTable(targetStart, offsets, neighbours, bounds);
  }

  private static float[] centred(Embeddings e) {
    int n = e.size();
    int dim = e.dim();
    float[] raw = e.rawVectors();
    double[] mean = e.mean();
    float[] out = new float[raw.length];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < dim; d++) {
        out[i * dim + d] = (float) (raw[i * dim + d] - mean[d]);
      }
    }
    return out;
  }

  private static void searchBlock(
      Embeddings e, float[] v, BLAS blas, double[] norms2, double maxNorm, int targetStart,
      int[] offsets, int q0, int q1, int[] neighbours, double[] bounds) {
    int n = e.size();
    int dim = e.dim();
    int qn = q1 - q0;
    int targets = n - targetStart;
    // Per query: a max-heap of the row length + SLACK smallest approximate squared distances.
    double[][] heapD = new double[qn][];
    int[][] heapI = new int[qn][];
    for (int i = 0; i < qn; i++) {
      int candidates = Math.min(offsets[q0 + i + 1] - offsets[q0 + i] + SLACK, targets);
      heapD[i] = new double[candidates];
      heapI[i] = new int[candidates];
    }
    int[] heapSize = new int[qn];
    float[] scores = new float[TARGET_BLOCK * qn];
    for (int t0 = targetStart; t0 < n; t0 += TARGET_BLOCK) {
      int tn = Math.min(TARGET_BLOCK, n - t0);
      // Column-major C (tn × qn) = T · Qᵀ, i.e. scores[j + i*tn] = y_{t0+j} · x_{q0+i}.
      blas.sgemm("T", "N", tn, qn, dim, 1.0f, v, t0 * dim, dim, v, q0 * dim, dim, 0.0f, scores, 0, tn);
      for (int i = 0; i < qn; i++) {
        double xn = norms2[q0 + i];
        double[] hd = heapD[i];
        int[] hi = heapI[i];
        int size = heapSize[i];
        int candidates = hd.length;
        int base = i * tn;
        for (int j = 0; j < tn; j++) {
          double d2 = xn + norms2[t0 + j] - 2.0 * scores[base + j];
          if (size < candidates) {
            Heaps.push(hd, hi, 0, size++, d2, t0 + j);
          } else if (Heaps.admits(hd, hi, 0, d2, t0 + j)) {
            Heaps.replaceTop(hd, hi, 0, size, d2, t0 + j);
          }
        }
        heapSize[i] = size;
      }
    }
    for (int i = 0; i < qn; i++) {
      int x = q0 + i;
      int kk = offsets[x + 1] - offsets[x];
      int size = heapSize[i];
      int[] ids = Arrays.copyOf(heapI[i], size);
      double[] exact = new double[size];
      for (int c = 0; c < size; c++) {
        exact[c] = e.distance(x, ids[c]);
      }
      Integer[] order = Heaps.order(exact, ids);
      for (int c = 0; c < kk; c++) {
        neighbours[offsets[x] + c] = ids[order[c]];
      }
      double bound;
      if (size == n - targetStart) {
        // Every target word was a candidate: the bound is the nearest word left out of the row.
        bound = size > kk ? exact[order[kk]] : Double.POSITIVE_INFINITY;
      } else {
        // Words never considered have approximate d² ≥ the heap's maximum; allow for float rounding.
        // Product rounding, plus the rounding of the centred coordinates (≤ √m·2^-23·maxNorm per vector).
        double margin = 8.0 * dim * 0x1.0p-23 * Math.sqrt(norms2[x]) * maxNorm
            + 8.0 * Math.sqrt(dim) * 0x1.0p-23 * maxNorm * maxNorm + 1e-9;
        double rest = Math.sqrt(Math.max(0.0, heapD[i][0] - margin));
        bound = Math.min(exact[order[kk]], rest);
      }
      bounds[x] = bound;
    }
  }
}
