package dev.dptext.bench;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.RandomStream;
import dev.dptext.text.Tokenizer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The per-token hot path on one thread: SanText / SanText+ sampling of the in-vocabulary tokens of
 * real text (IMDb reviews, so frequent words weigh as they do in practice), side by side with the
 * reference algorithm — exact sampling by computing all |V| weights per token, which is what the
 * published SanText code does with its precomputed |V|×|V| matrix and {@code np.random.choice}.
 *
 * <p>Usage: {@code SamplerBenchmark <model.dptext> <reviews.jsonl> <max tokens>}.
 */
public final class SamplerBenchmark {
  public static void main(String[] args) throws Exception {
    Path modelPath = Path.of(args[0]);
    Path reviews = Path.of(args[1]);
    int maxTokens = Integer.parseInt(args[2]);
    System.out.printf(Locale.ROOT, "java %s, BLAS %s, %d cores%n", System.getProperty("java.version"),
        dev.ludovic.netlib.blas.BLAS.getInstance().getClass().getSimpleName(),
        Runtime.getRuntime().availableProcessors());
    long t0 = System.nanoTime();
    DpTextModel model;
    try (InputStream in = Files.newInputStream(modelPath)) {
      model = ModelArtifact.read(in, modelPath.toString());
    }
    Embeddings emb = model.embeddings();
    System.out.printf(Locale.ROOT, "model %s: %d words × %d, tables %s, loaded in %.1f s%n", modelPath,
        emb.size(), emb.dim(), model.tables().keySet(), secs(t0));
    int[] tokens = tokenRanks(emb, reviews, maxTokens);
    System.out.printf(Locale.ROOT, "%,d in-vocabulary tokens from %s%n", tokens.length, reviews);

    System.out.println("| mechanism | dptext tokens/s (1 thread) | reference: O(|V|) sampling from a precomputed row, tokens/s | ratio | changed |");
    System.out.println("|---|---:|---:|---:|---:|");
    for (MechanismSpec spec : new MechanismSpec[] {
        MechanismSpec.of("santext", java.util.Map.of("epsilon", 0.5)), MechanismSpec.of("santext", java.util.Map.of("epsilon", 1)), MechanismSpec.of("santext", java.util.Map.of("epsilon", 3)),
        MechanismSpec.of("santext", java.util.Map.of("epsilon", 10)), MechanismSpec.of("santext", java.util.Map.of("epsilon", 30)), MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3, "w", 0.9, "p", 0.3))}) {
      WordMechanism m = spec.build(model);
      RandomStream r = RandomStream.fromSeed(42);
      long sink = 0;
      for (int i = 0; i < Math.min(tokens.length, 300_000); i++) {
        sink += m.sanitize(tokens[i], r); // warm-up
      }
      t0 = System.nanoTime();
      long changed = 0;
      for (int x : tokens) {
        int y = m.sanitize(x, r);
        sink += y;
        changed += y != x ? 1 : 0;
      }
      double rate = tokens.length / secs(t0);
      double reference = referenceRate(emb, spec, tokens, m.outputStart());
      System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %.0f× | %.1f%% |%n", label(spec), rate, reference,
          rate / reference, 100.0 * changed / tokens.length);
      if (sink == 42) {
        System.out.println();
      }
    }
  }

  /**
   * The reference algorithm's per-token cost: the published SanText code holds a precomputed |V|×|V|
   * probability matrix and calls {@code np.random.choice(V, p=row)} per token, which builds the
   * cumulative sum of the row and searches it: O(|V|) per token. The matrix does not fit here (20 GiB
   * for 74,000 words), so each row is computed untimed and only the cumulative sum and search are timed.
   */
  private static double referenceRate(Embeddings emb, MechanismSpec spec, int[] tokens, int outputStart) {
    int n = emb.size() - outputStart;
    double[] row = new double[n];
    double[] cdf = new double[n];
    RandomStream r = RandomStream.fromSeed(7);
    int count = Math.min(tokens.length, 1_000);
    long sink = 0;
    long timed = 0;
    for (int t = 0; t < count; t++) {
      int x = tokens[t];
      for (int j = 0; j < n; j++) {
        row[j] = Math.exp(-0.5 * spec.epsilon() * emb.distance(x, outputStart + j));
      }
      long t0 = System.nanoTime();
      double total = 0;
      for (int j = 0; j < n; j++) {
        total += row[j];
        cdf[j] = total;
      }
      double u = r.nextDouble() * total;
      int pos = Arrays.binarySearch(cdf, u);
      sink += pos < 0 ? -pos - 1 : pos;
      timed += System.nanoTime() - t0;
    }
    double rate = count / (timed / 1e9);
    return sink == -1 ? 0 : rate;
  }

  private static String label(MechanismSpec s) {
    return s.name().equals("santext+")
        ? String.format(Locale.ROOT, "santext+ ε=%s w=%s p=%s", s.epsilon(), s.get(SanTextPlus.W), s.get(SanTextPlus.P))
        : String.format(Locale.ROOT, "santext ε=%s", s.epsilon());
  }

  static int[] tokenRanks(Embeddings emb, Path reviews, int maxTokens) throws Exception {
    Tokenizer tk = new Tokenizer(emb::indexOf);
    int[] out = new int[maxTokens];
    int n = 0;
    try (BufferedReader r = Files.newBufferedReader(reviews, StandardCharsets.UTF_8)) {
      String line;
      while (n < maxTokens && (line = r.readLine()) != null) {
        int a = line.indexOf("\"review\":\"") + 10;
        int b = line.lastIndexOf("\",\"sentiment\"");
        for (String run : line.substring(a, Math.max(a, b)).split("\\s+")) {
          if (!run.isEmpty()) {
            for (Tokenizer.Token t : tk.tokenize(run)) {
              if (t.rank() >= 0 && n < maxTokens) {
                out[n++] = t.rank();
              }
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
