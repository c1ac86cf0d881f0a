package dev.dptext.evaluation;

import dev.dptext.embedding.WordMetric;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Mechanisms at matched privacy (BRR §5): a grid of ε values on a reference mechanism's scale (the
 * multivariate Laplace mechanism's, Euclidean), and each mechanism B at ε_B = ε·P_dRef/P_dB, P_d the
 * average distance of B's metric over all ordered word pairs ({@link PrivacyRatio}). Mechanisms with
 * the reference's metric keep the grid's ε.
 */
public final class PrivacyMatching {
  private PrivacyMatching() {}

  /**
   * Each of {@code specs} at each grid ε, matched to {@code reference}'s scale.
   *
   * @param samplePairs 0 for the exact P_d^avg over all pairs, else a sampled estimate from this many
   *     uniform pairs (seeded)
   */
  public static List<DownstreamUtility.MatchedSpec> match(SparkSession spark, DpTextModel model,
      MechanismSpec reference, List<MechanismSpec> specs, double[] grid, long samplePairs, long seed) {
    Map<String, Double> averages = new LinkedHashMap<>();
    double ref = average(spark, model, reference, samplePairs, seed, averages);
    PrivacyRatio.requireFinite(ref, reference.name());
    List<DownstreamUtility.MatchedSpec> out = new ArrayList<>();
    for (MechanismSpec spec : specs) {
      double pd = average(spark, model, spec, samplePairs, seed, averages);
      PrivacyRatio.requireFinite(pd, spec.name());
      double ratio = ref / pd;
      for (double epsilon : grid) {
        out.add(new DownstreamUtility.MatchedSpec(epsilon, spec.with("epsilon", epsilon * ratio)));
      }
    }
    return out;
  }

  /** P_d^avg of the spec's metric, computed once per metric (by its name, which carries its parameters). */
  private static double average(SparkSession spark, DpTextModel model, MechanismSpec spec, long samplePairs,
      long seed, Map<String, Double> cache) {
    WordMetric metric = spec.metric(model);
    return cache.computeIfAbsent(metric.name(), name -> samplePairs > 0
        ? PrivacyRatio.sampled(spark, model, spec, samplePairs, seed).average()
        : PrivacyRatio.of(spark, model, spec).average());
  }
}
