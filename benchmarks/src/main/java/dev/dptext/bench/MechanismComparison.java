package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.WordMetric;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Every mechanism side by side in one JVM at matched privacy: each one's ε chosen so that ε times its
 * metric's average distance between two words equals the reference's (the multivariate Laplace
 * mechanism at {@code ε_ref}, Euclidean): the privacy ratio of BRR §5, here from 200,000 sampled word
 * pairs (seeded) instead of all pairs. A mechanism whose metric is infinite between some words (CusText:
 * nothing across groups) cannot be matched that way and runs at {@code ε_ref}, flagged. Per mechanism:
 * the sampler's build on the driver, tokens/s on one thread batched per review as the job batches them,
 * and N_w, the share of tokens returned unchanged.
 *
 * <p>Usage: {@code MechanismComparison <glove.txt> <reviews.jsonl> <vocab size> <reviews> <ε_ref>
 * <spec>[|<spec>…]}, each spec as the CLI writes it without ε, e.g. {@code vickrey:t=0.5}.
 */
public final class MechanismComparison {
  private static final int PAIRS = 200_000;

  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[2])).read(Path.of(args[0]));
    int reviews = Integer.parseInt(args[3]);
    double reference = Double.parseDouble(args[4]);
    List<int[]> batches = ReviewTokens.perReview(emb, Path.of(args[1]), reviews);
    long tokens = batches.stream().mapToLong(b -> b.length).sum();
    System.out.println("CPU: " + NoiseMechanismBenchmark.vectorFlags());
    System.out.printf(Locale.ROOT, "%,d words × %d; %d reviews, %,d in-vocabulary tokens; matched to laplace ε=%s%n",
        emb.size(), emb.dim(), batches.size(), tokens, reference);
    DpTextModel model = DpTextModel.of(emb, args[0], 64);
    double referenceAverage = average(MechanismSpec.parse("laplace").metric(model));
    System.out.println("| mechanism (matched ε) | metric | P_d^avg | build s | tokens/s, 1 thread | N_w |");
    System.out.println("|---|---|---:|---:|---:|---:|");
    for (String text : args[5].split("\\|")) {
      MechanismSpec spec = MechanismSpec.parse(text.trim());
      WordMetric metric = spec.metric(model);
      double avg = average(metric);
      boolean matched = Double.isFinite(avg) && avg > 0;
      spec = spec.with("epsilon", matched ? reference * referenceAverage / avg : reference);
      long b0 = System.nanoTime();
      WordMechanism m = spec.build(model);
      double build = (System.nanoTime() - b0) / 1e9;
      NoiseMechanismBenchmark.Timed t = NoiseMechanismBenchmark.time(m, batches);
      System.out.printf(Locale.ROOT, "| %s%s | %s | %.4g | %.2f | %,.0f | %.1f %% |%n", spec.describe(),
          matched ? "" : " (not matched: infinite distances)", metric.name(), avg, build, tokens / t.seconds(),
          100.0 * t.kept() / tokens);
    }
  }

  /** The metric's average distance over {@link #PAIRS} uniform pairs of distinct words (seeded). */
  static double average(WordMetric metric) {
    RandomStream r = RandomStream.fromSeed(11);
    int n = metric.size();
    double sum = 0;
    for (int k = 0; k < PAIRS; k++) {
      int i = r.nextInt(n);
      int j = r.nextInt(n - 1);
      sum += metric.distance(i, j >= i ? j + 1 : j);
    }
    return sum / PAIRS;
  }
}
