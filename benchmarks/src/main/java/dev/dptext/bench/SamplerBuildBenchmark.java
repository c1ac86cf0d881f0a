package dev.dptext.bench;

import dev.dptext.knn.RowDistances;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The SanText+ sampler's table build at model load (every table entry's exact distance, then the
 * envelope), as a small run pays it: in a fresh JVM, the first build cold, then {@code rounds − 1} warm
 * ones. The distances take the Vector API path when the JVM has {@code --add-modules=jdk.incubator.vector}
 * and the scalar one otherwise (the same doubles), so running this once with and once without the flag
 * compares the two (scripts/bench/sampler-build.sh).
 *
 * <p>Usage: {@code SamplerBuildBenchmark <model.dptext> [rounds=3]}.
 */
public final class SamplerBuildBenchmark {
  public static void main(String[] args) throws Exception {
    Path modelPath = Path.of(args[0]);
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    DpTextModel model;
    try (InputStream in = Files.newInputStream(modelPath)) {
      model = ModelArtifact.read(in, modelPath.toString());
    }
    MechanismSpec spec = MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3, "w", 0.9, "p", 0.3));
    StringBuilder times = new StringBuilder();
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      spec.build(model);
      times.append(String.format(Locale.ROOT, " %.3f", (System.nanoTime() - t0) / 1e9));
    }
    System.out.printf(Locale.ROOT, "%s: %d words, %s; build seconds (first cold):%s%n", RowDistances.path(),
        model.embeddings().size(), spec.describe(), times);
  }
}
