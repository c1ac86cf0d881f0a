package dev.dptext.bench;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.RandomStream;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The ceiling for a two-executor speed-up on this machine, for the executors' own work: the sanitize
 * path (tokenize, SanText+ ε=3 w=0.9 p=0.3, assemble) over IMDb reviews on one thread, then on two
 * threads at once, each thread with a model copy of its own as two executor JVMs would have (so the
 * caches hold two copies, as they do under the cluster). No Spark: what two threads cannot gain here
 * (shared caches, memory bandwidth, two vCPUs that share a physical core, a busy neighbour), two
 * workers cannot gain either.
 *
 * <p>Runs alternate 1, 2, 2, 1, 1, 2 threads, {@code seconds} each, so that each adjacent pair shares the
 * machine's state of the moment; prints each pair's ratio (tokens per second, 2 threads ÷ 1) and their
 * median.
 *
 * <p>Usage: {@code SanitizeScaling <model.dptext> <reviews.jsonl> [seconds per run, default 8]}.
 */
public final class SanitizeScaling {
  public static void main(String[] args) throws Exception {
    Path modelPath = Path.of(args[0]);
    List<String> texts = ReviewTokens.texts(Path.of(args[1]), 5_000);
    long nanos = (long) (Double.parseDouble(args.length > 2 ? args[2] : "8") * 1e9);
    TextSanitizer[] copies = {sanitizer(modelPath), sanitizer(modelPath)};
    for (TextSanitizer copy : copies) {
      run(new TextSanitizer[] {copy}, texts, 3_000_000_000L); // JIT warm-up on both copies
    }
    int[] schedule = {1, 2, 2, 1, 1, 2};
    double[] rate = new double[schedule.length];
    for (int i = 0; i < schedule.length; i++) {
      rate[i] = run(Arrays.copyOf(copies, schedule[i]), texts, nanos);
      System.out.printf(Locale.ROOT, "run %d: %d thread(s) %,.0f tokens/s%n", i + 1, schedule[i], rate[i]);
    }
    double[] ratios = new double[schedule.length / 2];
    StringBuilder pairs = new StringBuilder();
    for (int p = 0; p < ratios.length; p++) {
      int a = 2 * p;
      int b = a + 1;
      ratios[p] = schedule[a] == 2 ? rate[a] / rate[b] : rate[b] / rate[a];
      pairs.append(String.format(Locale.ROOT, "%s%.2f×", p == 0 ? "" : ", ", ratios[p]));
    }
    Arrays.sort(ratios);
    System.out.printf(Locale.ROOT,
        "sanitize path, SanText+ ε=3, a model copy per thread, 2 threads ÷ 1: pairs %s; median %.2f×%n",
        pairs, ratios[ratios.length / 2]);
  }

  private static TextSanitizer sanitizer(Path modelPath) throws Exception {
    DpTextModel model;
    try (InputStream in = Files.newInputStream(modelPath)) {
      model = ModelArtifact.read(in, modelPath.toString());
    }
    return new TextSanitizer(model.embeddings(), MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3, "w", 0.9, "p", 0.3)).build(model));
  }

  /** Tokens per second over all threads, each sanitizing the texts round-robin for {@code nanos}. */
  private static double run(TextSanitizer[] copies, List<String> texts, long nanos) throws Exception {
    long[] tokens = new long[copies.length];
    Thread[] threads = new Thread[copies.length];
    long start = System.nanoTime();
    long end = start + nanos;
    for (int t = 0; t < copies.length; t++) {
      int k = t;
      threads[t] = new Thread(() -> {
        TokenCounts counts = new TokenCounts();
        long row = k * 1_000_000L;
        while (System.nanoTime() < end) {
          String text = texts.get((int) (row % texts.size()));
          copies[k].sanitize(text, RandomStream.fromSeed(row++), counts);
        }
        tokens[k] = counts.tokens;
      });
      threads[t].start();
    }
    long total = 0;
    for (int t = 0; t < copies.length; t++) {
      threads[t].join();
      total += tokens[t];
    }
    return total / ((System.nanoTime() - start) / 1e9);
  }
}
