package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.HnswNearestWords;
import dev.dptext.knn.NearestWords;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The approximate (HNSW) nearest-word search against exact search, one thread: the graph's build time,
 * then for several candidate counts (efSearch) queries/s and recall@k against exact search, on vocabulary
 * words (uniform by rank) plus Laplace-shaped noise at ε, batched as the job batches a review.
 *
 * <p>Usage: {@code AnnBenchmark <glove.txt> <vocab size> <queries> [ε=10] [efSearch list=16,32,64,128,256] [k=1]}.
 */
public final class AnnBenchmark {
  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[1])).read(Path.of(args[0]));
    int total = Integer.parseInt(args[2]);
    double epsilon = args.length > 3 ? Double.parseDouble(args[3]) : 10;
    String[] efs = (args.length > 4 ? args[4] : "16,32,64,128,256").split(",");
    int k = args.length > 5 ? Integer.parseInt(args[5]) : 1;
    int batch = 250;
    double[] queries = NearestWordsBenchmark.noisyWords(emb, total, epsilon, new SplittableRandom(1));
    NearestWords exact = new NearestWords(emb);
    int[] truth = new int[total * k];
    double[] dist = new double[total * k];
    search(exact, null, queries, Math.min(total, 500), k, batch, truth); // warm-up
    long t0 = System.nanoTime();
    search(exact, null, queries, total, k, batch, truth);
    double exactSeconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "%,d words × %d, %,d queries, ε=%s, k=%d%n", emb.size(), emb.dim(), total, epsilon,
        k);
    System.out.printf(Locale.ROOT, "exact (%s): %,.0f queries/s%n", exact.describeKernel(), total / exactSeconds);
    HnswNearestWords first = new HnswNearestWords(exact, 16, null);
    System.out.printf(Locale.ROOT, "HNSW graph build (M=%d, beamWidth=%d, one thread): %,d ms%n",
        HnswNearestWords.MAX_CONN, HnswNearestWords.BEAM_WIDTH, first.build());
    for (String e : efs) {
      HnswNearestWords h = new HnswNearestWords(exact, Integer.parseInt(e.trim()), "bench");
      h.build(); // built once for every efSearch (same vectors), not timed here
      int[] found = new int[total * k];
      search(null, h, queries, Math.min(total, 500), k, batch, found); // warm-up
      long t1 = System.nanoTime();
      search(null, h, queries, total, k, batch, found);
      double s = (System.nanoTime() - t1) / 1e9;
      long hit = 0;
      for (int i = 0; i < total; i++) {
        for (int a = 0; a < k; a++) {
          for (int b = 0; b < k; b++) {
            if (truth[i * k + a] == found[i * k + b]) {
              hit++;
            }
          }
        }
      }
      System.out.printf(Locale.ROOT, "efSearch %4s: %,8.0f queries/s (%.1fx exact), recall@%d %.4f%n", e.trim(),
          total / s, exactSeconds / s, k, (double) hit / ((long) total * k));
    }
  }

  private static void search(NearestWords exact, HnswNearestWords h, double[] queries, int total, int k, int batch,
      int[] out) {
    int m = (exact != null ? exact.embeddings() : h.embeddings()).dim();
    for (int q0 = 0; q0 < total; q0 += batch) {
      int n = Math.min(batch, total - q0);
      double[] part = java.util.Arrays.copyOfRange(queries, q0 * m, (q0 + n) * m);
      int[] w = new int[n * k];
      double[] d = new double[n * k];
      if (exact != null) {
        exact.search(part, n, k, w, d);
      } else {
        h.search(part, n, k, w, d, null);
      }
      System.arraycopy(w, 0, out, q0 * k, n * k);
    }
  }
}
