package dev.dptext.bench;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.RandomStream;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The whole text path of one row on one thread — tokenize, the mechanism's draws, assemble — over real
 * review texts, warm: what a task does per row once the JIT has compiled it. Prints the tokens per
 * second of tokenizing alone ({@link TextSanitizer#tokenize}), of the text path alone (tokenize and
 * {@link TextSanitizer#assemble} with every word kept: no mechanism draws, only the OOV ones) and of the
 * whole path with SanText+ (ε = 3, w = 0.9, p = 0.3), best of {@code rounds} passes each after one
 * warm-up pass, by the wall clock and by this thread's CPU time, and hashes of one seeded pass's
 * outputs of each path (equal hashes from two builds: the same text).
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
    // Per path: the best wall time and the best CPU time of this thread. On a machine shared with other
    // work the wall clock also counts the time the thread waited for a core; its CPU time does not
    // (nor the garbage collector's threads, which the new text path gives less to do).
    double[] bestWall = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    double[] bestCpu = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int r = 0; r <= rounds; r++) {
      for (int path = 0; path < 3; path++) {
        long wall = System.nanoTime();
        long cpu = threads.getCurrentThreadCpuTime();
        for (String t : texts) {
          sink += switch (path) {
            case 0 -> sanitizer.tokenize(t).count();
            case 1 -> kept(sanitizer, t, random).length();
            default -> sanitizer.sanitize(t, random, null).length();
          };
        }
        if (r > 0) { // round 0 warms up
          bestWall[path] = Math.min(bestWall[path], (System.nanoTime() - wall) / 1e9);
          bestCpu[path] = Math.min(bestCpu[path], (threads.getCurrentThreadCpuTime() - cpu) / 1e9);
        }
      }
    }
    // The outputs of one seeded pass, hashed: two builds that print the same hash wrote the same text.
    RandomStream seeded = RandomStream.fromSeed(11);
    long outputs = 0;
    long keptOutputs = 0;
    for (String t : texts) {
      keptOutputs = keptOutputs * 31 + kept(sanitizer, t, seeded).hashCode();
      outputs = outputs * 31 + sanitizer.sanitize(t, seeded, null).hashCode();
    }
    System.out.printf(Locale.ROOT, "%,d reviews, %,d tokens; tokenize %,.0f tokens/s (CPU %,.0f); tokenize + assemble "
        + "%,.0f tokens/s (CPU %,.0f); whole path (SanText+) %,.0f tokens/s (CPU %,.0f) (best of %d); outputs %016x "
        + "%016x (%d)%n", texts.size(), tokens, tokens / bestWall[0], tokens / bestCpu[0], tokens / bestWall[1],
        tokens / bestCpu[1], tokens / bestWall[2], tokens / bestCpu[2], rounds, keptOutputs, outputs, sink % 10);
  }

  /** The text path without the mechanism: every vocabulary word is its own output (OOV words still drawn). */
  private static String kept(TextSanitizer sanitizer, String text, RandomStream random) {
    TextSanitizer.Tokenized tokens = sanitizer.tokenize(text);
    return sanitizer.assemble(tokens, tokens.ranks(), random, null);
  }
}
