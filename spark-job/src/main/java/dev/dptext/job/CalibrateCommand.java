package dev.dptext.job;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.spark.PrivacyRatio;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code calibrate}: given mechanism A at ε_A, the ε_B that gives mechanism B the same privacy-loss
 * estimate under the privacy ratio (ε_B = ε_A·P_dA/P_dB; Carvalho et al. §5), with P_d exact over all
 * word pairs of the model's vocabulary.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "The ε of mechanism B matching mechanism A's privacy-loss estimate ε_A·P_dA (privacy ratio).")
final class CalibrateCommand implements Callable<Integer> {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Properties file of option defaults.")
  Path config;

  @Mixin ModelOptions modelOptions;

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

  @Override
  public Integer call() {
    boolean average = switch (aggregate.strip().toLowerCase(Locale.ROOT)) {
      case "avg", "average" -> true;
      case "max", "maximum" -> false;
      default -> throw new JobException(ExitCode.USAGE, "Unknown --aggregate '" + aggregate + "'; use avg or max");
    };
    MechanismSpec a = PrivacyStatsCommand.parse(mechanismA, epsilonA);
    MechanismSpec b = PrivacyStatsCommand.parse(mechanismB, 1.0);
    SparkSession spark = JobSession.get();
    DpTextModel model = modelOptions.load(spark);
    PrivacyRatio.Aggregate pa = PrivacyRatio.of(spark, model, a);
    PrivacyRatio.Aggregate pb = PrivacyRatio.of(spark, model, b);
    double pdA = average ? pa.average() : pa.maximum();
    double pdB = average ? pb.average() : pb.maximum();
    double epsilonB = PrivacyRatio.matchingEpsilon(epsilonA, pdA, pdB);
    String agg = average ? "avg" : "max";
    System.out.printf(Locale.ROOT, "vocabulary: %,d words (%s)%n", model.embeddings().size(), modelOptions.model);
    System.out.printf(Locale.ROOT, "A: %s — %s metric, P_d^avg = %.6g, P_d^max = %.6g%n", a.describe(), pa.metric(), pa.average(), pa.maximum());
    System.out.printf(Locale.ROOT, "B: %s — %s metric, P_d^avg = %.6g, P_d^max = %.6g%n", b.name(), pb.metric(), pb.average(), pb.maximum());
    System.out.printf(Locale.ROOT, "privacy ratio R = P_dA/P_dB (%s) = %.6g%n", agg, pdA / pdB);
    System.out.printf(Locale.ROOT, "ε_B = ε_A·R = %.6g (so that ε_B·P_dB = ε_A·P_dA = %.6g)%n", epsilonB, epsilonA * pdA);
    return 0;
  }
}
