package dev.dptext.knn;

import dev.dptext.embedding.Embeddings;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToDoubleFunction;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exact all-pairs K-nearest-neighbour search: for every word, its K nearest words in a target rank
 * range, and a certified lower bound on the distance to all the others.
 *
 * <p>Float scores come from the score kernel {@link NearestWords} uses ({@link NearestWords.Backend#best()}:
 * the fused Vector API kernel wherever the Vector API runs, else native BLAS SGEMM, else netlib's Java
 * SGEMM), on vectors centred on the vocabulary mean with −‖y'‖²/2 as an extra coordinate, so a score
 * s = x'·y' − ‖y'‖²/2 gives the approximate squared distance ‖x'‖² − 2s. Float rounding must not decide
 * the result, so each word keeps its row length + {@value #SLACK} (+ 1/32) candidates, their distances are
 * recomputed exactly with {@link Embeddings#distance(int, int)} and ordered by (distance, rank). Words
 * never kept have an approximate squared distance ≥ the candidates' largest; less a rounding margin
 * valid for any summation order ({@link #roundingMargin}), that is a lower bound on their exact
 * distance. The row is certified when its last word is strictly nearer than that bound (so it is the
 * exact top K whatever kernel ran); a row that is not (many ties or duplicates at its end) is searched
 * again by brute force in double. The bound stored is min(the (K+1)-th candidate's exact distance, the
 * float bound), or the exact (K+1)-th distance after a brute-force search.
 *
 * <p>Cost O(|V|·|T|·m) time, O(block) extra memory besides the kernel's copy of the targets; parallel
 * over blocks of query words.
 */
public final class NeighbourSearch {
  private static final Logger LOG = LoggerFactory.getLogger(NeighbourSearch.class);

  /** Extra float candidates per word, re-ranked exactly. */
  static final int SLACK = 16;

  /** Queries per kernel call: a multiple of the fused kernel's six-query groups. */
  static final int QUERY_BLOCK = 510;

  private NeighbourSearch() {}

  private static volatile Boolean available;

  /**
   * Whether this JVM can compute neighbour tables at all. Every score kernel is reached through {@link NearestWords},
   * which names netlib's BLAS ({@code dev.ludovic.netlib}: its native and Java SGEMM backends), and the bytecode
   * verifier loads those names when it links that class: a JVM without netlib on its classpath cannot link it,
   * whatever backend it would pick — a Spark Connect client's classpath alone (a Databricks serverless JAR task),
   * where loading it fails with {@code NoClassDefFoundError: dev/ludovic/netlib/blas/BLAS}. Such a JVM never
   * computes a table (a Connect client's tasks run on the server); this says so without the error, e.g. for
   * the default model's cache, whose file names the kernel ({@link #kernel}).
   */
  public static boolean available() {
    Boolean a = available;
    if (a == null) {
      boolean links;
      try {
        Class.forName("dev.dptext.knn.NearestWords", true, NeighbourSearch.class.getClassLoader());
        links = true;
      } catch (LinkageError | ClassNotFoundException e) {
        links = false;
      }
      available = a = links;
    }
    return a;
  }

  /**
   * The score kernel {@link #compute(Embeddings, int, RowLengths)} runs on in this JVM, e.g. {@code vector-256},
   * {@code native}, {@code java}: every kernel gives the same rows, but a bound is min(the exact (K+1)-th
   * distance, the float bound), and the float bound is the kernel's own arithmetic, so a stored table is the
   * table this JVM would compute only if it was computed on the same kernel (what a cache of tables keys on).
   *
   * @throws NoClassDefFoundError where no kernel links ({@link #available()} is false)
   */
  public static String kernel() {
    NearestWords.Backend b = NearestWords.Backend.best();
    return b == NearestWords.Backend.JAVA_VECTOR
        ? b.key + "-" + VectorWidth.choose(VectorWidth.Hardware.floatBits())
        : b.key;
  }

  /**
   * Computes the table for all words of {@code embeddings} against the target ranks
   * {@code [targetStart, size)}.
   */
  public static NeighbourTable compute(Embeddings embeddings, int targetStart, int k) {
    return compute(embeddings, targetStart, RowLengths.uniform(k));
  }

  /**
   * Computes the table with per-word row lengths for all words of {@code embeddings} against the
   * target ranks {@code [targetStart, size)}, on this JVM's best score kernel.
   */
  public static NeighbourTable compute(Embeddings embeddings, int targetStart, RowLengths rows) {
    return compute(embeddings, targetStart, rows, null);
  }

  /**
   * As {@link #compute(Embeddings, int, RowLengths)} on a given score kernel ({@code null}: the best of
   * this JVM, see {@link NearestWords#BACKEND_PROPERTY}). Every backend gives the same rows.
   */
  public static NeighbourTable compute(Embeddings embeddings, int targetStart, RowLengths rows,
      NearestWords.Backend backend) {
    int n = embeddings.size();
    if (targetStart < 0 || targetStart >= n) { // SanText+'s validate keeps its start inside the vocabulary
      throw new IllegalStateException(
          "targetStart must be in [0, " + n + "), got " + targetStart);
    }
    if (backend != null && !backend.available()) {
      throw new IllegalStateException("score kernel " + backend + " is not available in this JVM");
    }
    int targets = n - targetStart;
    int[] offsets = new int[n + 1];
    for (int x = 0; x < n; x++) {
      offsets[x + 1] = Math.addExact(offsets[x], rows.forRank(x, targets));
    }
    int dim = embeddings.dim();
    float[] raw = embeddings.rawVectors();
    // Distances do not change under translation; centring on the mean keeps the float products small,
    // so cancellation in ‖x‖² + ‖y‖² − 2·x·y cannot swamp the differences between neighbours.
    double[] mean = embeddings.mean();
    double[] norms2 = new double[n];
    double maxNorm = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int d = 0; d < dim; d++) {
        float c = (float) (raw[i * dim + d] - mean[d]);
        s += (double) c * c;
      }
      norms2[i] = s;
      maxNorm = Math.max(maxNorm, Math.sqrt(s));
    }
    ScoreKernel kernel = NearestWords.kernel(backend,
        NearestWords.augmented(raw, targetStart, n, dim, mean), targets, dim + 1, targetStart);
    int[] neighbours = new int[offsets[n]];
    double[] bounds = new double[n];
    long started = System.nanoTime();
    LOG.debug("neighbour search: {} words, targets [{}, {}), {}, {}", n, targetStart, n, rows, kernel.describe());
    double maxNormFinal = maxNorm;
    int blocks = (n + QUERY_BLOCK - 1) / QUERY_BLOCK;
    AtomicInteger bruteForced = new AtomicInteger();
    IntStream.range(0, blocks)
        .parallel()
        .forEach(
            b -> bruteForced.addAndGet(searchQueries(embeddings, kernel, mean, norms2, maxNormFinal, targetStart,
                offsets, b * QUERY_BLOCK, Math.min(n, (b + 1) * QUERY_BLOCK), neighbours, bounds)));
    LOG.info("neighbour table for {} words × {} targets ({} entries) built in {} s with {}{}", n, targets,
        offsets[n], String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9),
        kernel.describe(), bruteForced.get() == 0 ? "" : "; " + bruteForced.get() + " rows by brute force");
    return new NeighbourTable(targetStart, offsets, neighbours, bounds);
  }

  /**
   * The allowance for float rounding in the approximate squared distance d̃² = ‖x'‖² − 2·fl(s) of a
   * word x of centred norm {@code queryNorm} (‖x'‖, its float-centred vector), where the kernel score
   * s = x'·y' + a_y with a_y = fl(−‖y'‖²/2), against the exact squared distance D² of the raw vectors,
   * for every target y of centred norm ≤ {@code maxNorm}. With u = 2^-24 (float unit roundoff) and
   * γ_n = n·u/(1 − n·u):
   *
   * <ul>
   *   <li>products and sum: m+1 terms whose absolute values add up to ≤ ‖x'‖·‖y'‖ + |a_y|, summed in
   *       any order, with or without fused multiply-adds, are off by ≤ γ_{m+1}·(that sum): doubled in d̃²,
   *       2·γ_{m+1}·(queryNorm·maxNorm + (1+u)·maxNorm²/2);
   *   <li>the augmented coordinate: a_y is −‖y'‖²/2 rounded once to float, so ‖y'‖² + 2·a_y ≤ u·maxNorm²
   *       (allowed 1.01 times that, for the double sum it rounds);
   *   <li>centring: each float coordinate is within u (relative) of the exact centred one, which moves
   *       a distance D' ≤ queryNorm + maxNorm by ≤ u·(queryNorm + maxNorm)·(1 + 2u), so D'² by ≤ 2·u·(queryNorm +
   *       maxNorm)²·(1 + 3u); allowed twice that, which also covers the relative 2^-50 or so of the double
   *       arithmetic (norms, exact distances); 1e-9 more for good measure.
   * </ul>
   *
   * So a target whose d̃² ≥ h has D² ≥ h − margin. Nothing here uses that the query is a vocabulary
   * word: {@link NearestWords} certifies its noisy queries with this same margin. (An earlier, looser
   * margin — about eight times the product error and a √m-fold centring term — left the row ends of
   * long rows, 4,096 words for frequent words, uncertified: they are often closer together than that.)
   */
  static double roundingMargin(int dim, double queryNorm, double maxNorm) {
    double u = 0x1.0p-24;
    double nu = (dim + 1) * u;
    if (!(nu < 0.5)) {
      return Double.POSITIVE_INFINITY; // no useful bound: every row is searched by brute force
    }
    double gamma = nu / (1 - nu);
    double sum = queryNorm + maxNorm;
    return 2 * gamma * (queryNorm * maxNorm + (1 + u) * 0.5 * maxNorm * maxNorm)
        + 1.01 * u * maxNorm * maxNorm
        + 4 * u * sum * sum
        + 1e-9;
  }

  /**
   * Float candidates kept for a row of {@code row} words: {@value #SLACK} more, and 1/32 more for long
   * rows, whose ends sit among many nearly equidistant words; capped at the target set.
   */
  static int capacity(int row, int targets) {
    return (int) Math.min((long) row + SLACK + row / 32, targets);
  }

  /** Queries [q0, q1) of {@link #compute}: fills their rows and bounds; returns how many were brute-forced. */
  private static int searchQueries(Embeddings e, ScoreKernel kernel, double[] mean, double[] norms2, double maxNorm,
      int targetStart, int[] offsets, int q0, int q1, int[] neighbours, double[] bounds) {
    int n = e.size();
    int dim = e.dim();
    int qn = q1 - q0;
    int targets = n - targetStart;
    float[] qa = queries(e.rawVectors(), q0, q1, dim, mean);
    int[] capacities = new int[qn];
    for (int i = 0; i < qn; i++) {
      capacities[i] = capacity(offsets[q0 + i + 1] - offsets[q0 + i], targets);
    }
    Candidates found = new Candidates(capacities);
    kernel.scan(qa, qn, found);
    int bruteForced = 0;
    for (int i = 0; i < qn; i++) {
      int x = q0 + i;
      int kk = offsets[x + 1] - offsets[x];
      IntToDoubleFunction distance = y -> e.distance(x, y);
      Ranked r = rank(found, i, targets, kk, norms2[x], roundingMargin(dim, Math.sqrt(norms2[x]), maxNorm), distance);
      if (!r.certified) {
        r = bruteForce(targetStart, n, kk, distance);
        bruteForced++;
      }
      System.arraycopy(r.ids, 0, neighbours, offsets[x], kk);
      // Every target outside the row is a candidate after it, or was never kept (≥ r.rest).
      bounds[x] = r.ids.length > kk ? Math.min(r.distances[kk], r.rest) : r.rest;
    }
    return bruteForced;
  }

  /** Rows [q0, q1) centred on {@code mean} and rounded to float, each followed by 1: the kernels' query layout. */
  private static float[] queries(float[] raw, int q0, int q1, int dim, double[] mean) {
    int a = dim + 1;
    float[] qa = new float[(q1 - q0) * a];
    for (int i = 0; i < q1 - q0; i++) {
      for (int d = 0; d < dim; d++) {
        qa[i * a + d] = (float) (raw[(q0 + i) * dim + d] - mean[d]);
      }
      qa[i * a + dim] = 1f;
    }
    return qa;
  }

  private static double norm2(float[] qa, int i, int dim) {
    double s = 0;
    int o = i * (dim + 1);
    for (int d = 0; d < dim; d++) {
      s += (double) qa[o + d] * qa[o + d];
    }
    return s;
  }

  /**
   * One query's candidates, in (exact distance, id) order, and a lower bound {@code rest} on the exact
   * distance of every target that is not among them (+∞ when there is none).
   *
   * @param certified whether the first {@code want} candidates are certainly the query's {@code want}
   *     nearest targets by (distance, id): the want-th is strictly nearer than {@code rest}
   */
  private record Ranked(int[] ids, double[] distances, double rest, boolean certified) {}

  /**
   * Re-ranks query i's float candidates by exact distance; {@code targets} is the size of the target
   * set, {@code qNorm2} the query's squared centred norm and {@code margin} its rounding allowance.
   */
  private static Ranked rank(Candidates found, int i, int targets, int want, double qNorm2, double margin,
      IntToDoubleFunction distance) {
    int hs = found.size[i];
    int[] ids = found.words(i);
    double[] exact = new double[hs];
    for (int c = 0; c < hs; c++) {
      exact[c] = distance.applyAsDouble(ids[c]);
    }
    Heaps.sort(exact, ids, hs); // ids is the query's own copy
    if (hs == targets) {
      return new Ranked(ids, exact, Double.POSITIVE_INFINITY, true); // every target is a candidate
    }
    // Targets never kept have approximate d² = ‖x'‖² − 2·s ≥ the heap's maximum; allow for float rounding.
    double rest = Math.sqrt(Math.max(0.0, found.worst(i) + qNorm2 - margin));
    return new Ranked(ids, exact, rest, exact[Math.min(want, hs) - 1] < rest);
  }

  /**
   * The {@code want} + 1 nearest targets of [from, to) by (exact distance, id), in double; {@code rest}
   * is the last one's distance (every other target is at least as far), or +∞ if there are no more.
   */
  private static Ranked bruteForce(int from, int to, int want, IntToDoubleFunction distance) {
    int capacity = Math.min(want + 1, to - from);
    double[] hd = new double[capacity];
    int[] hi = new int[capacity];
    int hs = 0;
    for (int y = from; y < to; y++) {
      double d = distance.applyAsDouble(y);
      if (hs < capacity) {
        Heaps.push(hd, hi, 0, hs++, d, y);
      } else if (Heaps.before(d, y, hd[0], hi[0])) {
        Heaps.replaceTop(hd, hi, 0, hs, d, y);
      }
    }
    Heaps.sort(hd, hi, hs);
    int[] ids = java.util.Arrays.copyOf(hi, hs);
    double[] sorted = java.util.Arrays.copyOf(hd, hs);
    return new Ranked(ids, sorted, hs > want ? sorted[want] : Double.POSITIVE_INFINITY, true);
  }

  /**
   * One block of the blocked all-pairs search of the partitioned model build, on this JVM's best
   * score kernel: for each query word of a block, its nearest words within a block of target words, by
   * exact distance, and a certified lower bound on the distance to the target words of the block it
   * does not return.
   *
   * <p>Same method as {@link #compute}: float kernel scores on vectors centred on the whole
   * vocabulary's mean, {@code keep[i]} + {@value #SLACK} (+ 1/32) float candidates per query re-ranked with
   * the exact distance of {@link Embeddings#distance} (same arithmetic, same argument order, so the
   * same doubles), certified (else searched by brute force over the block), and for the words never
   * kept the float bound less {@link #roundingMargin}. The caller merges blocks per query word: the
   * union's (K+1)-th exact distance and the blocks' bounds bound every word left out of the merged row
   * (see {@code dev.dptext.classic.partitioned}).
   *
   * @param queries raw vectors of the query block, row-major
   * @param targets raw vectors of the target block, row-major; the first is rank {@code targetFirst}
   * @param targetFrom the first target row of the block that is in the target set (earlier rows are skipped)
   * @param keep per query, how many exact candidates to return (the row length + 1)
   * @param mean the whole vocabulary's mean; {@code maxNorm} the largest centred norm of the vocabulary
   */
  public static BlockCandidates searchBlock(float[] queries, int qn, float[] targets, int targetFirst, int tn,
      int targetFrom, int dim, double[] mean, double maxNorm, int[] keep) {
    return searchBlock(queries, qn, targets, targetFirst, tn, targetFrom, dim, mean, maxNorm, keep, null);
  }

  /**
   * As {@link #searchBlock(float[], int, float[], int, int, int, int, double[], double, int[])} on a
   * given score kernel ({@code null}: the best of this JVM).
   */
  public static BlockCandidates searchBlock(float[] queries, int qn, float[] targets, int targetFirst, int tn,
      int targetFrom, int dim, double[] mean, double maxNorm, int[] keep, NearestWords.Backend backend) {
    int targetsInSet = tn - targetFrom;
    int[][] words = new int[qn][];
    double[][] distances = new double[qn][];
    double[] rest = new double[qn];
    int bruteForced = 0;
    if (targetsInSet <= 0) {
      for (int i = 0; i < qn; i++) {
        words[i] = new int[0];
        distances[i] = new double[0];
        rest[i] = Double.POSITIVE_INFINITY;
      }
      return new BlockCandidates(words, distances, rest, 0);
    }
    // Local ids: target row j of the block is offered as j (rows before targetFrom are not in the kernel).
    ScoreKernel kernel = NearestWords.kernel(backend, NearestWords.augmented(targets, targetFrom, tn, dim, mean),
        targetsInSet, dim + 1, targetFrom);
    for (int q0 = 0; q0 < qn; q0 += QUERY_BLOCK) {
      int q1 = Math.min(qn, q0 + QUERY_BLOCK);
      float[] qa = queries(queries, q0, q1, dim, mean);
      int[] capacities = new int[q1 - q0];
      for (int i = q0; i < q1; i++) {
        capacities[i - q0] = capacity(keep[i], targetsInSet);
      }
      Candidates found = new Candidates(capacities);
      kernel.scan(qa, q1 - q0, found);
      for (int i = q0; i < q1; i++) {
        int qi = i;
        IntToDoubleFunction distance =
            y -> Math.sqrt(Embeddings.squaredDistance(queries, qi * dim, targets, y * dim, dim));
        double qNorm2 = norm2(qa, i - q0, dim);
        Ranked r = rank(found, i - q0, targetsInSet, keep[i], qNorm2,
            roundingMargin(dim, Math.sqrt(qNorm2), maxNorm), distance);
        if (!r.certified) {
          r = bruteForce(targetFrom, tn, keep[i], distance);
          bruteForced++;
        }
        int kept = Math.min(keep[i], r.ids.length);
        words[i] = new int[kept];
        distances[i] = Arrays.copyOf(r.distances, kept);
        for (int c = 0; c < kept; c++) {
          words[i][c] = targetFirst + r.ids[c];
        }
        rest[i] = r.rest;
      }
    }
    return new BlockCandidates(words, distances, rest, bruteForced);
  }

  /**
   * Per query of a block: its nearest target words (ranks, nearest first by (distance, rank)), their
   * exact distances, and a lower bound on the distance to every target word of the block not listed
   * among the candidates considered; and how many queries were not certified by the float kernel and were
   * searched again by brute force in double.
   */
  public record BlockCandidates(int[][] words, double[][] distances, double[] restBound, int bruteForced) {}
}
