package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The nearest-word kernels alone, side by side in one JVM: every backend this JVM offers, at several
 * batch sizes, on the same queries (vocabulary words plus multivariate-Laplace-shaped noise of radius
 * Gamma(m, 1/ε), as the Laplace mechanism draws them; the noise here is not a privacy mechanism, only
 * a realistic workload). Prints queries/s and GFLOP/s (2·|V|·m per query) per backend and batch.
 *
 * <p>Usage: {@code NearestWordsBenchmark
 * <glove.txt> <vocab size> <queries per measurement> [ε=10] [batch sizes, comma-separated]}.
 */
public final class NearestWordsBenchmark {
  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[1])).read(Path.of(args[0]));
    int total = Integer.parseInt(args[2]);
    double epsilon = args.length > 3 ? Double.parseDouble(args[3]) : 10;
    String[] batches = (args.length > 4 ? args[4] : "16,64,250,1000").split(",");
    int m = emb.dim();
    double[] queries = noisyWords(emb, total, epsilon, new SplittableRandom(1));
    List<NearestWords> indexes = new ArrayList<>();
    for (NearestWords.Backend b : NearestWords.Backend.values()) {
      if (b.available()) {
        indexes.add(new NearestWords(emb, b));
      }
    }
    System.out.printf(Locale.ROOT, "%,d words × %d, %,d queries per measurement, ε=%s%n", emb.size(), m, total,
        epsilon);
    int[] words = new int[total];
    double[] dist = new double[total];
    for (NearestWords nw : indexes) { // warm-up: JIT of the Java kernels
      nw.search(queries, Math.min(total, 500), 1, words, dist);
    }
    for (String bs : batches) {
      int batch = Integer.parseInt(bs.trim());
      for (NearestWords nw : indexes) {
        long t0 = System.nanoTime();
        for (int q0 = 0; q0 < total; q0 += batch) {
          int n = Math.min(batch, total - q0);
          double[] part = java.util.Arrays.copyOfRange(queries, q0 * m, (q0 + n) * m);
          nw.search(part, n, 1, words, dist);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "batch %5d  %-70s %,8.0f queries/s  %5.1f GFLOP/s%n", batch,
            nw.describeKernel(), total / s, total * 2.0 * emb.size() * m / s / 1e9);
      }
    }
  }

  /** Random vocabulary words (by rank, uniformly) plus noise of density ∝ exp(−ε‖z‖). */
  static double[] noisyWords(Embeddings emb, int n, double epsilon, SplittableRandom r) {
    int m = emb.dim();
    float[] v = emb.rawVectors();
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(emb.size());
      double radius = 0;
      for (int d = 0; d < m; d++) {
        radius -= Math.log(1 - r.nextDouble()); // Gamma(m, 1) as a sum of m unit exponentials
      }
      radius /= epsilon;
      double[] z = new double[m];
      double norm = 0;
      for (int d = 0; d < m; d++) {
        double u1 = 1 - r.nextDouble();
        z[d] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * r.nextDouble());
        norm += z[d] * z[d];
      }
      norm = Math.sqrt(norm);
      for (int d = 0; d < m; d++) {
        q[i * m + d] = v[w * m + d] + radius * z[d] / norm;
      }
    }
    return q;
  }
}
