package dev.dptext.job.command;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.evaluate.EvaluationModels;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.config.Setting;
import dev.dptext.evaluation.EvaluationModel;
import dev.dptext.evaluation.PrivacyRatio;
import dev.dptext.settings.DpTextOptions;
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

/**
 * {@code calibrate}: given mechanism A at ε_A, the ε_B that gives mechanism B the same privacy-loss
 * estimate under the privacy ratio (ε_B = ε_A·P_dA/P_dB; Carvalho et al. §5), with P_d exact over all
 * word pairs of the model's vocabulary (O(|V|²), distributed), or, with {@code --sample-pairs N},
 * P_d^avg estimated from N uniform pairs with its standard error and confidence interval (A and B
 * from independent samples, seeds S and S+1; the interval of ε_B by the delta method). P_d^max is not
 * estimable by sampling, so {@code --aggregate max} needs the exact computation.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "The ε of mechanism B matching mechanism A's privacy-loss estimate ε_A·P_dA (privacy ratio).")
final class CalibrateCommand implements Callable<Integer>, SettingOptions.Command {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Option(names = "--mechanism-a", required = true, paramLabel = "SPEC",
      description = "Mechanism A, name[:param=value,...], e.g. laplace or mahalanobis:lambda=0.5.")
  String mechanismA;

  @Option(names = "--epsilon-a", required = true, paramLabel = "ε", description = "ε of mechanism A.")
  double epsilonA;

  @Option(names = "--mechanism-b", required = true, paramLabel = "SPEC", description = "Mechanism B, e.g. brr:bits=256.")
  String mechanismB;

  @Option(names = "--aggregate", paramLabel = "avg|max", defaultValue = "avg",
      description = "P_d^avg (the paper's choice, conservative) or P_d^max. Default: ${DEFAULT-VALUE}.")
  String aggregate;

  @Option(names = "--sample-pairs", paramLabel = "N", defaultValue = "0",
      description = "Estimate P_d^avg from N uniform random word pairs (for very large vocabularies) "
          + "and print its error; 0 = exact over all pairs. Default: ${DEFAULT-VALUE}.")
  long samplePairs;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the sampled pairs (public; A uses S, B uses S+1). Default: ${DEFAULT-VALUE}.")
  long seed;

  /** The model setting, for the printed header. */
  private String modelName;

  @Option(names = "--confidence", paramLabel = "C", defaultValue = "0.95",
      description = "Two-sided confidence level of the printed intervals. Default: ${DEFAULT-VALUE}.")
  double confidence;

  @Override
  public List<Setting<?>> settings() {
    return Settings.MODEL_SETTINGS;
  }

  @Override
  public Integer call() {
    if (samplePairs < 0 || samplePairs == 1) {
      throw JobException.of("SAMPLE_PAIRS_INVALID", "value", samplePairs);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw JobException.of("CONFIDENCE_INVALID", "value", confidence);
    }
    boolean average = switch (aggregate.strip().toLowerCase(Locale.ROOT)) {
      case "avg", "average" -> true;
      case "max", "maximum" -> false;
      default -> throw JobException.of("AGGREGATE_UNKNOWN", "value", aggregate);
    };
    MechanismSpec a = PrivacyStatsCommand.parse(mechanismA, epsilonA);
    MechanismSpec b = PrivacyStatsCommand.parse(mechanismB, 1.0);
    if (samplePairs > 0 && !average) {
      throw JobException.of("AGGREGATE_MAX_SAMPLED");
    }
    SparkSession spark = JobSession.get();
    try (RunPhases.Scope named = RunPhases.begin(spark, "calibrate", null)) {
      DpTextOptions options = SettingOptions.read(spec, settings());
      EvaluationModel model = EvaluationModels.load(spark, options);
      modelName = options.get(Settings.MODEL);
      if (samplePairs > 0) {
        return sampled(spark, model, a, b);
      }
      PrivacyRatio.Aggregate pa = PrivacyRatio.of(spark, model, a);
      PrivacyRatio.Aggregate pb = PrivacyRatio.of(spark, model, b);
      double pdA = average ? pa.average() : pa.maximum();
      double pdB = average ? pb.average() : pb.maximum();
      double epsilonB = PrivacyRatio.matchingEpsilon(epsilonA, pdA, pdB);
      String agg = average ? "avg" : "max";
      System.out.printf(Locale.ROOT, "vocabulary: %,d words (%s)%n", model.model().embeddings().size(), modelName);
      System.out.printf(Locale.ROOT, "A: %s — %s metric, P_d^avg = %.6g, P_d^max = %.6g%n", a.describe(), pa.metric(), pa.average(), pa.maximum());
      System.out.printf(Locale.ROOT, "B: %s — %s metric, P_d^avg = %.6g, P_d^max = %.6g%n", b.name(), pb.metric(), pb.average(), pb.maximum());
      System.out.printf(Locale.ROOT, "privacy ratio R = P_dA/P_dB (%s) = %.6g%n", agg, pdA / pdB);
      System.out.printf(Locale.ROOT, "ε_B = ε_A·R = %.6g (so that ε_B·P_dB = ε_A·P_dA = %.6g)%n", epsilonB, epsilonA * pdA);
      return 0;
    }
  }

  private int sampled(SparkSession spark, EvaluationModel model, MechanismSpec a, MechanismSpec b) {
    long start = System.nanoTime();
    PrivacyRatio.Estimate ea = PrivacyRatio.sampled(spark, model, a, samplePairs, seed);
    PrivacyRatio.Estimate eb = PrivacyRatio.sampled(spark, model, b, samplePairs, seed + 1);
    double ratio = ea.average() / eb.average();
    double epsilonB = PrivacyRatio.matchingEpsilon(epsilonA, ea.average(), eb.average());
    // Delta method for a ratio of independent means: relative variances add.
    double relativeSe = Math.hypot(ea.standardError() / ea.average(), eb.standardError() / eb.average());
    double z = PrivacyRatio.zScore(confidence);
    String level = new java.math.BigDecimal(Double.toString(100 * confidence)).stripTrailingZeros().toPlainString() + "%";
    System.out.printf(Locale.ROOT, "vocabulary: %,d words (%s); sampled: %,d uniform ordered pairs per metric, "
        + "seeds %d and %d%n", model.model().embeddings().size(), modelName, samplePairs, seed, seed + 1);
    print("A", a.describe(), ea, z, level);
    print("B", b.name(), eb, z, level);
    System.out.printf(Locale.ROOT, "privacy ratio R = P_dA/P_dB (avg) ≈ %.6g ± %.3g (%s interval [%.6g, %.6g])%n",
        ratio, z * relativeSe * ratio, level, ratio * (1 - z * relativeSe), ratio * (1 + z * relativeSe));
    System.out.printf(Locale.ROOT, "ε_B = ε_A·R ≈ %.6g ± %.3g (%s interval [%.6g, %.6g]; standard error %.3g)%n",
        epsilonB, z * relativeSe * epsilonB, level, epsilonB * (1 - z * relativeSe), epsilonB * (1 + z * relativeSe),
        relativeSe * epsilonB);
    System.out.printf(Locale.ROOT, "sampling took %.1f s; for the exact values omit --sample-pairs (O(|V|²) pairs)%n",
        (System.nanoTime() - start) / 1e9);
    return 0;
  }

  private static void print(String which, String mechanism, PrivacyRatio.Estimate e, double z, String level) {
    System.out.printf(Locale.ROOT, "%s: %s — %s metric, P_d^avg ≈ %.6g ± %.3g (%s interval [%.6g, %.6g]; standard "
            + "error %.3g); P_d^max ≥ %.6g (largest sampled distance, a lower bound) and ≤ %.6g (upper bound)%n",
        which, mechanism, e.metric(), e.average(), z * e.standardError(), level, e.average() - z * e.standardError(),
        e.average() + z * e.standardError(), e.standardError(), e.sampledMaximum(), e.maximumUpperBound());
  }
}
