package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.dptext.random.RandomStream;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.Test;

/** {@link Heaps#sort} gives the (distance, rank) order that a plain comparator sort gives. */
class HeapsTest {

  @Test
  void sortEqualsAComparatorSortOnListsWithManyTies() {
    RandomStream r = RandomStream.fromSeed(11);
    for (int n : new int[] {0, 1, 2, 3, 5, 16, 17, 100, 1000, 4113}) {
      for (int distinct : new int[] {1, 3, 1_000_000}) { // few distinct distances: ties broken by rank
        double[] d = new double[n];
        int[] id = new int[n];
        for (int c = 0; c < n; c++) {
          d[c] = r.nextInt(distinct) * 0.25;
          id[c] = c;
        }
        for (int c = n - 1; c > 0; c--) { // ranks in a random order
          int j = r.nextInt(c + 1);
          int t = id[c];
          id[c] = id[j];
          id[j] = t;
        }
        Integer[] positions = new Integer[n];
        Arrays.setAll(positions, c -> c);
        Arrays.sort(positions, Comparator.<Integer>comparingDouble(c -> d[c]).thenComparingInt(c -> id[c]));
        double[] wantD = Arrays.stream(positions).mapToDouble(c -> d[c]).toArray();
        int[] wantId = Arrays.stream(positions).mapToInt(c -> id[c]).toArray();

        Heaps.sort(d, id, n);
        assertArrayEquals(wantD, d, "n=" + n + " distinct=" + distinct);
        assertArrayEquals(wantId, id, "n=" + n + " distinct=" + distinct);
      }
    }
  }

  @Test
  void sortLeavesEverythingPastNAlone() {
    double[] d = {3, 1, 2, 0.5, -1};
    int[] id = {0, 1, 2, 3, 4};
    Heaps.sort(d, id, 3);
    assertArrayEquals(new double[] {1, 2, 3, 0.5, -1}, d);
    assertArrayEquals(new int[] {1, 2, 0, 3, 4}, id);
  }
}
