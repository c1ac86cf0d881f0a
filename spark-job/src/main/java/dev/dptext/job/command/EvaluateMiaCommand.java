package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.evaluation.ConfidenceInterval;
import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.evaluation.EvaluationKeys;
import dev.dptext.evaluation.MembershipInference;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.evaluate.EpsilonGrid;
import dev.dptext.job.evaluate.EvaluationModels;
import dev.dptext.job.evaluate.LabelledTable;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.report.LineChart;
import dev.dptext.report.ReportPage;
import dev.dptext.spark.DpText;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

/** {@code evaluate mia}: membership inference against classifiers trained on sanitized text. */
@Command(name = "mia", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Shadow-model membership inference (BRR §6) against a classifier trained on sanitized text: "
        + "the attack's ROC AUC per mechanism and ε, next to the raw-text model's (0.5 = no leak).",
        "Writes mia.csv (mechanism, spec, nominal_epsilon, epsilon, trial, attack_auc; first rows: raw text), "
            + "mia-auc.png and index.html into --output."})
final class EvaluateMiaCommand implements Callable<Integer>, SettingOptions.Command, EvaluationGrid.Host {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Mixin LabelledTableOptions table;

  @Mixin EvaluationGrid grid;

  @Option(names = "--shadows", paramLabel = "N", defaultValue = "2", description = "Shadow models. Default: ${DEFAULT-VALUE}.")
  int shadows;

  @Option(names = "--trials", paramLabel = "N", defaultValue = "3",
      description = "Trials (keys) per cell; the 95%% intervals need at least 2 (with 1 the report shows means "
          + "without intervals). Default: ${DEFAULT-VALUE}.")
  int trials;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Public seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--output", required = true, paramLabel = "DIR", description = "Report directory (local).")
  Path output;

  @Override
  public List<Setting<?>> settings() {
    return Settings.MODEL_SETTINGS;
  }

  @Override
  public EvaluationGrid.Defaults gridDefaults() {
    return new EvaluationGrid.Defaults("4,16", EvaluationGrid.defaultMechanismsText());
  }

  @Override
  public Integer call() throws Exception {
    if (trials < 1 || shadows < 1) {
      throw JobException.of("COUNT_TOO_SMALL", "option", trials < 1 ? "--trials" : "--shadows", "value",
          trials < 1 ? trials : shadows);
    }
    EpsilonGrid epsilons = grid.grid();
    long start = System.nanoTime();
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "evaluate mia", String.valueOf(output))) {
      EvaluationModels.requireClassicForMia(spark);
      DpTextOptions options = SettingOptions.read(spec, settings()).with(Settings.ID_MODE, "column");
      DpTextModel model = ModelOptions.load(spark, options);
      List<MechanismSpec> specs = grid.mechanisms(epsilons);
      LabelledTable input = table.table();
      DownstreamUtility.Columns c = input.columns();
      Dataset<Row> data = input.read(spark, seed).withColumn("label", functions.col(c.label()).cast("double")).cache();
      StringBuilder csv = new StringBuilder("mechanism,spec,nominal_epsilon,epsilon,trial,attack_auc\n");
      List<Double> raw = new ArrayList<>();
      for (int trial = 0; trial < trials; trial++) {
        double auc = MembershipInference.attackAuc(data, c, shadows, seed + trial, d -> d, (s, d) -> d);
        raw.add(auc);
        csv.append(String.format(Locale.ROOT, "raw,raw,,,%d,%.6f%n", trial, auc));
      }
      System.err.printf(Locale.ROOT, "mia: raw-text model, attack AUC %s%n", raw);
      Map<String, List<double[]>> series = new LinkedHashMap<>();
      List<List<String>> rows = new ArrayList<>();
      for (var m : epsilons.match(spark, model, specs, 0, seed)) {
        double[] aucs = new double[trials];
        for (int trial = 0; trial < trials; trial++) {
          int t = trial;
          aucs[trial] = MembershipInference.attackAuc(data, c, shadows, seed + trial,
              d -> sanitize(options, model, m.spec(), EvaluationKeys.of("mia-target", seed, t), d, c),
              (s, d) -> sanitize(options, model, m.spec(), EvaluationKeys.of("mia-shadow-" + s, seed, t), d, c));
          csv.append(String.format(Locale.ROOT, "%s,\"%s\",%s,%s,%d,%.6f%n", m.spec().name(), m.spec().toSpecString(),
              m.nominalEpsilon(), m.spec().epsilon(), trial, aucs[trial]));
        }
        ConfidenceInterval ci = ConfidenceInterval.ofScore(aucs);
        series.computeIfAbsent(m.spec().name(), k -> new ArrayList<>())
            .add(new double[] {m.nominalEpsilon(), ci.mean(), ci.low(), ci.high()});
        rows.add(List.of(m.spec().describe(), Double.toString(m.nominalEpsilon()), String.format(Locale.ROOT, "%.4f", ci.mean()),
            Double.isNaN(ci.halfWidth()) ? "" : String.format(Locale.ROOT, "[%.4f, %.4f]", ci.low(), ci.high())));
        System.err.printf(Locale.ROOT, "mia: %s (nominal ε=%s): attack AUC %.4f, %.0f s elapsed%n", m.spec().describe(),
            m.nominalEpsilon(), ci.mean(), (System.nanoTime() - start) / 1e9);
      }
      Files.createDirectories(output);
      Files.writeString(output.resolve("mia.csv"), csv, StandardCharsets.UTF_8);
      ConfidenceInterval rawCi = ConfidenceInterval.ofScore(raw.stream().mapToDouble(Double::doubleValue).toArray());
      LineChart chart = new LineChart("Membership inference: shadow-model attack AUC against ε", epsilons.axisLabel(),
          "attack AUC").tickAtEachX().yRange(0.3, 1.0).baseline("raw text", rawCi.mean());
      series.forEach((name, points) -> {
        points.sort(java.util.Comparator.comparingDouble(p -> p[0]));
        chart.add(new LineChart.Series(name, points.stream().mapToDouble(p -> p[0]).toArray(),
            points.stream().mapToDouble(p -> p[1]).toArray(), points.stream().mapToDouble(p -> p[2]).toArray(),
            points.stream().mapToDouble(p -> p[3]).toArray()));
      });
      chart.writePng(output.resolve("mia-auc.png"), 1000, 560);
      double seconds = (System.nanoTime() - start) / 1e9;
      ReportPage page = new ReportPage("dptext evaluation: membership inference");
      page.heading("Membership inference")
          .paragraph(String.format(Locale.ROOT, "Data: %s, %d shadow models, %d trials; the raw-text model's attack "
              + "AUC %.4f. Each model: the utility evaluation's classifier. Attack: MLP (64, 64) on (P(true label), "
              + "label). %.0f s.", input.input(), shadows, trials, rawCi.mean(), seconds))
          .figure("mia-auc.png", "Attack AUC against ε: mean and 95 % interval over the trials; dashed: the raw-text model")
          .table(List.of("mechanism", "ε (grid)", "attack AUC", "95 % CI"), rows)
          .link("mia.csv", "every trial as CSV")
          .paragraph("Produced by:")
          .command(Commands.asTyped(spec));
      page.write(output.resolve("index.html"));
      System.out.printf(Locale.ROOT, "dptext evaluate mia: %.0f s; report %s%n", seconds, output.resolve("index.html"));
      return 0;
    }
  }

  private static Dataset<Row> sanitize(DpTextOptions options, DpTextModel model, MechanismSpec spec,
      dev.dptext.random.SecretKey key, Dataset<Row> rows, DownstreamUtility.Columns c) {
    return DpText.sanitizer(options).model(model).mechanism(spec).key(key).idColumn(c.id()).transform(rows, c.text());
  }
}
