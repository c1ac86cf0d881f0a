package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The batched float-GEMM search returns exactly what a brute-force double search returns. */
class NearestWordsTest {

  static void bruteForce(Embeddings e, double[] q, int qi, int k, int[] words, double[] dist) {
    int n = e.size();
    Integer[] order = new Integer[n];
    double[] d = new double[n];
    for (int y = 0; y < n; y++) {
      order[y] = y;
      d[y] = e.squaredDistanceTo(q, qi * e.dim(), y);
    }
    java.util.Arrays.sort(order, (a, b) -> d[a] != d[b] ? Double.compare(d[a], d[b]) : Integer.compare(a, b));
    for (int c = 0; c < k; c++) {
      words[c] = order[c];
      dist[c] = Math.sqrt(d[order[c]]);
    }
  }

  @Test
  void batchedSearchEqualsBruteForce() {
    Embeddings e = Fixtures.gloveTop2000();
    NearestWords nearest = new NearestWords(e);
    int m = e.dim();
    RandomStream r = RandomStream.fromSeed(11);
    int n = 700; // more than one query block
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(e.size());
      double scale = i % 3 == 0 ? 0 : i % 3 == 1 ? 0.3 : 3.0; // exact words, near, far
      for (int d = 0; d < m; d++) {
        q[i * m + d] = e.rawVectors()[w * m + d] + scale * (r.nextDouble() - 0.5);
      }
    }
    for (int k : new int[] {1, 2, 5}) {
      int[] words = new int[n * k];
      double[] dist = new double[n * k];
      nearest.search(q, n, k, words, dist);
      int[] bw = new int[k];
      double[] bd = new double[k];
      for (int i = 0; i < n; i++) {
        bruteForce(e, q, i, k, bw, bd);
        assertArrayEquals(bw, java.util.Arrays.copyOfRange(words, i * k, i * k + k), "query " + i + " k=" + k);
        for (int c = 0; c < k; c++) {
          assertEquals(bd[c], dist[i * k + c], 0.0);
        }
      }
    }
  }

  @Test
  void tiesGoToTheLowerRankAndUncertifiedQueriesFallBackExactly() {
    // Words 0 and 2 share a vector; a large common offset makes float products cancel badly.
    String[] words = {"a0", "a1", "a2", "a3"};
    float[] v = {
      1000f, 1000f, 1000.5f, 1000f, 1000f, 1000f, 1001f, 999f,
    };
    Embeddings e = new Embeddings(words, v, 2);
    NearestWords nearest = new NearestWords(e);
    double[] q = {1000.0, 1000.0, 1000.2, 1000.0};
    int[] out = new int[4];
    double[] dist = new double[4];
    nearest.search(q, 2, 2, out, dist);
    assertArrayEquals(new int[] {0, 2, 0, 2}, out);
  }
}
