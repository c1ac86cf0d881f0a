package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batched float search returns exactly what a brute-force double search returns — same words,
 * same order, ties to the lower rank, same distances — on every score kernel (native BLAS, the
 * Vector API kernel, Java BLAS), so the kernels also agree with each other.
 */
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

  /** The kernels this JVM can run; the Vector API one must be among them under the build's flags. */
  static List<NearestWords.Backend> backends() {
    List<NearestWords.Backend> out = new ArrayList<>();
    for (NearestWords.Backend b : NearestWords.Backend.values()) {
      if (b.available()) {
        out.add(b);
      }
    }
    return out;
  }

  /** Brute force's k nearest of each of n queries: n × k ranks and distances. */
  record Expected(int k, int[] words, double[] distances) {
    static Expected of(Embeddings e, double[] q, int n, int k) {
      int[] words = new int[n * k];
      double[] dist = new double[n * k];
      int[] bw = new int[k];
      double[] bd = new double[k];
      for (int i = 0; i < n; i++) {
        bruteForce(e, q, i, k, bw, bd);
        System.arraycopy(bw, 0, words, i * k, k);
        System.arraycopy(bd, 0, dist, i * k, k);
      }
      return new Expected(k, words, dist);
    }
  }

  /**
   * Runs one search of n queries for k ≤ expected.k and checks every answer against brute force's
   * first k (the k nearest are a prefix of the expected.k nearest under the (distance, rank) order).
   */
  static void assertExact(NearestWords nearest, double[] q, int n, int k, Expected expected, String what) {
    int[] words = new int[n * k];
    double[] dist = new double[n * k];
    nearest.search(q, n, k, words, dist);
    int kk = expected.k();
    for (int i = 0; i < n; i++) {
      String msg = what + " query " + i + " k=" + k;
      assertArrayEquals(java.util.Arrays.copyOfRange(expected.words(), i * kk, i * kk + k),
          java.util.Arrays.copyOfRange(words, i * k, i * k + k), msg);
      for (int c = 0; c < k; c++) {
        assertEquals(expected.distances()[i * kk + c], dist[i * k + c], 0.0, msg);
      }
    }
  }

  static void assertExact(NearestWords nearest, double[] q, int n, int k, String what) {
    assertExact(nearest, q, n, k, Expected.of(nearest.embeddings(), q, n, k), what);
  }

  @Test
  void theVectorApiKernelRunsUnderTheBuildsJvmFlags() {
    // surefire passes spark.module.options (with --add-modules=jdk.incubator.vector), as Spark does;
    // if this fails, the pure-Java kernel is silently untested.
    assertTrue(NearestWords.vectorApi(), "jdk.incubator.vector not usable in the test JVM");
    assertTrue(backends().contains(NearestWords.Backend.JAVA_VECTOR));
  }

  @Test
  void everyKernelEqualsBruteForceOnGlove() {
    Embeddings e = Fixtures.gloveTop2000();
    int m = e.dim();
    RandomStream r = RandomStream.fromSeed(11);
    int n = 700; // more than one query block; not a multiple of the 6-query tile
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(e.size());
      double scale = i % 3 == 0 ? 0 : i % 3 == 1 ? 0.3 : 3.0; // exact words, near, far
      for (int d = 0; d < m; d++) {
        q[i * m + d] = e.rawVectors()[w * m + d] + scale * (r.nextDouble() - 0.5);
      }
    }
    Expected expected = Expected.of(e, q, n, 5);
    for (NearestWords.Backend b : backends()) {
      NearestWords nearest = new NearestWords(e, b);
      for (int k : new int[] {1, 2, 5}) {
        assertExact(nearest, q, n, k, expected, b.toString());
      }
    }
  }

  @Test
  void everyKernelEqualsBruteForceOnAwkwardShapes() {
    // Vocabulary sizes around the 16- and 32-word panels (256- and 512-bit vectors), query counts around
    // the 6-query tile, k up to |V|.
    RandomStream r = RandomStream.fromSeed(5);
    for (int size : new int[] {1, 7, 16, 17, 31, 32, 33, 65, 100}) {
      int m = 1 + r.nextInt(9);
      String[] names = new String[size];
      float[] v = new float[size * m];
      for (int y = 0; y < size; y++) {
        names[y] = "w" + y;
        for (int d = 0; d < m; d++) {
          v[y * m + d] = (float) (r.nextDouble() * 2 - 1);
        }
      }
      Embeddings e = new Embeddings(names, v, m);
      for (int n : new int[] {1, 5, 6, 7, 13}) {
        double[] q = new double[n * m];
        for (int i = 0; i < q.length; i++) {
          q[i] = r.nextDouble() * 4 - 2;
        }
        for (NearestWords.Backend b : backends()) {
          NearestWords nearest = new NearestWords(e, b);
          for (int k : new int[] {1, Math.min(3, size), size}) {
            assertExact(nearest, q, n, k, b + " |V|=" + size + " m=" + m + " n=" + n);
          }
        }
      }
    }
  }

  @Test
  void tiesGoToTheLowerRankOnEveryKernel() {
    // Many exact duplicates spread over several panels (ranks 3, 20, 37, …), and queries equidistant
    // from pairs of words: float scores tie, the exact order must still put the lower rank first.
    int size = 90;
    int m = 4;
    String[] names = new String[size];
    float[] v = new float[size * m];
    RandomStream r = RandomStream.fromSeed(9);
    for (int y = 0; y < size; y++) {
      names[y] = "w" + y;
      for (int d = 0; d < m; d++) {
        v[y * m + d] = y % 17 == 3 ? 0.25f : (float) (r.nextInt(5) - 2); // a coarse grid: many ties
      }
    }
    Embeddings e = new Embeddings(names, v, m);
    int n = 40;
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < m; d++) {
        q[i * m + d] = i < 10 ? 0.25 : (r.nextInt(9) - 4) * 0.5; // duplicates' vector, grid midpoints
      }
    }
    for (NearestWords.Backend b : backends()) {
      NearestWords nearest = new NearestWords(e, b);
      for (int k : new int[] {1, 4, 9}) {
        assertExact(nearest, q, n, k, b.toString());
      }
      int[] out = new int[1];
      nearest.search(new double[] {0.25, 0.25, 0.25, 0.25}, 1, 1, out, new double[1]);
      assertEquals(3, out[0], b + ": the lowest-ranked duplicate");
    }
  }

  @Test
  void uncertifiedQueriesFallBackExactlyOnEveryKernel() {
    // Words 0 and 2 share a vector; a large common offset makes float products cancel badly.
    String[] words = {"a0", "a1", "a2", "a3"};
    float[] v = {
      1000f, 1000f, 1000.5f, 1000f, 1000f, 1000f, 1001f, 999f,
    };
    Embeddings e = new Embeddings(words, v, 2);
    for (NearestWords.Backend b : backends()) {
      NearestWords nearest = new NearestWords(e, b);
      double[] q = {1000.0, 1000.0, 1000.2, 1000.0};
      int[] out = new int[4];
      double[] dist = new double[4];
      nearest.search(q, 2, 2, out, dist);
      assertArrayEquals(new int[] {0, 2, 0, 2}, out, b.toString());
    }
  }

  @Test
  void adversarialScalesStayExact() {
    // Far queries (the float scores of all words nearly equal relative to their size), words almost on
    // top of each other, and a huge common offset: either certified or answered by brute force.
    Embeddings g = Fixtures.gloveTop2000();
    int m = g.dim();
    int size = 300;
    float[] v = new float[size * m];
    String[] names = new String[size];
    for (int y = 0; y < size; y++) {
      names[y] = "w" + y;
      for (int d = 0; d < m; d++) {
        float base = g.rawVectors()[(y / 3) * m + d];
        v[y * m + d] = 500f + base + (y % 3) * 1e-4f; // triples 1e-4 apart, offset 500
      }
    }
    Embeddings e = new Embeddings(names, v, m);
    RandomStream r = RandomStream.fromSeed(21);
    int n = 25;
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(size);
      double scale = i % 2 == 0 ? 1e-5 : 1e3;
      for (int d = 0; d < m; d++) {
        q[i * m + d] = v[w * m + d] + scale * (r.nextDouble() - 0.5);
      }
    }
    for (NearestWords.Backend b : backends()) {
      assertExact(new NearestWords(e, b), q, n, 3, b.toString());
    }
  }

  @Test
  void queriesFarOutsideTheVocabularyStayExact() {
    // A Laplace query at a tiny ε lies 10³–10⁷ vocabulary radii away: the centring's rounding then
    // shifts every approximate distance by ~2^-23·‖q‖², which the margin must cover (or fall back).
    Embeddings e = Fixtures.gloveTop2000();
    int m = e.dim();
    RandomStream r = RandomStream.fromSeed(33);
    int n = 40;
    double[] q = new double[n * m];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(e.size());
      double radius = Math.pow(10, 3 + (i % 5)) * 5; // GloVe's radius is ~5
      double[] z = new double[m];
      double norm = 0;
      for (int d = 0; d < m; d++) {
        z[d] = r.nextDouble() - 0.5;
        norm += z[d] * z[d];
      }
      norm = Math.sqrt(norm);
      for (int d = 0; d < m; d++) {
        q[i * m + d] = e.rawVectors()[w * m + d] + radius * z[d] / norm;
      }
    }
    Expected expected = Expected.of(e, q, n, 2);
    for (NearestWords.Backend b : backends()) {
      assertExact(new NearestWords(e, b), q, n, 2, expected, b.toString());
    }
  }

  /**
   * The certificate's premise, checked directly: for noisy queries from just off a word to 10⁵
   * vocabulary radii out, every word's approximate squared distance from each kernel's float score is
   * within {@link NearestWords#margin} of the exact one (the margin is a proven bound; this guards its
   * use for arbitrary query points, not only vocabulary words, on every kernel and, through
   * VectorWidthTest, at both vector widths). Also asserts the bound is not vacuous: the observed error
   * reaches a measurable share of it.
   */
  @Test
  void theRoundingMarginBoundsEveryKernelsErrorOnNoisyQueries() {
    Embeddings e = Fixtures.gloveTop2000();
    int m = e.dim();
    int size = e.size();
    double[] mean = e.mean();
    float[] raw = e.rawVectors();
    double maxNorm = 0;
    for (int y = 0; y < size; y++) {
      double s = 0;
      for (int d = 0; d < m; d++) {
        float c = (float) (raw[y * m + d] - mean[d]);
        s += (double) c * c;
      }
      maxNorm = Math.max(maxNorm, Math.sqrt(s));
    }
    RandomStream r = RandomStream.fromSeed(44);
    int n = 36;
    double[] q = new double[n * m];
    float[] qa = new float[n * (m + 1)];
    double[] qNorm2 = new double[n];
    for (int i = 0; i < n; i++) {
      int w = r.nextInt(size);
      double radius = Math.pow(10, i % 6 - 1) * 5; // 0.1 to 10⁴ times GloVe's radius of ~5
      double[] z = new double[m];
      double norm = 0;
      for (int d = 0; d < m; d++) {
        z[d] = r.nextDouble() - 0.5;
        norm += z[d] * z[d];
      }
      norm = Math.sqrt(norm);
      for (int d = 0; d < m; d++) {
        q[i * m + d] = raw[w * m + d] + radius * z[d] / norm;
        float c = (float) (q[i * m + d] - mean[d]); // centred and rounded as NearestWords does
        qa[i * (m + 1) + d] = c;
        qNorm2[i] += (double) c * c;
      }
      qa[i * (m + 1) + m] = 1f;
    }
    float[] augmented = NearestWords.augmented(raw, 0, size, m, mean);
    for (NearestWords.Backend b : backends()) {
      Candidates all = new Candidates(n, size); // room for every word: every score is kept
      NearestWords.kernel(b, augmented, size, m + 1, 0).scan(qa, n, all);
      double worstShare = 0;
      for (int i = 0; i < n; i++) {
        assertEquals(size, all.size[i]);
        double margin = NearestWords.margin(m, Math.sqrt(qNorm2[i]), maxNorm);
        for (int c = 0; c < size; c++) {
          long key = all.heap[all.base[i] + c];
          double approx = qNorm2[i] - 2.0 * Candidates.score(key);
          double exact = e.squaredDistanceTo(q, i * m, Candidates.word(key));
          double share = Math.abs(approx - exact) / margin;
          worstShare = Math.max(worstShare, share);
          assertTrue(share <= 1, b + ", query " + i + ", word " + Candidates.word(key) + ": |d̃² − d²| = "
              + Math.abs(approx - exact) + " > margin " + margin);
        }
      }
      assertTrue(worstShare > 1e-3, b + ": the largest error is only " + worstShare + " of the margin");
    }
  }

  @Test
  void aDeserializedIndexRebuildsItsKernelAndAnswersTheSame() throws Exception {
    Embeddings e = Fixtures.gloveTop2000();
    NearestWords nearest = new NearestWords(e);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(nearest);
    }
    NearestWords copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (NearestWords) in.readObject();
    }
    assertEquals(nearest.describeKernel(), copy.describeKernel());
    int m = e.dim();
    double[] q = new double[9 * m];
    RandomStream r = RandomStream.fromSeed(3);
    for (int i = 0; i < q.length; i++) {
      q[i] = e.rawVectors()[i] + r.nextDouble() - 0.5;
    }
    assertExact(copy, q, 9, 4, "deserialized");
  }

  @Test
  void theBackendPropertyPicksOneAndABadValueIsNamed() {
    String before = System.getProperty(NearestWords.BACKEND_PROPERTY);
    try {
      // Unset: the fused Vector API kernel wherever the Vector API runs (measured fastest on AVX2 and
      // AVX-512 CPUs alike, BENCHMARKS.md).
      System.clearProperty(NearestWords.BACKEND_PROPERTY);
      assertEquals(NearestWords.Backend.JAVA_VECTOR, NearestWords.Backend.best());
      System.setProperty(NearestWords.BACKEND_PROPERTY, "vector");
      assertEquals(NearestWords.Backend.JAVA_VECTOR, NearestWords.Backend.best());
      System.setProperty(NearestWords.BACKEND_PROPERTY, "java");
      assertEquals(NearestWords.Backend.JAVA_BLAS, NearestWords.Backend.best());
      System.setProperty(NearestWords.BACKEND_PROPERTY, "gpu");
      IllegalArgumentException x =
          org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, NearestWords.Backend::best);
      dev.dptext.testing.ErrorAssertions.assertError(x, "JVM_PROPERTY_INVALID", java.util.Map.of("property",
          NearestWords.BACKEND_PROPERTY, "value", "gpu", "what", "a nearest-word backend", "choices",
          "native, vector or java"));
    } finally {
      if (before == null) {
        System.clearProperty(NearestWords.BACKEND_PROPERTY);
      } else {
        System.setProperty(NearestWords.BACKEND_PROPERTY, before);
      }
    }
  }

  /**
   * The double-precision fallback keeps the lower ranks of a tie that straddles the k-th place when a
   * nearer word arrives after it (a heap ordered by distance alone evicted whichever tied word was on
   * top: [12, 1] here instead of [12, 0]). Calls the fallback directly, as an uncertified query would.
   */
  @Test
  void bruteForceFallbackKeepsTheLowerRanksOfATieAtTheKthPlace() {
    // Ranks 0–11 at distance exactly 4 from the query (4·e_y, distinct vectors; then one vector
    // twelve times), rank 12 at distance 1.
    int n = 13;
    int m = 12;
    String[] names = new String[n];
    float[] spread = new float[m * n];
    float[] repeated = new float[m * n];
    for (int y = 0; y < 12; y++) {
      names[y] = "w" + y;
      spread[m * y + y] = 4f;
      repeated[m * y] = 4f;
    }
    names[12] = "near";
    spread[m * 12] = 1f;
    repeated[m * 12] = 1f;
    double[] query = new double[m];
    for (float[] v : List.of(spread, repeated)) {
      Embeddings e = new Embeddings(names, v, m);
      NearestWords nearest = new NearestWords(e, backends().get(0));
      for (int k = 1; k <= 4; k++) {
        int[] expected = new int[k];
        bruteForce(e, query, 0, k, expected, new double[k]);
        int[] out = new int[k];
        nearest.bruteForce(query, 0, k, out, new double[k]);
        assertArrayEquals(expected, out, "k = " + k);
      }
      int[] two = new int[2];
      nearest.bruteForce(query, 0, 2, two, new double[2]);
      assertArrayEquals(new int[] {12, 0}, two);
    }
  }

  /**
   * The brute-force fallback (what an uncertified query gets) orders by (distance, rank): with every
   * vector present four times, the tied words kept must be the lowest ranks. Its heap once ordered by
   * distance alone and could evict the lower of two tied ranks.
   */
  @Test
  void bruteForceBreaksTiesByTheLowerRank() {
    int distinct = 10;
    int copies = 4;
    int m = 3;
    RandomStream r = RandomStream.fromSeed(11);
    float[] base = new float[distinct * m];
    for (int i = 0; i < base.length; i++) {
      base[i] = (float) Math.rint(4 * r.nextDouble()); // small integers: many equal distances
    }
    int n = distinct * copies;
    String[] words = new String[n];
    float[] vectors = new float[n * m];
    for (int w = 0; w < n; w++) {
      words[w] = "w" + w;
      System.arraycopy(base, (w % distinct) * m, vectors, w * m, m);
    }
    Embeddings e = new Embeddings(words, vectors, m);
    NearestWords nearest = new NearestWords(e);
    for (int q = 0; q < 40; q++) {
      double[] query = new double[m];
      for (int d = 0; d < m; d++) {
        query[d] = Math.rint(4 * r.nextDouble());
      }
      for (int k = 1; k <= 13; k++) {
        int[] got = new int[k];
        double[] dist = new double[k];
        nearest.bruteForce(query, 0, k, got, dist);
        Integer[] all = new Integer[n];
        double[] d2 = new double[n];
        for (int y = 0; y < n; y++) {
          all[y] = y;
          d2[y] = e.squaredDistanceTo(query, 0, y);
        }
        java.util.Arrays.sort(all, (a, b) -> d2[a] != d2[b] ? Double.compare(d2[a], d2[b]) : Integer.compare(a, b));
        for (int c = 0; c < k; c++) {
          assertEquals(all[c].intValue(), got[c], "query " + q + ", k " + k + ", position " + c);
        }
      }
    }
  }
}
