package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.evaluate.EpsilonGrid;
import dev.dptext.job.evaluate.EvaluationModels;
import dev.dptext.job.evaluate.LabelledTable;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.report.ReportPage;
import dev.dptext.report.UtilityReport;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code evaluate utility}: downstream utility of every mechanism over an ε grid, on a labelled table
 * ({@link DownstreamUtility}), with the report's utility section.
 */
@Command(name = "utility", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Train a text classifier on sanitized text and compare it with one trained on the raw text.",
        "Writes " + UtilityReport.TRIALS_CSV + " (columns: mechanism, spec, nominal_epsilon, epsilon, trial, "
            + "test_text, accuracy, auc), " + UtilityReport.TRIALS_JSON + ", " + UtilityReport.SUMMARY_CSV
            + " (mean and 95%% confidence interval per mechanism, ε and test text; first row: the raw-text "
            + "baseline), PNG plots and index.html into --output."})
final class EvaluateUtilityCommand implements Callable<Integer>, SettingOptions.Command, EvaluationGrid.Host {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Mixin LabelledTableOptions table;

  @Option(names = "--test-fraction", paramLabel = "F", defaultValue = "0.2",
      description = "Stratified test share. Default: ${DEFAULT-VALUE}.")
  double testFraction;

  @Mixin EvaluationGrid grid;

  @Option(names = "--sample-pairs", paramLabel = "N", defaultValue = "0",
      description = "Privacy ratio from N sampled word pairs instead of all pairs (large vocabularies). Default: ${DEFAULT-VALUE}.")
  long samplePairs;

  @Option(names = "--trials", paramLabel = "N", defaultValue = "5",
      description = "Independent trials (keys) per cell; the 95%% intervals need at least 2 (with 1 the report "
          + "shows means without intervals). Default: ${DEFAULT-VALUE}.")
  int trials;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Public seed of the split, the sampled pairs and the trials' evaluation keys. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--output", required = true, paramLabel = "DIR", description = "Report directory (local).")
  Path output;

  @Override
  public List<Setting<?>> settings() {
    return Settings.MODEL_SETTINGS;
  }

  @Override
  public EvaluationGrid.Defaults gridDefaults() {
    return new EvaluationGrid.Defaults("4,8,16,32", EvaluationGrid.defaultMechanismsText());
  }

  @Override
  public Integer call() throws Exception {
    if (trials < 1) {
      throw JobException.of("COUNT_TOO_SMALL", "option", "--trials", "value", trials);
    }
    EpsilonGrid epsilons = grid.grid();
    long start = System.nanoTime();
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "evaluate utility", String.valueOf(output))) {
      EvaluationModels.requireClassicForUtility(spark);
      DpTextOptions options = SettingOptions.read(spec, settings());
      DpTextModel model = ModelOptions.load(spark, options);
      List<MechanismSpec> specs = grid.mechanisms(epsilons);
      LabelledTable input = table.table();
      Dataset<Row> data = input.read(spark, seed);
      DownstreamUtility.Columns columns = input.columns();
      DownstreamUtility.Split split = DownstreamUtility.split(data, columns, testFraction, seed);
      split = new DownstreamUtility.Split(split.train().cache(), split.test().cache());
      long trainRows = split.train().count();
      long testRows = split.test().count();
      log(String.format(Locale.ROOT, "utility: %,d training and %,d test rows; model %s (%,d words)", trainRows,
          testRows, options.get(Settings.MODEL), model.embeddings().size()));
      List<DownstreamUtility.MatchedSpec> matched = epsilons.match(spark, model, specs, samplePairs, seed);
      DownstreamUtility.Score baseline = DownstreamUtility.baseline(split, columns);
      log(String.format(Locale.ROOT, "utility: raw-text baseline accuracy %.4f, AUC %.4f", baseline.accuracy(),
          baseline.auc()));
      List<DownstreamUtility.Result> results = DownstreamUtility.sweep(split, columns,
          options.with(Settings.ID_MODE, "column"), model, matched, trials, seed, EvaluateUtilityCommand::log);
      double seconds = (System.nanoTime() - start) / 1e9;
      ReportPage page = new ReportPage("dptext evaluation");
      List<String> context = List.of(
          String.format(Locale.ROOT, "Data: %s, %,d training and %,d test rows (stratified split, seed %d); "
              + "text column %s, label column %s.", input.input(), trainRows, testRows, seed, input.textColumn(),
              input.labelColumn()),
          String.format(Locale.ROOT, "Model: %s, %,d words × %d dimensions. %d trials per cell (evaluation keys "
              + "from seed %d). Wall time of the sweep: %.0f s.", options.get(Settings.MODEL), model.embeddings().size(),
              model.embeddings().dim(), trials, seed, seconds),
          String.format(Locale.ROOT, "Classifier: MLlib regex tokenizer, " + DownstreamUtility.HASHING + ", IDF, unit "
              + "length per document, logistic regression without feature standardization (λ = 1/n = %.2g, "
              + "threshold 0.5): the plain TF-IDF + logistic-regression baseline.", DownstreamUtility.regParam(trainRows)));
      UtilityReport.write(output, page, results, baseline, context, epsilons.axisLabel(), Commands.asTyped(spec));
      page.write(output.resolve("index.html"));
      System.out.printf(Locale.ROOT, "dptext evaluate utility: %d cells × %d trials in %.0f s; report %s%n",
          matched.size(), trials, seconds, output.resolve("index.html"));
      return 0;
    }
  }

  private static void log(String line) {
    System.err.println(line);
  }
}
