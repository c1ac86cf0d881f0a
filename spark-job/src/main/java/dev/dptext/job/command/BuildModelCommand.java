package dev.dptext.job.command;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.job.model.PartitionedBuild;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.DpTextModel;
import dev.dptext.config.Setting;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.settings.Settings;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code build-model}: read embeddings once, precompute neighbour tables, save a versioned artifact. */
@Command(name = "build-model", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Build a dptext model artifact from embeddings, so scheduled runs load it instead of rebuilding.")
final class BuildModelCommand implements Callable<Integer>, SettingOptions.Command {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Option(names = "--output", required = true, paramLabel = "PATH", description = "Where to write the model artifact.")
  String output;

  @Option(names = "--santext-plus-w", paramLabel = "W", split = ",", defaultValue = "0.9",
      description = "SanText+ sensitive fractions to precompute neighbour tables for (comma-separated). Default: ${DEFAULT-VALUE}.")
  List<Double> sensitiveFractions;

  @Option(names = "--neighbour-tables", paramLabel = "stored|on-demand", defaultValue = "stored",
      description = "Partitioned models only: stored (SanText's candidate tables built now for every word, an all-pairs "
          + "search of |V|²·m: hours at millions of words) or on-demand (no tables stored; each SanText/SanText+ run "
          + "computes the rows of the words its input uses, the same rows, for any w). Default: ${DEFAULT-VALUE}.")
  String neighbourTables;

  @Override
  public List<Setting<?>> settings() {
    return BUILD_SETTINGS;
  }

  /** The model's settings and its layout (a partitioned model is a directory). */
  static final List<Setting<?>> BUILD_SETTINGS = java.util.stream.Stream.concat(Settings.MODEL_SETTINGS.stream(),
      java.util.stream.Stream.of(Settings.MODEL_LAYOUT)).toList();

  @Override
  public Integer call() {
    long t0 = System.nanoTime();
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "build-model", output)) {
      DpTextOptions options = SettingOptions.read(spec, settings());
      boolean onDemand = switch (neighbourTables) {
        case "stored" -> false;
        case "on-demand" -> true;
        default -> throw JobException.of("NEIGHBOUR_TABLES_UNKNOWN", "value", neighbourTables);
      };
      if (PartitionedBuild.chosen(spark, options)) {
        return PartitionedBuild.run(spark, options, output, sensitiveFractions, onDemand, t0);
      }
      if (onDemand) {
        throw JobException.of("NEIGHBOUR_TABLES_ON_DEMAND_ONE_FILE");
      }
      DpTextModel model = ModelOptions.load(spark, options);
      int n = model.embeddings().size();
      model.neighbours(0);
      for (double w : sensitiveFractions) {
        try {
          model.neighbours(SanTextPlus.sensitiveStart(n, w));
        } catch (IllegalArgumentException e) {
          throw JobException.wrap(ExitCode.USAGE, e);
        }
      }
      model.covariance(); // for the Mahalanobis mechanism; m×m, stored in the artifact
      ModelLoader.save(spark, model, output);
      System.out.printf(Locale.ROOT,
          "dptext model written to %s: %,d words × %d dims, K=%d, %d neighbour table(s), sha256 %s, %.1f s%n",
          output, n, model.embeddings().dim(), model.neighbourCount(), model.tables().size(), model.hash(),
          (System.nanoTime() - t0) / 1e9);
      return 0;
    }
  }
}
