package dev.dptext.job;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.spark.PrivacyStatistics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code privacy-stats}: the papers' N_w / S_w table for several mechanisms and ε, computed on Spark.
 * Mechanisms are given as {@code name[:param=value,...]}, e.g. {@code laplace},
 * {@code mahalanobis:lambda=0.5}, {@code vickrey:t=0.5}, {@code vickrey-topk:t=0;0.5;1}.
 */
@Command(name = "privacy-stats", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Per-word privacy statistics (N_w: %% of runs that keep the word; S_w: distinct outputs) over a vocabulary sample.")
final class PrivacyStatsCommand implements Callable<Integer> {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Properties file of option defaults.")
  Path config;

  @Mixin ModelOptions modelOptions;

  @Option(names = "--mechanisms", paramLabel = "SPEC", split = " ", defaultValue = "laplace mahalanobis:lambda=0.5 mahalanobis:lambda=1 vickrey:t=0.5",
      description = "Space-separated mechanisms, name[:param=value,...]. Default: ${DEFAULT-VALUE}.")
  List<String> mechanisms;

  @Option(names = "--epsilons", paramLabel = "ε", split = ",", defaultValue = "5,10,20",
      description = "Comma-separated ε values. Default: ${DEFAULT-VALUE}.")
  List<Double> epsilons;

  @Option(names = "--words", paramLabel = "N", defaultValue = "1000", description = "Vocabulary words sampled evenly by rank. Default: ${DEFAULT-VALUE}.")
  int words;

  @Option(names = "--runs", paramLabel = "N", defaultValue = "100", description = "Runs per word. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "0", description = "Public evaluation seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--output", paramLabel = "FILE", description = "Also write the Markdown table to this file.")
  Path output;

  @Override
  public Integer call() throws Exception {
    SparkSession spark = JobSession.get();
    DpTextModel model = modelOptions.load(spark);
    List<MechanismSpec> specs = new ArrayList<>();
    for (double eps : epsilons) {
      for (String m : mechanisms) {
        specs.add(parse(m, eps));
      }
    }
    StringBuilder table = new StringBuilder();
    table.append(String.format(Locale.ROOT, "Model %s: %,d words × %d; %d words sampled evenly by rank, %d runs each, seed %d.%n%n",
        modelOptions.model, model.embeddings().size(), model.embeddings().dim(), words, runs, seed));
    table.append("| mechanism | N_w: % kept, mean ± sd (p5 / p50 / p95) | S_w: distinct outputs, mean ± sd (p5 / p50 / p95) |\n");
    table.append("|---|---|---|\n");
    System.out.print(table);
    for (MechanismSpec spec : specs) {
      PrivacyStatistics.Result r = PrivacyStatistics.compute(spark, model, spec, words, runs, seed);
      String row = String.format(Locale.ROOT, "| %s | %s | %s |%n", spec.describe(), r.keptPercent().render(),
          r.distinctOutputs().render());
      System.out.print(row);
      table.append(row);
    }
    if (output != null) {
      Files.writeString(output, table.toString());
    }
    return 0;
  }

  static MechanismSpec parse(String text, double epsilon) {
    String[] parts = text.split(":", 2);
    String name = parts[0];
    double lambda = Double.NaN;
    List<Double> t = List.of();
    double w = 0.9;
    double p = 0.3;
    int bits = MechanismSpec.DEFAULT_BRR_BITS;
    if (parts.length > 1) {
      for (String kv : parts[1].split(",")) {
        String[] e = kv.split("=", 2);
        if (e.length != 2) {
          throw new JobException(ExitCode.USAGE, "Bad mechanism parameter '" + kv + "' in '" + text + "'; use name:param=value");
        }
        try {
          switch (e[0].strip()) {
            case "lambda" -> lambda = Double.parseDouble(e[1]);
            case "t" -> t = java.util.Arrays.stream(e[1].split(";")).map(String::strip).map(Double::valueOf).toList();
            case "w" -> w = Double.parseDouble(e[1]);
            case "p" -> p = Double.parseDouble(e[1]);
            case "bits" -> bits = Integer.parseInt(e[1].strip());
            default -> throw new JobException(ExitCode.USAGE,
                "Unknown mechanism parameter '" + e[0] + "' in '" + text + "'; use lambda, t, w, p or bits");
          }
        } catch (NumberFormatException ex) {
          throw new JobException(ExitCode.USAGE, "Parameter '" + kv + "' in '" + text + "' is not a number");
        }
      }
    }
    try {
      return new MechanismSpec(name, epsilon, w, p, lambda, t, bits);
    } catch (IllegalArgumentException ex) {
      throw new JobException(ExitCode.USAGE, ex.getMessage());
    }
  }
}
