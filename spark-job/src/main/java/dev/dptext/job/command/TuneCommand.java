package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.evaluation.EmpiricalPrivacy;
import dev.dptext.evaluation.EvaluationModel;
import dev.dptext.evaluation.Lexicon;
import dev.dptext.evaluation.Tuner;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.evaluate.EvaluationModels;
import dev.dptext.job.read.DataFormat;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.report.EmpiricalPrivacyReport;
import dev.dptext.report.ReportPage;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tune}: the mechanism and parameters with the most empirical privacy (E_M) within a utility
 * budget (L_M &lt; C), by Xu et al.'s Algorithm 2 for each mechanism ({@link Tuner},
 * {@link EmpiricalPrivacy}).
 */
@Command(name = "tune", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Choose the mechanism and ε (and Vickrey's t) with the largest empirical privacy E_M whose "
        + "utility loss L_M on a word-label lexicon stays below --max-utility-loss (Xu et al. 2021, Algorithm 2, "
        + "for every mechanism).",
        "With --output: tune-points.csv (every evaluated setting: mechanism, spec, epsilon, E_M, Bayes error, L_M, "
            + "their standard errors, draws, exact), PNG plots (E_M and L_M against ε, E_M against L_M) and index.html."})
final class TuneCommand implements Callable<Integer>, SettingOptions.Command, EvaluationGrid.Host {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Option(names = "--max-utility-loss", required = true, paramLabel = "C",
      description = "The budget C: the largest acceptable expected share of words whose label changes.")
  double budget;

  @Option(names = "--lexicon", paramLabel = "CSV",
      description = "word,label lexicon (header line first). Default: the bundled IMDb word polarity "
          + "(data/lexicon/README.md).")
  Path lexicon;

  @Option(names = "--prior-corpus", paramLabel = "PATH",
      description = "A table whose text gives the prior π (word counts of the evaluation words). Without it: "
          + "--uniform-prior is required.")
  String priorCorpus;

  @Option(names = "--text-column", paramLabel = "NAME", defaultValue = "text", description = "Default: ${DEFAULT-VALUE}.")
  String textColumn;

  @Option(names = "--uniform-prior", description = "π uniform over the evaluation words.")
  boolean uniformPrior;

  @Option(names = "--words", paramLabel = "N", defaultValue = "300",
      description = "Evaluation vocabulary: the N most frequent lexicon words of the model. Default: ${DEFAULT-VALUE}.")
  int words;

  @Option(names = "--draws", paramLabel = "N", defaultValue = "1000",
      description = "Monte Carlo draws per word, to start with, for mechanisms without an exact distribution (all "
          + "but santext and santext+; at least " + EmpiricalPrivacy.MIN_DRAWS + "). E_M uses an unbiased estimate of "
          + "each f(y|w)², so it does not drift with N; what bias remains (a ratio of sampled sums) is within the "
          + "standard error in the project's tests. The Bayes error (mode adversary) is biased low: in expectation a "
          + "lower bound. Default: ${DEFAULT-VALUE}.")
  int draws;

  @Option(names = "--max-standard-error", paramLabel = "SE", defaultValue = "0.01",
      description = "Draw more (doubling the draws, up to --max-draws) until the standard errors of E_M and L_M are "
          + "at most SE; a point that stops at --max-draws above it is flagged. Default: ${DEFAULT-VALUE}.")
  double maxStandardError;

  @Option(names = "--max-draws", paramLabel = "N", defaultValue = "16000",
      description = "The most Monte Carlo draws per word. Default: ${DEFAULT-VALUE}.")
  int maxDraws;

  @Option(names = "--epsilon-start", paramLabel = "ε", defaultValue = "0.5", description = "Default: ${DEFAULT-VALUE}.")
  double epsilonStart;

  @Option(names = "--epsilon-max", paramLabel = "ε", defaultValue = "1024", description = "Default: ${DEFAULT-VALUE}.")
  double epsilonMax;

  @Option(names = "--t-grid", paramLabel = "T", split = ",", defaultValue = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
      description = "Vickrey's t values scanned at the chosen ε (Algorithm 2 uses 0.05 steps). Default: ${DEFAULT-VALUE}.")
  List<Double> tGrid;

  @Option(names = "--refine", paramLabel = "N", defaultValue = "4",
      description = "Bisections between the last two doublings of ε (beyond Algorithm 2, whose doubling can stop "
          + "far below the budget); 0 = Algorithm 2 as published. Default: ${DEFAULT-VALUE}.")
  int refine;

  @Option(names = "--mechanisms", paramLabel = "SPEC", split = " ",
      description = "Space-separated mechanisms, name[:param=value,...]. Default: "
          + EvaluationGrid.DEFAULT_MECHANISMS + ".")
  List<String> mechanisms;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Public seed of the draws. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--output", paramLabel = "DIR", description = "Write the points, plots and page here (local).")
  Path output;

  @Override
  public List<Setting<?>> settings() {
    return Settings.MODEL_SETTINGS;
  }

  /** The evaluations' default mechanisms (tune has no ε grid: it searches ε itself). */
  @Override
  public EvaluationGrid.Defaults gridDefaults() {
    return new EvaluationGrid.Defaults("", EvaluationGrid.defaultMechanismsText());
  }

  @Override
  public Integer call() throws IOException {
    if ((priorCorpus == null) == !uniformPrior) {
      throw JobException.of("TUNE_PRIOR_MISSING");
    }
    if (draws < EmpiricalPrivacy.MIN_DRAWS || maxDraws < draws) {
      throw JobException.of("TUNE_DRAWS_OUT_OF_RANGE", "min", EmpiricalPrivacy.MIN_DRAWS, "max", maxDraws, "draws",
          draws);
    }
    if (!(maxStandardError > 0)) {
      throw JobException.of("TUNE_STANDARD_ERROR", "value", maxStandardError);
    }
    long start = System.nanoTime();
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "tune", output == null ? null : output.toString())) {
      DpTextOptions options = SettingOptions.read(spec, settings());
      EvaluationModel evaluationModel = EvaluationModels.load(spark, options);
      DpTextModel model = evaluationModel.model();
      Lexicon lex = readLexicon();
      int[] labels = lex.labels(model.embeddings());
      List<Integer> chosen = new ArrayList<>();
      for (int rank = 0; rank < labels.length && chosen.size() < words; rank++) {
        if (labels[rank] >= 0) {
          chosen.add(rank);
        }
      }
      if (chosen.size() < 2) {
        throw JobException.of("TUNE_LEXICON_NOT_IN_MODEL");
      }
      int[] evaluation = chosen.stream().mapToInt(Integer::intValue).toArray();
      double[] prior = prior(spark, model, evaluation);
      List<Tuner.Outcome> outcomes = new ArrayList<>();
      List<String> imprecise = new ArrayList<>();
      List<String> specs = mechanisms != null ? mechanisms : EvaluationGrid.defaultMechanisms();
      for (String text : specs) {
        MechanismSpec base;
        try {
          base = MechanismSpec.parse(text);
        } catch (IllegalArgumentException e) {
          throw JobException.wrap(ExitCode.USAGE, e);
        }
        outcomes.add(Tuner.tune(base, s -> evaluate(spark, evaluationModel, s, evaluation, prior, labels, imprecise),
            budget, epsilonStart, epsilonMax, tGrid, refine, System.err::println));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      StringBuilder out = new StringBuilder();
      out.append(String.format(Locale.ROOT, "Evaluation vocabulary: %d lexicon words of %s (%,d words); prior: %s; "
          + "budget L_M < %s; where not exact, %d to %d Monte Carlo draws per word, until the standard errors are at "
          + "most %s; seed %d; %.0f s.%n", evaluation.length,
          options.get(Settings.MODEL), model.embeddings().size(), uniformPrior ? "uniform" : "word counts in " + priorCorpus,
          budget, draws, maxDraws, maxStandardError, seed, seconds));
      imprecise.forEach(p -> out.append("warning: ").append(p).append('\n'));
      for (Tuner.Outcome o : outcomes) {
        if (o.choice().isPresent()) {
          EmpiricalPrivacy.Result r = o.choice().get();
          out.append(String.format(Locale.ROOT, "%-13s %s: E_M %.4f ± %.4f, Bayes error %.4f, L_M %.4f ± %.4f%n",
              o.mechanism(), r.spec().describe(), r.inferenceError(), r.inferenceErrorSe(), r.bayesError(),
              r.utilityLoss(), r.utilityLossSe()));
        } else {
          out.append(String.format(Locale.ROOT, "%-13s no setting within the budget%n", o.mechanism()));
        }
        o.warnings().forEach(w -> out.append("              warning: ").append(w).append('\n'));
      }
      Tuner.recommend(outcomes).ifPresentOrElse(r -> out.append(String.format(Locale.ROOT,
          "Recommended: %s (E_M %.4f, L_M %.4f)%nGuarantee: %s%n", r.spec().toSpecString(), r.inferenceError(),
          r.utilityLoss(), r.spec().guarantee())), () -> out.append("No mechanism meets the budget; raise C.\n"));
      System.out.print(out);
      if (output != null) {
        Files.createDirectories(output);
        ReportPage page = new ReportPage("dptext tune");
        EmpiricalPrivacyReport.write(output, page, outcomes, out.toString(),
            Commands.asTyped(spec));
        page.write(output.resolve("index.html"));
      }
      return 0;
    }
  }

  /**
   * One point: exact, or sampled with {@link #draws} per word, doubled until the standard errors of E_M and
   * L_M are at most {@link #maxStandardError} or the draws reach {@link #maxDraws} (then noted in
   * {@code imprecise}).
   */
  private EmpiricalPrivacy.Result evaluate(SparkSession spark, EvaluationModel model, MechanismSpec s, int[] words,
      double[] prior, int[] labels, List<String> imprecise) {
    int n = draws;
    while (true) {
      EmpiricalPrivacy.Result r = EmpiricalPrivacy.compute(spark, model, s, words, prior, labels, n, seed);
      double se = Math.max(r.inferenceErrorSe(), r.utilityLossSe());
      if (r.exact() || se <= maxStandardError) {
        return r;
      }
      if (n >= maxDraws) {
        imprecise.add(String.format(Locale.ROOT, "%s: standard error %.4f > %s at --max-draws %d", s.describe(), se,
            maxStandardError, n));
        return r;
      }
      int next = (int) Math.min(maxDraws, 2L * n);
      System.err.printf(Locale.ROOT, "tune %s: standard error %.4f > %s at %d draws per word; drawing %d%n",
          s.describe(), se, maxStandardError, n, next);
      n = next;
    }
  }

  private Lexicon readLexicon() throws IOException {
    if (lexicon == null) {
      return Lexicon.bundled();
    }
    try (InputStream in = Files.newInputStream(lexicon)) {
      return Lexicon.read(in, lexicon.toString());
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    }
  }

  /** π over the evaluation words: uniform, or their counts (plus one) in the corpus' lower-cased words. */
  private double[] prior(SparkSession spark, DpTextModel model, int[] evaluation) {
    double[] p = new double[evaluation.length];
    java.util.Arrays.fill(p, 1);
    if (priorCorpus != null) {
      DataFormat format = DataFormat.guess(priorCorpus);
      Map<String, Integer> index = new HashMap<>();
      for (int i = 0; i < evaluation.length; i++) {
        index.put(model.embeddings().word(evaluation[i]), i);
      }
      // On Spark Connect the server resolves a relative path against its own working directory: qualify it here.
      String corpus = dev.dptext.classic.Classic.is(spark) ? priorCorpus : EvaluationModel.qualifiedPath(spark, priorCorpus);
      List<Row> counts = spark.read().format(format != null ? format.sparkName() : "delta").load(corpus)
          .select(functions.explode(functions.split(functions.lower(functions.col(textColumn)), "[^a-z']+")).as("w"))
          .where(functions.col("w").isin(index.keySet().toArray())).groupBy("w").count().collectAsList();
      for (Row r : counts) {
        p[index.get(r.getString(0))] += r.getLong(1);
      }
    }
    double total = java.util.Arrays.stream(p).sum();
    for (int i = 0; i < p.length; i++) {
      p[i] /= total;
    }
    return p;
  }
}
