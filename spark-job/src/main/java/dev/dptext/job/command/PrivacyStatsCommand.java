package dev.dptext.job.command;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.evaluate.EvaluationModels;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.config.Setting;
import dev.dptext.evaluation.EvaluationModel;
import dev.dptext.evaluation.PrivacyStatistics;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code privacy-stats}: the papers' N_w / S_w table for several mechanisms and ε, computed on Spark.
 * Mechanisms are given as {@code name[:param=value,...]}, e.g. {@code laplace},
 * {@code mahalanobis:lambda=0.5}, {@code vickrey:t=0.5}, {@code vickrey-topk:t=0;0.5;1}: the form
 * {@link MechanismSpec#parse} reads, with the parameters of the mechanism registry.
 */
@Command(name = "privacy-stats", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Per-word privacy statistics (N_w: %% of runs that keep the word; S_w: distinct outputs; S*_y: distinct inputs that produced an output) over a vocabulary sample.")
final class PrivacyStatsCommand implements Callable<Integer>, SettingOptions.Command {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

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
  public List<Setting<?>> settings() {
    return Settings.MODEL_SETTINGS;
  }

  @Override
  public Integer call() throws Exception {
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "privacy-stats", output == null ? null : output.toString())) {
      DpTextOptions options = SettingOptions.read(spec, settings());
      EvaluationModel evaluationModel = EvaluationModels.load(spark, options);
      DpTextModel model = evaluationModel.model();
      List<MechanismSpec> specs = new ArrayList<>();
      for (double eps : epsilons) {
        for (String m : mechanisms) {
          specs.add(parse(m, eps));
        }
      }
      StringBuilder table = new StringBuilder();
      table.append(String.format(Locale.ROOT, "Model %s: %,d words × %d; %d words sampled evenly by rank, %d runs each, seed %d.%n%n",
          options.get(Settings.MODEL), model.embeddings().size(), model.embeddings().dim(), words, runs, seed));
      table.append("| mechanism | N_w: % kept, mean ± sd (p5 / p50 / p95) | S_w: distinct outputs, mean ± sd (p5 / p50 / p95) "
          + "| S*_y: distinct inputs per output, mean ± sd (p5 / p50 / p95) |\n");
      table.append("|---|---|---|---|\n");
      System.out.print(table);
      for (MechanismSpec spec : specs) {
        PrivacyStatistics.Result r = PrivacyStatistics.compute(spark, evaluationModel, spec, words, runs, seed);
        String row = String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", spec.describe(), r.keptPercent().render(),
            r.distinctOutputs().render(), r.distinctInputs().render());
        System.out.print(row);
        table.append(row);
      }
      if (output != null) {
        Files.writeString(output, table.toString());
      }
      return 0;
    }
  }

  /** A mechanism of {@code --mechanisms} ({@code name[:param=value,...]}) at {@code epsilon} unless it gives one. */
  static MechanismSpec parse(String text, double epsilon) {
    try {
      return MechanismSpec.parse(text, java.util.Map.of("epsilon", epsilon));
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
  }
}
