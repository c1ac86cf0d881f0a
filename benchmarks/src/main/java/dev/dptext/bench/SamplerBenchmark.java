package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.text.Tokenizer;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The per-token hot path on one core: SanText / SanText+ sampling of the in-vocabulary tokens of
 * real text (the IMDb reviews, so frequent words weigh as they do in practice).
 *
 * <p>Usage: {@code SamplerBenchmark <glove.txt> <reviews.jsonl> <vocab size> <max tokens>}.
 */
public final class SamplerBenchmark {
  public static void main(String[] args) throws Exception {
    Path glove = Path.of(args[0]);
    Path reviews = Path.of(args[1]);
    int vocab = Integer.parseInt(args[2]);
    int maxTokens = Integer.parseInt(args[3]);
    System.out.printf(Locale.ROOT, "java %s, %s, %d cores%n", System.getProperty("java.version"),
        dev.ludovic.netlib.blas.BLAS.getInstance().getClass().getSimpleName(),
        Runtime.getRuntime().availableProcessors());

    long t0 = System.nanoTime();
    Embeddings emb = EmbeddingReader.top(vocab).read(glove);
    System.out.printf(Locale.ROOT, "read %d words × %d in %.1f s%n", emb.size(), emb.dim(), secs(t0));

    int[] tokens = tokenRanks(emb, reviews, maxTokens);
    System.out.printf(Locale.ROOT, "%d in-vocabulary tokens from %s%n", tokens.length, reviews);

    DpTextModel model = DpTextModel.of(emb, glove.toString(), DpTextModel.DEFAULT_NEIGHBOURS);
    t0 = System.nanoTime();
    NeighbourTable full = model.neighbours(0);
    System.out.printf(Locale.ROOT, "neighbour table (V=%d, K=%d, all targets): %.1f s%n", emb.size(), full.k(), secs(t0));
    int start = SanTextPlus.sensitiveStart(emb.size(), 0.9);
    t0 = System.nanoTime();
    model.neighbours(start);
    System.out.printf(Locale.ROOT, "neighbour table (targets = V_S, w=0.9): %.1f s%n", secs(t0));

    for (MechanismSpec spec : new MechanismSpec[] {
        MechanismSpec.santext(0.5), MechanismSpec.santext(1), MechanismSpec.santext(3),
        MechanismSpec.santext(10), MechanismSpec.santext(30), MechanismSpec.santextPlus(3, 0.9, 0.3)}) {
      t0 = System.nanoTime();
      WordMechanism m = spec.build(model);
      double build = secs(t0);
      RandomStream r = RandomStream.fromSeed(42);
      long sink = 0;
      // Warm-up, then the timed pass over the same token stream.
      for (int i = 0; i < Math.min(tokens.length, 500_000); i++) {
        sink += m.sanitize(tokens[i], r);
      }
      t0 = System.nanoTime();
      long changed = 0;
      for (int x : tokens) {
        int y = m.sanitize(x, r);
        sink += y;
        if (y != x) {
          changed++;
        }
      }
      double s = secs(t0);
      System.out.printf(Locale.ROOT, "%-40s build %.1f s, %,.0f tokens/s on one core, %.1f%% changed (sink %d)%n",
          spec, build, tokens.length / s, 100.0 * changed / tokens.length, sink % 10);
    }
  }

  private static int[] tokenRanks(Embeddings emb, Path reviews, int maxTokens) throws Exception {
    Tokenizer tk = new Tokenizer(emb::indexOf);
    int[] out = new int[maxTokens];
    int n = 0;
    try (BufferedReader r = Files.newBufferedReader(reviews, StandardCharsets.UTF_8)) {
      String line;
      while (n < maxTokens && (line = r.readLine()) != null) {
        int a = line.indexOf("\"review\":\"") + 10;
        int b = line.lastIndexOf("\",\"sentiment\"");
        String text = line.substring(a, Math.max(a, b));
        for (String run : text.split("\\s+")) {
          if (run.isEmpty()) {
            continue;
          }
          for (Tokenizer.Token t : tk.tokenize(run)) {
            if (t.rank() >= 0 && n < maxTokens) {
              out[n++] = t.rank();
            }
          }
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
