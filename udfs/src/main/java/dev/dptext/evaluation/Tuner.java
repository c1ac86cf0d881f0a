package dev.dptext.evaluation;

import dev.dptext.mechanism.MechanismSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Parameter selection under a utility budget C (Xu et al. 2021, Algorithm 2), for every mechanism:
 * double ε from ε_start until the utility loss L_M falls below C (up to ε_max); for a mechanism with
 * a threshold t (Vickrey), then scan t over a grid at that ε and keep the largest E_M with L_M ≤ C.
 * Across mechanisms, the recommendation is the admissible setting with the largest E_M (the
 * sampling adversary's error; ties: the larger Bayes error).
 *
 * <p>Beyond Algorithm 2: doubling lands anywhere in (ε*, 2ε*], so the first admissible ε can sit far
 * below the budget (and give away privacy). With {@code refine} &gt; 0 the tuner bisects between the last
 * inadmissible and the first admissible ε that many times before the t scan; 0 is Algorithm 2 as
 * published.
 *
 * <p>Algorithm 2 assumes that L_M decreases in ε. The tuner records every point it evaluates and
 * reports each increase of L_M along the doubling it sees, rather than trusting the assumption.
 */
public final class Tuner {
  private Tuner() {}

  /** One mechanism's outcome: the admissible choice (if any), every evaluated point, and warnings. */
  public record Outcome(String mechanism, Optional<EmpiricalPrivacy.Result> choice, List<EmpiricalPrivacy.Result> points,
      List<String> warnings) {}

  /**
   * Tunes one mechanism.
   *
   * @param base the mechanism with its other parameters (its ε is replaced)
   * @param thresholds the t grid for mechanisms with a parameter {@code t} of one value; empty: no scan
   */
  public static Outcome tune(MechanismSpec base, Function<MechanismSpec, EmpiricalPrivacy.Result> evaluate,
      double budget, double epsilonStart, double epsilonMax, List<Double> thresholds, int refine,
      Consumer<String> progress) {
    List<EmpiricalPrivacy.Result> points = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    boolean scansT = !thresholds.isEmpty() && base.values().containsKey("t")
        && ((List<?>) base.values().get("t")).size() == 1;
    MechanismSpec at = scansT ? base.with("t", List.of(0.0)) : base;
    EmpiricalPrivacy.Result found = null;
    EmpiricalPrivacy.Result previous = null;
    for (double epsilon = epsilonStart; epsilon <= epsilonMax; epsilon *= 2) {
      EmpiricalPrivacy.Result r = evaluate.apply(at.with("epsilon", epsilon));
      points.add(r);
      progress.accept(String.format(java.util.Locale.ROOT, "tune %s: L_M %.4f, E_M %.4f", r.spec().describe(),
          r.utilityLoss(), r.inferenceError()));
      if (previous != null && r.utilityLoss() > previous.utilityLoss() + 2 * (r.utilityLossSe() + previous.utilityLossSe())) {
        warnings.add(String.format(java.util.Locale.ROOT, "L_M rose from %.4f at ε=%s to %.4f at ε=%s: it is not "
            + "decreasing in ε here, as Algorithm 2 assumes", previous.utilityLoss(), previous.spec().epsilon(),
            r.utilityLoss(), epsilon));
      }
      previous = r;
      if (r.utilityLoss() < budget) {
        found = r;
        break;
      }
    }
    if (found == null) {
      warnings.add(String.format(java.util.Locale.ROOT, "L_M stayed ≥ %s up to ε=%s", budget, epsilonMax));
      return new Outcome(base.name(), Optional.empty(), points, warnings);
    }
    // The last inadmissible ε, half the first admissible one (none when the start was admissible).
    double low = points.size() < 2 ? Double.NaN : found.spec().epsilon() / 2;
    double high = found.spec().epsilon();
    for (int step = 0; step < refine && !Double.isNaN(low); step++) {
      double mid = (low + high) / 2;
      EmpiricalPrivacy.Result r = evaluate.apply(at.with("epsilon", mid));
      points.add(r);
      progress.accept(String.format(java.util.Locale.ROOT, "tune %s: L_M %.4f, E_M %.4f (refining ε)",
          r.spec().describe(), r.utilityLoss(), r.inferenceError()));
      if (r.utilityLoss() < budget) {
        high = mid;
        found = r;
      } else {
        low = mid;
      }
    }
    EmpiricalPrivacy.Result best = found;
    if (scansT) {
      for (double t : thresholds) {
        EmpiricalPrivacy.Result r = evaluate.apply(found.spec().with("t", List.of(t)));
        points.add(r);
        progress.accept(String.format(java.util.Locale.ROOT, "tune %s: L_M %.4f, E_M %.4f", r.spec().describe(),
            r.utilityLoss(), r.inferenceError()));
        if (r.utilityLoss() <= budget && better(r, best)) {
          best = r;
        }
      }
    }
    return new Outcome(base.name(), Optional.of(best), points, warnings);
  }

  /** The admissible choice with the largest E_M over all outcomes. */
  public static Optional<EmpiricalPrivacy.Result> recommend(List<Outcome> outcomes) {
    EmpiricalPrivacy.Result best = null;
    for (Outcome o : outcomes) {
      if (o.choice().isPresent() && (best == null || better(o.choice().get(), best))) {
        best = o.choice().get();
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean better(EmpiricalPrivacy.Result a, EmpiricalPrivacy.Result b) {
    return a.inferenceError() > b.inferenceError()
        || (a.inferenceError() == b.inferenceError() && a.bayesError() > b.bayesError());
  }
}
