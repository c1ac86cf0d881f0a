package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The all-pairs search returns, on every score kernel this JVM offers (the fused Vector API kernel,
 * native BLAS, Java BLAS), exactly the rows a brute-force double computation gives — same words, same
 * order, ties to the lower rank — and bounds that are valid (≤ the distance of every target word
 * outside the row) and no looser than the row's last distance; both through {@link NeighbourSearch#compute}
 * and through the partitioned build's {@link NeighbourSearch#searchBlock}, merged as the builder merges.
 */
class NeighbourSearchTest {

  /** Per word x, the target ranks [targetStart, n) by (exact distance, rank), and their distances. */
  record Reference(int[][] order, double[][] distances) {
    static Reference of(Embeddings e, int targetStart) {
      int n = e.size();
      int targets = n - targetStart;
      int[][] order = new int[n][];
      double[][] dist = new double[n][];
      for (int x = 0; x < n; x++) {
        Integer[] o = new Integer[targets];
        double[] d = new double[n];
        for (int y = targetStart; y < n; y++) {
          o[y - targetStart] = y;
          d[y] = e.distance(x, y);
        }
        Arrays.sort(o, (a, b) -> d[a] != d[b] ? Double.compare(d[a], d[b]) : Integer.compare(a, b));
        order[x] = new int[targets];
        dist[x] = new double[targets];
        for (int c = 0; c < targets; c++) {
          order[x][c] = o[c];
          dist[x][c] = d[o[c]];
        }
      }
      return new Reference(order, dist);
    }

    /** Row x of a table (words, bound) against brute force. */
    void check(int x, int[] row, double bound, String what) {
      int len = row.length;
      int targets = order[x].length;
      String msg = what + " word " + x;
      assertArrayEquals(Arrays.copyOf(order[x], len), row, msg);
      double next = len < targets ? distances[x][len] : Double.POSITIVE_INFINITY;
      assertTrue(bound <= next, msg + ": bound " + bound + " above the nearest word outside the row, " + next);
      assertTrue(bound >= distances[x][len - 1], msg + ": bound " + bound + " below the row's last distance");
    }
  }

  static void assertExact(Embeddings e, int targetStart, RowLengths rows, NeighbourTable t, Reference ref,
      String what) {
    int targets = e.size() - targetStart;
    assertEquals(e.size(), t.size(), what);
    assertEquals(targetStart, t.targetStart(), what);
    for (int x = 0; x < e.size(); x++) {
      int len = rows.forRank(x, targets);
      assertEquals(len, t.rowLength(x), what + " word " + x);
      int[] row = new int[len];
      for (int j = 0; j < len; j++) {
        row[j] = t.neighbour(x, j);
      }
      ref.check(x, row, t.outsideBound(x), what);
    }
  }

  static Embeddings random(RandomStream r, int n, int m, double offset) {
    String[] names = new String[n];
    float[] v = new float[n * m];
    for (int y = 0; y < n; y++) {
      names[y] = "w" + y;
      for (int d = 0; d < m; d++) {
        v[y * m + d] = (float) (offset + r.nextDouble() * 2 - 1);
      }
    }
    return new Embeddings(names, v, m);
  }

  /**
   * The partitioned build's path: shards of the given sizes, every (query shard, target shard) pair
   * through {@link NeighbourSearch#searchBlock}, merged per word as {@code PartitionedModelBuilder}
   * merges (the row is the K nearest of the union; the bound min(the union's (K+1)-th, every block's bound)).
   */
  static void assertBlocksExact(Embeddings e, int targetStart, RowLengths rows, int[] shardSizes,
      NearestWords.Backend backend, Reference ref, String what) {
    int n = e.size();
    int m = e.dim();
    int targets = n - targetStart;
    double[] mean = e.mean();
    double maxNorm = 0;
    for (int y = 0; y < n; y++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (e.rawVectors()[y * m + d] - mean[d]);
        s += (double) c * c;
      }
      maxNorm = Math.max(maxNorm, Math.sqrt(s));
    }
    int[] lo = new int[shardSizes.length + 1];
    for (int s = 0; s < shardSizes.length; s++) {
      lo[s + 1] = lo[s] + shardSizes[s];
    }
    assertEquals(n, lo[shardSizes.length], "shard sizes must cover the vocabulary");
    List<List<double[]>> found = new ArrayList<>(); // per word: (distance, rank) pairs of every block
    double[] rest = new double[n];
    Arrays.fill(rest, Double.POSITIVE_INFINITY);
    for (int x = 0; x < n; x++) {
      found.add(new ArrayList<>());
    }
    for (int a = 0; a < shardSizes.length; a++) {
      for (int b = 0; b < shardSizes.length; b++) {
        if (lo[b + 1] <= targetStart || shardSizes[a] == 0 || shardSizes[b] == 0) {
          continue;
        }
        float[] qv = Arrays.copyOfRange(e.rawVectors(), lo[a] * m, lo[a + 1] * m);
        float[] tv = Arrays.copyOfRange(e.rawVectors(), lo[b] * m, lo[b + 1] * m);
        int[] keep = new int[shardSizes[a]];
        for (int i = 0; i < keep.length; i++) {
          keep[i] = rows.forRank(lo[a] + i, targets) + 1;
        }
        NeighbourSearch.BlockCandidates c = NeighbourSearch.searchBlock(qv, shardSizes[a], tv, lo[b], shardSizes[b],
            Math.max(0, targetStart - lo[b]), m, mean, maxNorm, keep, backend);
        for (int i = 0; i < keep.length; i++) {
          int x = lo[a] + i;
          for (int j = 0; j < c.words()[i].length; j++) {
            assertEquals(e.distance(x, c.words()[i][j]), c.distances()[i][j], 0.0, what + " exact distance");
            found.get(x).add(new double[] {c.distances()[i][j], c.words()[i][j]});
          }
          rest[x] = Math.min(rest[x], c.restBound()[i]);
        }
      }
    }
    for (int x = 0; x < n; x++) {
      List<double[]> union = found.get(x);
      union.sort((p, q) -> p[0] != q[0] ? Double.compare(p[0], q[0]) : Double.compare(p[1], q[1]));
      int len = rows.forRank(x, targets);
      int[] row = new int[len];
      for (int j = 0; j < len; j++) {
        row[j] = (int) union.get(j)[1];
      }
      double bound = union.size() > len ? Math.min(union.get(len)[0], rest[x]) : rest[x];
      ref.check(x, row, bound, what + " (blocks " + Arrays.toString(shardSizes) + ")");
    }
  }

  @Test
  void everyKernelEqualsBruteForceOnGloveWithTieredRows() {
    Embeddings e = Fixtures.gloveTop2000().topWords(1500);
    for (int targetStart : new int[] {0, 1100}) {
      Reference ref = Reference.of(e, targetStart);
      RowLengths rows = RowLengths.tiered(2); // 128 / 16 neighbours: a 128-word row for the first 1,024
      for (NearestWords.Backend b : NearestWordsTest.backends()) {
        assertExact(e, targetStart, rows, NeighbourSearch.compute(e, targetStart, rows, b), ref,
            b + " targets from " + targetStart);
        assertBlocksExact(e, targetStart, rows, new int[] {511, 1, 700, 288}, b, ref, b + " from " + targetStart);
      }
    }
  }

  @Test
  void everyKernelEqualsBruteForceOnAwkwardShapes() {
    // Vocabulary and target-set sizes around the 16- and 32-word panels, the 6-query groups and the
    // 510-query blocks; rows from one word to the whole target set.
    RandomStream r = RandomStream.fromSeed(11);
    for (int n : new int[] {1, 2, 6, 7, 16, 17, 31, 33, 64, 65, 97, 509, 511, 1021}) {
      int m = 1 + r.nextInt(20);
      Embeddings e = random(r, n, m, n % 2 == 0 ? 0 : 300);
      for (int targetStart : new int[] {0, n / 3, Math.max(0, n - 17), n - 1}) {
        Reference ref = Reference.of(e, targetStart);
        for (int k : new int[] {1, 3, 40, n + 5}) {
          RowLengths rows = k == 3 ? RowLengths.tiered(3) : RowLengths.uniform(k);
          for (NearestWords.Backend b : NearestWordsTest.backends()) {
            String what = b + " n=" + n + " m=" + m + " from " + targetStart + " " + rows;
            assertExact(e, targetStart, rows, NeighbourSearch.compute(e, targetStart, rows, b), ref, what);
            if (k != 40 && n > 6) {
              assertBlocksExact(e, targetStart, rows, new int[] {n / 2, 0, n - n / 2 - 1, 1}, b, ref, what);
            }
          }
        }
      }
    }
  }

  @Test
  void tiesAndDuplicatesGoToTheLowerRankOnEveryKernel() {
    // A coarse integer grid (many exact distance ties) holding a 40-fold duplicate vector spread over
    // several panels: more copies than a row plus its slack, so float candidates cannot certify the rows
    // ending inside the cluster and those are searched again by brute force.
    int n = 400;
    int m = 3;
    RandomStream r = RandomStream.fromSeed(17);
    String[] names = new String[n];
    float[] v = new float[n * m];
    for (int y = 0; y < n; y++) {
      names[y] = "w" + y;
      for (int d = 0; d < m; d++) {
        v[y * m + d] = y % 10 == 4 ? 0.5f : 1000f + r.nextInt(5) - 2; // 1000 + grid; copies at 0.5
      }
    }
    Embeddings e = new Embeddings(names, v, m);
    for (int targetStart : new int[] {0, 37}) {
      Reference ref = Reference.of(e, targetStart);
      for (RowLengths rows : new RowLengths[] {RowLengths.uniform(1), RowLengths.uniform(8), RowLengths.uniform(30)}) {
        for (NearestWords.Backend b : NearestWordsTest.backends()) {
          String what = b + " ties from " + targetStart + " " + rows;
          assertExact(e, targetStart, rows, NeighbourSearch.compute(e, targetStart, rows, b), ref, what);
          assertBlocksExact(e, targetStart, rows, new int[] {33, 200, 167}, b, ref, what);
        }
      }
    }
  }

  @Test
  void adversarialScalesStayExact() {
    // Triples of words 1e-4 apart under a common offset of 500: float scores cannot separate them.
    Embeddings g = Fixtures.gloveTop2000();
    int m = g.dim();
    int n = 300;
    float[] v = new float[n * m];
    String[] names = new String[n];
    for (int y = 0; y < n; y++) {
      names[y] = "w" + y;
      for (int d = 0; d < m; d++) {
        v[y * m + d] = 500f + g.rawVectors()[(y / 3) * m + d] + (y % 3) * 1e-4f;
      }
    }
    Embeddings e = new Embeddings(names, v, m);
    Reference ref = Reference.of(e, 0);
    for (NearestWords.Backend b : NearestWordsTest.backends()) {
      for (int k : new int[] {1, 2, 5}) {
        assertExact(e, 0, RowLengths.uniform(k), NeighbourSearch.compute(e, 0, RowLengths.uniform(k), b), ref,
            b + " k=" + k);
      }
      assertBlocksExact(e, 0, RowLengths.uniform(2), new int[] {100, 100, 100}, b, ref, b.toString());
    }
  }

  @Test
  void theDefaultKernelAgreesWithEveryOther() {
    Embeddings e = Fixtures.gloveTop2000();
    NeighbourTable best = NeighbourSearch.compute(e, 0, RowLengths.tiered(4));
    for (NearestWords.Backend b : NearestWordsTest.backends()) {
      NeighbourTable other = NeighbourSearch.compute(e, 0, RowLengths.tiered(4), b);
      assertArrayEquals(best.rawOffsets(), other.rawOffsets(), b.toString());
      assertArrayEquals(best.rawNeighbours(), other.rawNeighbours(), b.toString());
    }
  }
}
