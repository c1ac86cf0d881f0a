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

  /**
   * The allowance for float rounding in an approximate squared distance ‖x‖² + ‖y‖² − 2·fl(x·y) of
   * centred vectors: product rounding (m terms, any order) plus the rounding of the centred
   * coordinates (≤ √m·2^-23·maxNorm per vector).
   */
  static double roundingMargin(int dim, double queryNorm, double maxNorm) {
    return 8.0 * dim * 0x1.0p-23 * queryNorm * maxNorm + 8.0 * Math.sqrt(dim) * 0x1.0p-23 * maxNorm * maxNorm + 1e-9;
  }

  /**
   * One block of the blocked all-pairs search of the partitioned model build: for each query word of
   * a block, its nearest words within a block of target words, by exact distance, and a certified
   * lower bound on the distance to the target words of the block it does not return.
   *
   * <p>Same method as {@link #compute}: float SGEMM scores on vectors centred on the whole
   * vocabulary's mean, {@code keep[i]} + {@value #SLACK} float candidates per query re-ranked with
   * the exact distance of {@link Embeddings#distance} (same arithmetic, same argument order, so the
   * same doubles), and for the words never kept the float bound less {@link #roundingMargin}. The
   * caller merges blocks per query word: the union's (K+1)-th exact distance and the blocks' bounds
   * bound every word left out of the merged row (see {@code dev.dptext.partitioned}).
   *
   * @param queries raw vectors of the query block, row-major
   * @param targets raw vectors of the target block, row-major; the first is rank {@code targetFirst}
   * @param targetFrom the first target row of the block that is in the target set (earlier rows are skipped)
   * @param keep per query, how many exact candidates to return (the row length + 1)
   * @param mean the whole vocabulary's mean; {@code maxNorm} the largest centred norm of the vocabulary
   */
  public static BlockCandidates searchBlock(float[] queries, int qn, float[] targets, int targetFirst, int tn,
      int targetFrom, int dim, double[] mean, double maxNorm, int[] keep) {
    float[] qc = centred(queries, qn, dim, mean);
    float[] tc = centred(targets, tn, dim, mean);
    double[] qNorms2 = norms2(qc, qn, dim);
    double[] tNorms2 = norms2(tc, tn, dim);
    int targetsInSet = tn - targetFrom;
    BLAS blas = BLAS.getInstance();
    double[][] heapD = new double[qn][];
    int[][] heapI = new int[qn][];
    int[] heapSize = new int[qn];
    for (int i = 0; i < qn; i++) {
      int candidates = Math.min(keep[i] + SLACK, targetsInSet);
      heapD[i] = new double[candidates];
      heapI[i] = new int[candidates];
    }
    // Query chunks × target blocks keep the score matrix small (2,048 × 512 floats) whatever the shards' size.
    float[] scores = new float[TARGET_BLOCK * QUERY_BLOCK];
    for (int q0 = 0; q0 < qn; q0 += QUERY_BLOCK) {
      int qb = Math.min(QUERY_BLOCK, qn - q0);
      for (int t0 = targetFrom; t0 < tn; t0 += TARGET_BLOCK) {
        int tb = Math.min(TARGET_BLOCK, tn - t0);
        blas.sgemm("T", "N", tb, qb, dim, 1.0f, tc, t0 * dim, dim, qc, q0 * dim, dim, 0.0f, scores, 0, tb);
        for (int i = q0; i < q0 + qb; i++) {
          double[] hd = heapD[i];
          int[] hi = heapI[i];
          int size = heapSize[i];
          int base = (i - q0) * tb;
          for (int j = 0; j < tb; j++) {
            double d2 = qNorms2[i] + tNorms2[t0 + j] - 2.0 * scores[base + j];
            if (size < hd.length) {
              Heaps.push(hd, hi, 0, size++, d2, t0 + j);
            } else if (d2 < hd[0]) {
              Heaps.replaceTop(hd, hi, 0, size, d2, t0 + j);
            }
          }
          heapSize[i] = size;
        }
      }
    }
    int[][] words = new int[qn][];
    double[][] distances = new double[qn][];
    double[] rest = new double[qn];
    for (int i = 0; i < qn; i++) {
      int size = heapSize[i];
      int[] local = Arrays.copyOf(heapI[i], size);
      double[] exact = new double[size];
      for (int c = 0; c < size; c++) {
        exact[c] = Math.sqrt(Embeddings.squaredDistance(queries, i * dim, targets, local[c] * dim, dim));
      }
      int[] global = new int[size];
      for (int c = 0; c < size; c++) {
        global[c] = targetFirst + local[c];
      }
      Integer[] order = Heaps.order(exact, global);
      int kept = Math.min(keep[i], size);
      words[i] = new int[kept];
      distances[i] = new double[kept];
      for (int c = 0; c < kept; c++) {
        words[i][c] = global[order[c]];
        distances[i][c] = exact[order[c]];
      }
      rest[i] = size == targetsInSet
          ? Double.POSITIVE_INFINITY // every target of the block was a candidate
          : Math.sqrt(Math.max(0.0, heapD[i][0] - roundingMargin(dim, Math.sqrt(qNorms2[i]), maxNorm)));
    }
    return new BlockCandidates(words, distances, rest);
  }

  /**
   * Per query of a block: its nearest target words (ranks, nearest first by (distance, rank)), their
   * exact distances, and a lower bound on the distance to every target word of the block not listed
   * among the candidates considered.
   */
  public record BlockCandidates(int[][] words, double[][] distances, double[] restBound) {}

  private static float[] centred(float[] raw, int n, int dim, double[] mean) {
    float[] out = new float[n * dim];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < dim; d++) {
        out[i * dim + d] = (float) (raw[i * dim + d] - mean[d]);
      }
    }
    return out;
  }

  private static double[] norms2(float[] v, int n, int dim) {
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < dim; d++) {
        s += (double) v[i * dim + d] * v[i * dim + d];
      }
      out[i] = s;
    }
    return out;
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
          } else if (Heaps.before(d2, t0 + j, hd[0], hi[0])) {
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
        double margin = roundingMargin(dim, Math.sqrt(norms2[x]), maxNorm);
        double rest = Math.sqrt(Math.max(0.0, heapD[i][0] - margin));
        bound = Math.min(exact[order[kk]], rest);
      }
      bounds[x] = bound;
    }
  }
}
