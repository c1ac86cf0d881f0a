package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.mechanism.MechanismSpec;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The tuner on constructed loss and error curves whose best setting is known. */
class TunerTest {
  static final List<Double> T_GRID = List.of(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0);

  /** vickrey: L = 1/ε + 0.1·t, E = 1/ε + 0.2·t; laplace: L = 2/ε, E = 1/ε. */
  static EmpiricalPrivacy.Result constructed(MechanismSpec s) {
    double t = s.values().containsKey("t") ? s.<List<Double>>get(dev.dptext.mechanism.VickreyMechanism.T).get(0) : 0;
    boolean vickrey = s.name().equals("vickrey");
    double loss = vickrey ? 1 / s.epsilon() + 0.1 * t : 2 / s.epsilon();
    double error = vickrey ? 1 / s.epsilon() + 0.2 * t : 1 / s.epsilon();
    return new EmpiricalPrivacy.Result(s, error, error / 2, loss, 0, 0, 0, 0, true);
  }

  @Test
  void algorithmTwoDoublesEpsilonThenScansTAndTheBestMechanismIsRecommended() {
    // Budget 0.3. vickrey: ε = 1, 2, 4 (L = 0.25 at t = 0); then t ≤ 0.5 keeps L ≤ 0.3, and E grows
    // with t: the choice is ε = 4, t = 0.5, E = 0.35. laplace: ε = 8 (L = 0.25), E = 0.125.
    Tuner.Outcome vickrey = Tuner.tune(MechanismSpec.parse("vickrey"), TunerTest::constructed, 0.3, 1, 64, T_GRID, 0, s -> {});
    Tuner.Outcome laplace = Tuner.tune(MechanismSpec.parse("laplace"), TunerTest::constructed, 0.3, 1, 64, T_GRID, 0, s -> {});
    assertEquals(4.0, vickrey.choice().get().spec().epsilon());
    assertEquals(List.of(0.5), vickrey.choice().get().spec().get(dev.dptext.mechanism.VickreyMechanism.T));
    assertEquals(0.35, vickrey.choice().get().inferenceError(), 1e-12);
    assertEquals(3 + T_GRID.size(), vickrey.points().size(), "three doublings, then the t grid");
    assertEquals(8.0, laplace.choice().get().spec().epsilon());
    assertEquals(vickrey.choice(), Tuner.recommend(List.of(laplace, vickrey)));
    assertTrue(vickrey.warnings().isEmpty() && laplace.warnings().isEmpty());
  }

  @Test
  void refiningBisectsBetweenTheLastTwoDoublingsBeforeTheThresholdScan() {
    // vickrey at t = 0: L(2) = 0.5 ≥ 0.3 > L(4) = 0.25; bisection: 3 (0.333, no), 3.5 (0.286, yes),
    // 3.25 (0.308, no), 3.375 (0.296, yes). The t scan then finds no t ≥ 0.1 within the budget.
    Tuner.Outcome o = Tuner.tune(MechanismSpec.parse("vickrey"), TunerTest::constructed, 0.3, 1, 64, T_GRID, 4, s -> {});
    assertEquals(3.375, o.choice().get().spec().epsilon(), 1e-12);
    assertEquals(List.of(0.0), o.choice().get().spec().get(dev.dptext.mechanism.VickreyMechanism.T));
    assertEquals(3 + 4 + T_GRID.size(), o.points().size());
  }

  @Test
  void aLossThatRisesWithEpsilonIsReportedAndAnUnreachableBudgetGivesNoChoice() {
    Function<MechanismSpec, EmpiricalPrivacy.Result> rising = s -> new EmpiricalPrivacy.Result(s, 0.5, 0.4,
        s.epsilon() >= 4 ? 0.9 : 0.6, 0, 0, 0, 0, true);
    Tuner.Outcome o = Tuner.tune(MechanismSpec.parse("laplace"), rising, 0.1, 1, 16, T_GRID, 0, s -> {});
    assertFalse(o.choice().isPresent());
    assertTrue(o.warnings().stream().anyMatch(w -> w.contains("not decreasing")), o.warnings().toString());
    assertTrue(o.warnings().stream().anyMatch(w -> w.contains("up to ε=16")), o.warnings().toString());
  }
}
