package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.NeighbourOverlap;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * BRR: the bit-flip rate is 1/(1+e^ε) (exact binomial test, α = 1e-5, {@link SamplerStatistics}),
 * flips are independent of position, the Hamming-nearest word equals brute force with ties to the
 * lower rank, and the binary codes keep neighbourhoods far better than chance.
 */
class BrrMechanismTest {

  @Test
  void bitFlipRateMatchesRandomizedResponse() {
    Embeddings e = Fixtures.gloveTop2000();
    BinaryCodes codes = BinaryCodes.of(e, 256, BinaryCodes.DEFAULT_SEED);
    for (double eps : new double[] {0.1, 1, 3, 8}) {
      BrrMechanism m = new BrrMechanism(codes, eps);
      RandomStream r = RandomStream.fromSeed((long) (eps * 1000));
      long[] original = new long[codes.longs()];
      long[] flipped = new long[codes.longs()];
      long flips = 0;
      long[] perBit = new long[256];
      int n = 4_000;
      for (int i = 0; i < n; i++) {
        int w = i % e.size();
        codes.copyCode(w, original, 0);
        m.flip(w, r, flipped);
        for (int k = 0; k < codes.longs(); k++) {
          long diff = original[k] ^ flipped[k];
          flips += Long.bitCount(diff);
          for (int b = 0; b < 64; b++) {
            if ((diff >>> b & 1) != 0) {
              perBit[k * 64 + b]++;
            }
          }
        }
      }
      double q = 1 / (1 + Math.exp(eps));
      assertEquals(q, m.flipProbability(), 1e-15);
      SamplerStatistics.assertBinomial(flips, (long) n * 256, q, "BRR flips at ε=" + eps);
      // Position independence: the first and the last bit flip at the same rate.
      SamplerStatistics.assertBinomial(perBit[0], n, q, "bit 0 at ε=" + eps);
      SamplerStatistics.assertBinomial(perBit[255], n, q, "bit 255 at ε=" + eps);
    }
  }

  @Test
  void hammingNearestEqualsBruteForceWithTiesToTheLowerRank() {
    Embeddings e = Fixtures.gloveTop2000();
    BinaryCodes codes = BinaryCodes.of(e, 64, 7);
    RandomStream r = RandomStream.fromSeed(1);
    long[] q = new long[1];
    for (int trial = 0; trial < 2_000; trial++) {
      q[0] = r.nextLong() & (trial % 2 == 0 ? -1L : 0xFFFF_FFFFL); // also far-off codes
      int best = Integer.MAX_VALUE;
      int bestWord = -1;
      for (int y = 0; y < e.size(); y++) {
        int d = codes.hammingTo(q, 0, y);
        if (d < best) {
          best = d;
          bestWord = y;
        }
      }
      assertEquals(bestWord, codes.nearest(q, 0), "trial " + trial);
    }
    // Exact codes map back to the lowest rank holding that code.
    for (int y = 0; y < e.size(); y += 37) {
      codes.copyCode(y, q, 0);
      int found = codes.nearest(q, 0);
      assertEquals(0, codes.hamming(found, y));
      assertTrue(found <= y);
    }
  }

  @Test
  void codesAreDeterministicAndKeepNeighbourhoods() {
    Embeddings e = Fixtures.gloveTop2000();
    BinaryCodes a = BinaryCodes.of(e, 256, BinaryCodes.DEFAULT_SEED);
    BinaryCodes b = BinaryCodes.of(e, 256, BinaryCodes.DEFAULT_SEED);
    long[] ca = new long[4];
    long[] cb = new long[4];
    for (int y = 0; y < e.size(); y += 101) {
      a.copyCode(y, ca, 0);
      b.copyCode(y, cb, 0);
      assertArrayEquals(ca, cb);
    }
    double overlap = NeighbourOverlap.mean(e, a, 10, 200);
    // Chance overlap of two 10-word sets among 2,000 words is 10·10/2000 = 0.05 words.
    assertTrue(overlap > 2.0, "mean 10-NN overlap of real and binary space is only " + overlap);
  }
}
