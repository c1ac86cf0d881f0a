package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.spark.SharedSpark;
import org.junit.jupiter.api.Test;

/** N_w, S_w and S*_y at the two ends where their values are known exactly. */
class PrivacyStatisticsTest {
  /** Five words on a line, one unit apart. */
  static final DpTextModel FIVE_WORDS = DpTextModel.of(
      new Embeddings(new String[] {"a", "b", "c", "d", "e"}, new float[] {0, 1, 2, 3, 4}, 1), "five", 4);

  @Test
  void aMechanismThatAlwaysKeepsItsWordHasOneInputPerOutput() {
    // SanText at ε = 2000: the next word is e^{-1000} as likely as the word itself, never drawn.
    PrivacyStatistics.Result r = PrivacyStatistics.compute(SharedSpark.get(), FIVE_WORDS,
        MechanismSpec.parse("santext:epsilon=2000"), 5, 50, 7);
    assertAll(r.keptPercent(), 100);
    assertAll(r.distinctOutputs(), 1);
    assertAll(r.distinctInputs(), 1);
  }

  @Test
  void aNearlyUniformMechanismSendsEveryInputToEveryOutput() {
    // SanText at ε = 0.001 over 5 words: every output has probability ≥ 0.199 for every input, so in
    // 400 runs an input misses some output with probability ≤ 25·0.801^400 < 1e-37.
    PrivacyStatistics.Result r = PrivacyStatistics.compute(SharedSpark.get(), FIVE_WORDS,
        MechanismSpec.parse("santext:epsilon=0.001"), 5, 400, 7);
    assertAll(r.distinctOutputs(), 5);
    assertAll(r.distinctInputs(), 5);
  }

  private static void assertAll(PrivacyStatistics.Summary s, double value) {
    assertEquals(value, s.mean(), 1e-9, s.render());
    assertEquals(value, s.p5(), 1e-9, s.render());
    assertEquals(value, s.p95(), 1e-9, s.render());
  }
}
