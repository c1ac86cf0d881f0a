package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.Embeddings;
import dev.dptext.evaluation.NeighbourOverlap;
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
      assertEquals(bestWord, new dev.dptext.knn.NearestCodes(codes).nearest(q, 0), "trial " + trial);
    }
    // Exact codes map back to the lowest rank holding that code.
    for (int y = 0; y < e.size(); y += 37) {
      codes.copyCode(y, q, 0);
      int found = new dev.dptext.knn.NearestCodes(codes).nearest(q, 0);
      assertEquals(0, codes.hamming(found, y));
      assertTrue(found <= y);
    }
  }

  @Test
  void flipMasksAreExactBernoulliIndependentAcrossLanes() {
    // Probabilities with a short expansion (0.375 = 0.011b), an infinite one rounded to a double
    // (1/3), a tiny one far below 2^-53's grid spacing relative to 1 (3·2^-20 is fine for a count
    // test; its expansion starts with 18 zeros), and BRR's at ε = 2.
    for (double p : new double[] {0.375, 1.0 / 3, 3 * 0x1.0p-20, 1 / (1 + Math.exp(2))}) {
      boolean[] digits = BrrMechanism.binaryDigits(p);
      RandomStream r = RandomStream.fromSeed(Double.doubleToLongBits(p));
      int masks = 20_000;
      long ones = 0;
      long lane0 = 0;
      long lane63 = 0;
      long lanes0and1 = 0;
      long lane63andNext0 = 0;
      long previous = 0;
      for (int i = 0; i < masks; i++) {
        long m = BrrMechanism.bernoulliMask(digits, r);
        ones += Long.bitCount(m);
        lane0 += m & 1;
        lane63 += m >>> 63;
        lanes0and1 += (m & 3) == 3 ? 1 : 0;
        lane63andNext0 += (previous >>> 63) & m & 1;
        previous = m;
      }
      String at = " at p=" + p;
      SamplerStatistics.assertBinomial(ones, 64L * masks, p, "ones" + at);
      SamplerStatistics.assertBinomial(lane0, masks, p, "lane 0" + at);
      SamplerStatistics.assertBinomial(lane63, masks, p, "lane 63" + at);
      if (p > 0.01) { // pairs: p² must be large enough to test with this sample
        SamplerStatistics.assertBinomial(lanes0and1, masks, p * p, "lanes 0 and 1 together" + at);
        SamplerStatistics.assertBinomial(lane63andNext0, masks - 1, p * p, "lane 63 and the next mask's lane 0" + at);
      }
    }
  }

  @Test
  void binaryDigitsAreTheExactExpansion() {
    assertArrayEquals(new boolean[] {false, true, true}, BrrMechanism.binaryDigits(0.375));
    assertEquals(0, BrrMechanism.binaryDigits(0).length);
    for (double p : new double[] {1.0 / 3, 1 / (1 + Math.exp(2)), 1 / (1 + Math.exp(700)), Double.MIN_VALUE}) {
      boolean[] digits = BrrMechanism.binaryDigits(p);
      double sum = 0;
      for (int k = 0; k < digits.length; k++) {
        if (digits[k]) {
          sum += Math.scalb(1.0, -(k + 1)); // every partial sum is a prefix of p: exact
        }
      }
      assertEquals(p, sum, 0, "p=" + p);
      assertTrue(digits[digits.length - 1], "the last digit of p=" + p + " is its last 1");
    }
  }

  @Test
  void flipCountsPerCodeFollowTheBinomialDistribution() {
    Embeddings e = Fixtures.gloveTop2000();
    BinaryCodes codes = BinaryCodes.of(e, 256, BinaryCodes.DEFAULT_SEED);
    BrrMechanism m = new BrrMechanism(codes, 2);
    double q = m.flipProbability();
    RandomStream r = RandomStream.fromSeed(5);
    long[] original = new long[4];
    long[] flipped = new long[4];
    long[] histogram = new long[257];
    for (int i = 0; i < 20_000; i++) {
      int w = i % e.size();
      codes.copyCode(w, original, 0);
      m.flip(w, r, flipped);
      int d = 0;
      for (int k = 0; k < 4; k++) {
        d += Long.bitCount(original[k] ^ flipped[k]);
      }
      histogram[d]++;
    }
    org.apache.commons.math3.distribution.BinomialDistribution exact =
        new org.apache.commons.math3.distribution.BinomialDistribution(null, 256, q);
    double[] probability = new double[257];
    for (int d = 0; d <= 256; d++) {
      probability[d] = exact.probability(d);
    }
    SamplerStatistics.assertFits(histogram, probability, "flips per 256-bit code at ε=2");
  }

  @Test
  void batchesGiveTheSameOutputsAsOneTokenAtATime() {
    Embeddings e = Fixtures.gloveTop2000();
    for (int bits : new int[] {100, 256}) {
      BinaryCodes codes = BinaryCodes.of(e, bits, BinaryCodes.DEFAULT_SEED);
      for (double eps : new double[] {0.5, 2, 6}) {
        BrrMechanism m = new BrrMechanism(codes, eps);
        int[] words = new int[300];
        RandomStream pick = RandomStream.fromSeed(3);
        for (int i = 0; i < words.length; i++) {
          words[i] = pick.nextInt(e.size());
        }
        RandomStream a = RandomStream.fromSeed(42);
        RandomStream b = RandomStream.fromSeed(42);
        int[] batched = new int[words.length];
        m.sanitize(words, 200, a, batched);
        int[] rest = new int[100]; // a second batch continues the same stream
        m.sanitize(java.util.Arrays.copyOfRange(words, 200, 300), 100, a, rest);
        System.arraycopy(rest, 0, batched, 200, 100);
        int changed = 0;
        for (int i = 0; i < words.length; i++) {
          int single = m.sanitize(words[i], b);
          assertEquals(single, batched[i], bits + " bits, ε=" + eps + ", token " + i);
          changed += single != words[i] ? 1 : 0;
        }
        assertEquals(a.nextLong(), b.nextLong(), "both consumed the same draws");
        if (eps == 0.5) {
          assertTrue(changed > 0, "ε=0.5 changed no word of 300");
        }
      }
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
