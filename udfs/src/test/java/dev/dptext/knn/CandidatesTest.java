package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.random.RandomStream;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.Test;

/** The packed (−score, word) keys order like the pair, and the heaps keep the best per query capacity. */
class CandidatesTest {

  @Test
  void keysOrderLikeMinusScoreThenWord() {
    float[] scores = {Float.NEGATIVE_INFINITY, -Float.MAX_VALUE, -3.5f, -1f, -Float.MIN_VALUE, -0f, 0f,
        Float.MIN_VALUE, 1e-30f, 1f, 2.25f, Float.MAX_VALUE, Float.POSITIVE_INFINITY};
    int[] words = {0, 1, 7, 1 << 20, Integer.MAX_VALUE};
    for (float a : scores) {
      for (float b : scores) {
        for (int wa : words) {
          for (int wb : words) {
            int expected = (-a != -b) ? Float.compare(-a, -b) : Integer.compare(wa, wb); // −0 == +0
            int actual = Long.compare(Candidates.key(a, wa), Candidates.key(b, wb));
            assertEquals(Integer.signum(expected), Integer.signum(actual), a + "/" + wa + " vs " + b + "/" + wb);
          }
        }
        assertEquals(a == 0 ? 0f : a, Candidates.score(Candidates.key(a, 5)) + 0f);
        assertEquals(5, Candidates.word(Candidates.key(a, 5)));
      }
    }
  }

  @Test
  void eachQueryKeepsItsCapacityOfBestScoresTiesToTheLowerWord() {
    RandomStream r = RandomStream.fromSeed(3);
    int[] capacities = {1, 2, 7, 50, 300};
    Candidates c = new Candidates(capacities);
    int words = 400;
    float[][] s = new float[capacities.length][words];
    for (int i = 0; i < capacities.length; i++) {
      for (int w = 0; w < words; w++) {
        s[i][w] = r.nextInt(40) - 20; // many ties
      }
      c.offerRow(i, s[i], 0, words, 0);
    }
    for (int i = 0; i < capacities.length; i++) {
      float[] row = s[i];
      Integer[] all = new Integer[words];
      for (int w = 0; w < words; w++) {
        all[w] = w;
      }
      Arrays.sort(all, Comparator.<Integer>comparingDouble(w -> -row[w]).thenComparingInt(w -> w));
      int[] expected = new int[capacities[i]];
      for (int j = 0; j < expected.length; j++) {
        expected[j] = all[j];
      }
      int[] kept = c.words(i);
      Arrays.sort(kept);
      Arrays.sort(expected);
      assertArrayEquals(expected, kept, "query " + i);
      assertEquals(-2.0 * row[all[capacities[i] - 1]], c.worst(i), 0.0);
      assertEquals(row[all[capacities[i] - 1]], c.threshold[i], 0.0);
    }
  }
}
