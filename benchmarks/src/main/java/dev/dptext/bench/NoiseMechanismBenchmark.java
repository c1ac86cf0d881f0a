package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The embedding-noise mechanisms on one thread, batched per review as the job batches them:
 * noise, exact nearest words by GEMM, selection. Prints tokens/s and the BLAS in use.
 *
 * <p>Usage: {@code NoiseMechanismBenchmark <glove.txt> <reviews.jsonl> <vocab size> <reviews>
 * [mechanism names, comma-separated]}.
 */
public final class NoiseMechanismBenchmark {
  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[2])).read(Path.of(args[0]));
    int reviews = Integer.parseInt(args[3]);
    List<int[]> batches = ReviewTokens.perReview(emb, Path.of(args[1]), reviews);
    long tokens = batches.stream().mapToLong(b -> b.length).sum();
    System.out.printf(Locale.ROOT, "BLAS %s; %d words × %d; %d reviews, %,d in-vocabulary tokens%n",
        dev.ludovic.netlib.blas.BLAS.getInstance().getClass().getSimpleName(), emb.size(), emb.dim(),
        batches.size(), tokens);
    DpTextModel model = DpTextModel.of(emb, args[0], 64);
    List<String> only = args.length > 4 ? Arrays.asList(args[4].split(",")) : null;
    System.out.println("nearest words: " + model.nearestWords().describeKernel());
    if (only == null || only.contains("brr")) {
    long t1 = System.nanoTime();
    dev.dptext.embedding.BinaryCodes codes = model.binaryCodes(256);
    System.out.printf(Locale.ROOT, "256-bit codes: %.1f s to build, %,d bytes (float vectors: %,d bytes, %.1f× larger); "
            + "mean 10-NN overlap real vs binary over 200 words: %.2f of 10%n",
        (System.nanoTime() - t1) / 1e9, codes.bytes(), 4L * emb.rawVectors().length,
        4.0 * emb.rawVectors().length / codes.bytes(), dev.dptext.evaluation.NeighbourOverlap.mean(emb, codes, 10, 200));
    }
    for (MechanismSpec spec : new MechanismSpec[] {
        MechanismSpec.of("laplace", java.util.Map.of("epsilon", 10)), MechanismSpec.of("mahalanobis", java.util.Map.of("epsilon", 10, "lambda", 0.5)), MechanismSpec.of("vickrey", java.util.Map.of("epsilon", 10, "t", 0.5, "lambda", 0)),
        MechanismSpec.of("brr", java.util.Map.of("epsilon", 2, "bits", 256))}) {
      if (only != null && !only.contains(spec.describe().split(" ")[0])) {
        continue;
      }
      WordMechanism m = spec.build(model);
      RandomStream r = RandomStream.fromSeed(1);
      int[] out = new int[4096];
      for (int[] b : batches.subList(0, Math.min(20, batches.size()))) {
        m.sanitize(b, b.length, r, out); // warm-up
      }
      long t0 = System.nanoTime();
      for (int[] b : batches) {
        m.sanitize(b, b.length, r, out);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      double gflops = tokens * (double) emb.size() * emb.dim() * 2 / s / 1e9;
      System.out.printf(Locale.ROOT, "%-45s %,8.0f tokens/s on one thread (%.1f GFLOP/s in the products)%n",
          spec.describe(), tokens / s, gflops);
    }
  }
}
