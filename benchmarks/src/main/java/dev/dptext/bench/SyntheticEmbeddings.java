package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;

/**
 * A SYNTHETIC embeddings file for scale benchmarks beyond real GloVe's 341,479 words, in GloVe's text
 * format, so the product's own {@code build-model} reads it like any user's file. Seeded and
 * reproducible; documented as synthetic wherever its figures appear.
 *
 * <p>Structure taken from real vectors: word i's vector is R·(α·g_a + (1 − α)·g_b) + σ·n_i, with g_a,
 * g_b real GloVe 100-d vectors, α ~ U(0.5, 1), R a fixed m×100 Gaussian map scaled by 1/√100 (so for
 * m = 300 the vectors lie near a 100-dimensional subspace, with GloVe's clusters and norms), and σ·n_i
 * isotropic noise with σ = 0.1 of GloVe's per-coordinate spread. The first 341,479 ranks are GloVe's
 * own words in GloVe's order, with a = i (each word mostly its own real vector, mixed with a uniform
 * other), so real text finds its words in the vocabulary; ranks beyond are named {@code syn<rank>}
 * with a drawn with a frequency bias (rank ⌊341,479·u²⌋). Rank order is the public frequency order,
 * as for real files. Word i draws from a stream seeded by (seed, i) only.
 *
 * <p>Usage: {@code SyntheticEmbeddings <glove.6B.100d.txt> <words> <dim> <seed> <out.txt>}. Prints the wall
 * time. Values are written with {@link Float#toString}, which reads back as the same float.
 */
public final class SyntheticEmbeddings {
  private static final int CHUNK = 4096;

  public static void main(String[] args) throws IOException {
    Path glove = Path.of(args[0]);
    int words = Integer.parseInt(args[1]);
    int dim = Integer.parseInt(args[2]);
    long seed = Long.parseLong(args[3]);
    Path out = Path.of(args[4]);
    long t0 = System.nanoTime();
    Embeddings base = EmbeddingReader.all().read(glove);
    float[] g = base.rawVectors();
    String[] baseWords = base.rawWords();
    int baseDim = base.dim();
    int baseSize = base.size();
    double spread = 0;
    for (float v : g) {
      spread += (double) v * v;
    }
    spread = Math.sqrt(spread / g.length);
    float[] map = new float[dim * baseDim];
    RandomStream r = RandomStream.fromSeed(seed);
    for (int i = 0; i < map.length; i++) {
      map[i] = (float) (gaussian(r) / Math.sqrt(baseDim));
    }
    double sigma = 0.1 * spread;
    int chunks = (words + CHUNK - 1) / CHUNK;
    int parallel = Runtime.getRuntime().availableProcessors() * 2;
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      // A few chunks at a time generated in parallel, then written in rank order (bounded memory).
      for (int c0 = 0; c0 < chunks; c0 += parallel) {
        java.util.List<StringBuilder> batch = IntStream.range(c0, Math.min(chunks, c0 + parallel)).parallel()
            .mapToObj(c -> chunk(c, words, dim, seed, g, baseWords, baseDim, map, sigma)).toList();
        for (StringBuilder sb : batch) {
          w.append(sb);
        }
      }
    }
    System.out.printf(java.util.Locale.ROOT, "synthetic embeddings %s: %,d words × %d dims (the first %,d GloVe's "
        + "words), %,d bytes, written in %.1f s%n", out, words, dim, Math.min(words, baseSize), Files.size(out),
        (System.nanoTime() - t0) / 1e9);
  }

  /** The lines of ranks [c·CHUNK, (c+1)·CHUNK). */
  private static StringBuilder chunk(int c, int words, int dim, long seed, float[] g, String[] baseWords, int baseDim,
      float[] map, double sigma) {
    int baseSize = baseWords.length;
    StringBuilder sb = new StringBuilder(CHUNK * dim * 11);
    double[] mixed = new double[baseDim];
    for (int i = c * CHUNK; i < Math.min(words, (c + 1) * CHUNK); i++) {
      RandomStream s = RandomStream.fromSeed(seed * 0x9E3779B97F4A7C15L + i);
      double u = s.nextDouble();
      int a = i < baseSize ? i : (int) (baseSize * u * u);
      int b = s.nextInt(baseSize);
      double alpha = 0.5 + 0.5 * s.nextDouble();
      for (int d = 0; d < baseDim; d++) {
        mixed[d] = alpha * g[a * baseDim + d] + (1 - alpha) * g[b * baseDim + d];
      }
      sb.append(i < baseSize ? baseWords[i] : "syn" + i);
      for (int d = 0; d < dim; d++) {
        double x = 0;
        for (int k = 0; k < baseDim; k++) {
          x += map[d * baseDim + k] * mixed[k];
        }
        sb.append(' ').append((float) (x + sigma * gaussian(s)));
      }
      sb.append('\n');
    }
    return sb;
  }

  private static double gaussian(RandomStream r) {
    double u1 = 1.0 - r.nextDouble();
    double u2 = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
}
