package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestWords;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.testing.Fixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Vickrey's selection rule against its definition (exact binomial and chi-square tests at
 * α = 1e-5, {@link SamplerStatistics}), and the input word among the possible outputs.
 */
class VickreySelectionTest {
  static final int N = 100_000;

  /** More thresholds than words: a usage error from the validation that sees the model, before any build. */
  @Test
  void moreThresholdsThanWordsIsAUsageErrorBeforeTheBuild() {
    DpTextModel tiny = DpTextModel.of(Fixtures.gloveTop2000().topWords(3), "tiny", 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.parse("vickrey-topk:t=0;0.5;1;2").build(tiny));
    ErrorAssertions.assertError(e, "MECHANISM_PARAMETER_EXCEEDS_MODEL", Map.of("mechanism", "vickrey-topk",
        "parameter", VickreyMechanism.THRESHOLD_COUNT, "value", 4, "what", "vocabulary size", "limit", 3));
    // The partitioned path, which has no model to validate against, raises the same error.
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class,
        () -> VickreyMechanism.forShards(3, 2, null, 1, 0, List.of(0.0, 0.5, 1.0, 2.0))),
        "MECHANISM_PARAMETER_EXCEEDS_MODEL");
  }

  @Test
  void twoNearestRuleMatchesItsProbability() {
    Embeddings e = Fixtures.gloveTop2000();
    NearestWords nearest = new NearestWords(e);
    int[] words = {10, 20};
    for (double t : new double[] {0.1, 0.5, 0.75, 1.0}) {
      VickreyMechanism m = VickreyMechanism.of(e, nearest, null, 5, 0, List.of(t));
      for (double[] d : new double[][] {{1.0, 1.5}, {0.2, 3.0}, {2.0, 2.0}}) {
        RandomStream r = RandomStream.fromSeed((long) (t * 100 + d[0] * 10));
        long first = 0;
        for (int i = 0; i < N; i++) {
          if (m.choose(words, d, 0, r) == 10) {
            first++;
          }
        }
        double p = (1 - t) * d[1] / (t * d[0] + (1 - t) * d[1]);
        SamplerStatistics.assertBinomial(first, N, p, "vickrey t=" + t + " d=" + d[0] + "," + d[1]);
      }
    }
  }

  @Test
  void topKRuleMatchesItsProbabilities() {
    Embeddings e = Fixtures.gloveTop2000();
    VickreyMechanism m = VickreyMechanism.of(e, new NearestWords(e), null, 5, 0, List.of(0.0, 0.5, 1.0, 2.0));
    int[] words = {0, 1, 2, 3};
    double[] d = {1.0, 1.2, 1.3, 2.5};
    double[] w = new double[4];
    double total = 0;
    double[] t = {0.0, 0.5, 1.0, 2.0};
    for (int r = 0; r < 4; r++) {
      w[r] = Math.exp(-t[r] * d[r]);
      total += w[r];
    }
    long[] counts = new long[4];
    RandomStream random = RandomStream.fromSeed(5);
    for (int i = 0; i < N; i++) {
      counts[m.choose(words, d, 0, random)]++;
    }
    double[] p = new double[4];
    for (int r = 0; r < 4; r++) {
      p[r] = w[r] / total;
    }
    SamplerStatistics.assertFits(counts, p, "vickrey-topk");
  }

  @Test
  void theInputWordCanBeTheOutput() {
    Embeddings e = Fixtures.gloveTop2000();
    VickreyMechanism m = VickreyMechanism.of(e, new NearestWords(e), null, 30, 0, List.of(0.5));
    int[] words = new int[200];
    for (int i = 0; i < words.length; i++) {
      words[i] = i * 9;
    }
    int[] out = new int[words.length];
    m.sanitize(words, words.length, RandomStream.fromSeed(3), out);
    int kept = 0;
    for (int i = 0; i < words.length; i++) {
      kept += out[i] == words[i] ? 1 : 0;
    }
    assertTrue(kept > 20, "the input word was the output only " + kept + " times of 200 at ε=30");
  }
}
