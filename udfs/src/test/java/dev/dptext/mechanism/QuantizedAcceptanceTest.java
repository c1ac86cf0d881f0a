package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The 8-bit prefilter of the exponential sampler changes which memory is read, never a draw: with
 * the same random stream, sampling with and without it gives the same words, at ε where most rounds
 * are uniform (0.1, 1) and where few are (3, 10), for SanText (all targets) and SanText+ (V_P).
 */
class QuantizedAcceptanceTest {
  @Test
  void drawsAreThoseOfTheFloatRows() {
    Embeddings e = Fixtures.gloveTop2000();
    int plusStart = SanTextPlus.sensitiveStart(e.size(), 0.9);
    for (double epsilon : new double[] {0.1, 1, 3, 10}) {
      for (int start : new int[] {0, plusStart}) {
        ExponentialNeighbourSampler s =
            new ExponentialNeighbourSampler(e, Fixtures.gloveNeighbours(start, 16), epsilon);
        RandomStream a = RandomStream.fromSeed(11);
        RandomStream b = RandomStream.fromSeed(11);
        for (int i = 0; i < 20_000; i++) {
          int x = (int) ((i * 7919L) % e.size());
          assertEquals(s.sampleWithoutQuantizedRows(x, b), s.sample(x, a),
              "ε=" + epsilon + " targets from " + start + ", draw " + i + " of word " + x);
        }
      }
    }
  }
}
