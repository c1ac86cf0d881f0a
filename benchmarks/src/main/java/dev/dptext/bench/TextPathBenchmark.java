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
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The whole text path of one row on one thread — tokenize, the mechanism's draws, assemble — over real
 * review texts, warm: what a task does per row once the JIT has compiled it. Prints the tokens per
 * second of tokenizing alone ({@link TextSanitizer#tokenize}) and of the whole path with SanText+
 * (ε = 3, w = 0.9, p = 0.3), best of {@code rounds} passes each after one warm-up pass, and a hash of
 * one seeded pass's outputs (equal hashes from two builds: the same text).
 *
 * <p>Usage: {@code TextPathBenchmark <model.dptext> <reviews.jsonl> <reviews> <rounds>}. Run by
 * {@code scripts/bench/text-path.sh}, which alternates JVMs of two builds for a side-by-side figure.
 */
public final class TextPathBenchmark {
  public static void main(String[] args) throws Exception {
    Path modelPath = Path.of(args[0]);
    List<String> texts = ReviewTokens.texts(Path.of(args[1]), Integer.parseInt(args[2]));
    int rounds = Integer.parseInt(args[3]);
    DpTextModel model;
    try (InputStream in = Files.newInputStream(modelPath)) {
      model = ModelArtifact.read(in, modelPath.toString());
    }
    TextSanitizer sanitizer = new TextSanitizer(model.embeddings(),
        MechanismSpec.of("santext+", Map.of("epsilon", 3, "w", 0.9, "p", 0.3)).build(model));
    TokenCounts counts = new TokenCounts();
    RandomStream random = RandomStream.fromSeed(7);
    for (String t : texts) {
      sanitizer.sanitize(t, random, counts);
    }
    long tokens = counts.tokens;
    double bestTokenize = Double.MAX_VALUE;
    double bestWhole = Double.MAX_VALUE;
    long sink = 0;
    for (int r = 0; r <= rounds; r++) {
      long t0 = System.nanoTime();
      for (String t : texts) {
        sink += sanitizer.tokenize(t).count();
      }
      long t1 = System.nanoTime();
      for (String t : texts) {
        sink += sanitizer.sanitize(t, random, null).length();
      }
      long t2 = System.nanoTime();
      if (r > 0) { // round 0 warms up
        bestTokenize = Math.min(bestTokenize, (t1 - t0) / 1e9);
        bestWhole = Math.min(bestWhole, (t2 - t1) / 1e9);
      }
    }
    // The outputs of one seeded pass, hashed: two builds that print the same hash wrote the same text.
    RandomStream seeded = RandomStream.fromSeed(11);
    long outputs = 0;
    for (String t : texts) {
      outputs = outputs * 31 + sanitizer.sanitize(t, seeded, null).hashCode();
    }
    System.out.printf(Locale.ROOT, "%,d reviews, %,d tokens; tokenize %,.0f tokens/s; whole path (SanText+) %,.0f "
        + "tokens/s (best of %d); outputs %016x (%d)%n", texts.size(), tokens, tokens / bestTokenize,
        tokens / bestWhole, rounds, outputs, sink % 10);
  }
}
