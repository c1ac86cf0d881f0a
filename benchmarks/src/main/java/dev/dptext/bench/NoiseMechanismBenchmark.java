package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The embedding-noise mechanisms on one thread, batched per review as the job batches them:
 * noise, exact nearest words, selection. Prints the CPU's vector flags, the nearest-word kernel this
 * JVM chose, and per mechanism tokens/s and N_w, the share of tokens the mechanism returned unchanged
 * (how much it perturbs at that ε: a speed at an ε where nothing changes would say little).
 *
 * <p>Usage: {@code NoiseMechanismBenchmark <glove.txt> <reviews.jsonl> <vocab size> <reviews>
 * <spec>[;<spec>…]}, each spec as the CLI writes it, e.g. {@code laplace:epsilon=10}.
 */
public final class NoiseMechanismBenchmark {
  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[2])).read(Path.of(args[0]));
    int reviews = Integer.parseInt(args[3]);
    List<int[]> batches = ReviewTokens.perReview(emb, Path.of(args[1]), reviews);
    long tokens = batches.stream().mapToLong(b -> b.length).sum();
    System.out.println("CPU: " + vectorFlags());
    System.out.printf(Locale.ROOT, "%,d words × %d; %d reviews, %,d in-vocabulary tokens%n", emb.size(), emb.dim(),
        batches.size(), tokens);
    DpTextModel model = DpTextModel.of(emb, args[0], 64);
    System.out.println("nearest words: " + model.nearestWords().describeKernel());
    for (String text : args[4].split(";")) {
      MechanismSpec spec = MechanismSpec.parse(text.trim());
      Timed t = time(spec.build(model), batches);
      System.out.printf(Locale.ROOT, "%-45s N_w %5.1f %%  %,8.0f tokens/s on one thread%n", spec.describe(),
          100.0 * t.kept() / tokens, tokens / t.seconds());
    }
  }

  /** One mechanism's timed pass: seconds, and how many tokens came out unchanged. */
  record Timed(double seconds, long kept) {}

  /**
   * Sanitizes every batch once, on one thread, after a warm-up over the first 20, from a stream seeded with 1:
   * the time it took and the tokens kept.
   */
  static Timed time(WordMechanism m, List<int[]> batches) {
    RandomStream r = RandomStream.fromSeed(1);
    int[] out = new int[batches.stream().mapToInt(b -> b.length).max().orElse(0)];
    for (int[] b : batches.subList(0, Math.min(20, batches.size()))) {
      m.sanitize(b, b.length, r, out); // warm-up
    }
    long kept = 0;
    long t0 = System.nanoTime();
    for (int[] b : batches) {
      m.sanitize(b, b.length, r, out);
      for (int i = 0; i < b.length; i++) {
        kept += out[i] == b[i] ? 1 : 0;
      }
    }
    return new Timed((System.nanoTime() - t0) / 1e9, kept);
  }

  /** The vector-extension flags of the first CPU in /proc/cpuinfo (Linux), or why they are unknown. */
  static String vectorFlags() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          System.out.println("CPU model:" + line.substring(line.indexOf(':') + 1));
        }
        if (line.startsWith("flags")) {
          return java.util.Arrays.stream(line.substring(line.indexOf(':') + 1).trim().split(" "))
              .filter(f -> f.startsWith("avx") || f.equals("fma") || f.startsWith("sse4"))
              .collect(Collectors.joining(" "));
        }
      }
      return "no flags line in /proc/cpuinfo";
    } catch (Exception e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
