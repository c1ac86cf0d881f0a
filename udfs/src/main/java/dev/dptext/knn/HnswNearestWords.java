package dev.dptext.knn;

import dev.dptext.embedding.Embeddings;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approximate k-nearest vocabulary words of noisy vectors, from an HNSW graph (Malkov &amp; Yashunin),
 * the opt-in alternative to the exact {@link NearestWords} ({@code nearestSearch=hnsw}).
 *
 * <p><b>Library.</b> Apache Lucene's {@code org.apache.lucene.util.hnsw} (lucene-core 9.12.x): Apache
 * 2.0, actively maintained by the Apache Lucene project, one 4.2 MB jar with no dependencies, compiled for
 * Java 11 (Lucene 10 needs Java 21, which Spark 4.0 / Databricks Runtime 17 clusters need not run), and
 * not on Spark 4.0.1's classpath, so it cannot conflict with it. Its builder is single-threaded and
 * draws node levels from a {@code SplittableRandom} of a fixed seed. jelmerk's hnswlib was the other
 * candidate: a one-person project with few releases, pulling eclipse-collections, with a multi-threaded
 * insert path; Lucene's is the HNSW that Elasticsearch, OpenSearch and Solr run.
 *
 * <p><b>Determinism.</b> The graph is built from the vocabulary alone, in rank order, single-threaded,
 * with seed {@value #SEED}, scoring with this class's own scalar loop (not Lucene's vectorized one,
 * whose float rounding could differ between JVMs): every JVM builds the identical graph, so the same
 * key, ids and settings give the same output whatever the partitioning. The graph is not shipped: it is
 * built lazily, once per JVM and model (on the first search of an executor's broadcast sanitizer, or of
 * the path-distributed sanitizer that JVM caches), and shared by that JVM's tasks and by every index of
 * the same vectors (same SHA-256) in the JVM.
 *
 * <p><b>Search.</b> The graph search returns the {@link #efSearch} best candidates by float distance;
 * their distances are recomputed in double and they are ordered by (distance, rank), as exact search
 * orders every word; the k first are the answer. Only a word the graph search missed can make it differ
 * from exact search. Recall against exact search is measured on the run's own queries: a query whose
 * bits hash to 0 modulo {@value #CHECK_ONE_IN} (a deterministic sample, independent of partitioning) is
 * also searched exactly and counted in a {@link SearchTally}.
 *
 * <p><b>Parameters</b> (fixed): M = {@value #MAX_CONN} links per node, beam width {@value #BEAM_WIDTH} while
 * building (Lucene's defaults), {@value #EF_SEARCH} candidates per query. Measured with {@code
 * scripts/bench/ann.sh} (GloVe 6B 100-d, 100,000 words, Laplace noise at ε = 10, one thread, AVX-512 Xeon):
 * build 27-28 s; efSearch 16 / 32 / 64 / 128 / 256 gave recall@1 0.36 / 0.49 / 0.60 / 0.69 / 0.78 at 1.5 /
 * 1.0 / 0.6 / 0.4 / 0.2 times the exact kernel's speed on uniformly drawn words, and recall@1 0.89 on the
 * job's own (frequency-weighted) tokens at 64. Laplace noise at these ε puts queries far outside the
 * vocabulary, where graph search is weak; no efSearch beat exact search there, so 64 is a middle ground,
 * not a recommendation to switch: exact stays the default.
 */
public final class HnswNearestWords implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(HnswNearestWords.class);

  /** Links per node (layer 0 keeps 2·M). */
  public static final int MAX_CONN = 16;
  /** Candidates kept while inserting a node. */
  public static final int BEAM_WIDTH = 100;
  /** Candidates the graph search returns per query, re-ranked exactly. */
  public static final int EF_SEARCH = 64;
  /** The seed of the node levels. */
  public static final long SEED = 42;
  /** One query in this many (by a hash of its bits) is also searched exactly, for the recall. */
  public static final int CHECK_ONE_IN = 64;

  /**
   * Graphs built in this JVM, by the SHA-256 of the vocabulary and vectors they index: sanitizers of one
   * model with different settings (other broadcasts, other ε) share one graph. Soft references: a graph
   * nothing uses any more goes when the heap needs the room, and is rebuilt, identically, if needed again.
   */
  private static final java.util.Map<String, java.lang.ref.SoftReference<LuceneGraph>> GRAPHS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final Embeddings embeddings;
  private final NearestWords exact;
  private final int efSearch;
  private final String vectorsHash;
  private transient volatile LuceneGraph graph;
  private transient long buildMillis = -1;

  /** An index with the default number of candidates per query, its graph not shared. */
  public HnswNearestWords(NearestWords exact) {
    this(exact, EF_SEARCH, null);
  }

  /**
   * An index over the embeddings of {@code exact}, which also answers the sampled recall checks.
   *
   * @param efSearch candidates per query (≥ 1); more is slower and closer to exact
   * @param vectorsHash the SHA-256 of the vocabulary and vectors ({@code DpTextModel.hash()}): indexes
   *     with the same hash share one graph per JVM; null: this index builds its own
   */
  public HnswNearestWords(NearestWords exact, int efSearch, String vectorsHash) {
    if (efSearch < 1) { // dptext's constant EF_SEARCH, or a benchmark's
      throw new IllegalStateException("efSearch must be at least 1, got " + efSearch);
    }
    this.exact = exact;
    this.embeddings = exact.embeddings();
    this.efSearch = efSearch;
    this.vectorsHash = vectorsHash;
  }

  /** Whether Lucene's HNSW classes are on this JVM's classpath (the job's shaded jar includes them). */
  public static boolean available() {
    try {
      Class.forName("org.apache.lucene.util.hnsw.HnswGraphBuilder", false, HnswNearestWords.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** The library and parameters, for summaries and logs. */
  public String describe() {
    return describe(efSearch);
  }

  /** The library and the parameters the product uses ({@link #EF_SEARCH} candidates per query). */
  public static String describeDefaults() {
    return describe(EF_SEARCH);
  }

  private static String describe(int efSearch) {
    return String.format(Locale.ROOT, "Lucene HNSW (M=%d, beamWidth=%d, efSearch=%d)", MAX_CONN, BEAM_WIDTH,
        efSearch);
  }

  public Embeddings embeddings() {
    return embeddings;
  }

  /** The exact index the recall checks use. */
  public NearestWords exact() {
    return exact;
  }

  /**
   * Builds the graph in this JVM now, if not yet built (or takes the one this JVM built for the same
   * vectors); returns the time its build took, in ms (0 when shared).
   */
  public long build() {
    graph();
    return buildMillis;
  }

  private LuceneGraph graph() {
    LuceneGraph g = graph;
    if (g == null) {
      synchronized (vectorsHash == null ? this : HnswNearestWords.class) {
        g = graph;
        if (g == null && vectorsHash != null) {
          java.lang.ref.SoftReference<LuceneGraph> shared = GRAPHS.get(vectorsHash);
          g = shared == null ? null : shared.get();
          if (g != null) {
            buildMillis = 0;
          }
        }
        if (g == null) {
          long start = System.nanoTime();
          g = new LuceneGraph(embeddings.rawVectors(), embeddings.size(), embeddings.dim());
          buildMillis = (System.nanoTime() - start) / 1_000_000;
          LOG.info("HNSW index over {} words built in this JVM in {} ms ({}, {} MB)", embeddings.size(), buildMillis,
              describe(), g.ramBytes() >> 20);
          if (vectorsHash != null) {
            GRAPHS.put(vectorsHash, new java.lang.ref.SoftReference<>(g));
          }
        }
        graph = g;
      }
    }
    return g;
  }

  /**
   * The (approximate) k nearest words of each query, ordered by exact (distance, rank).
   *
   * @param queries row-major n × m points
   * @param n number of queries
   * @param k neighbours wanted (1 ≤ k ≤ |V|)
   * @param outWords n × k ranks, nearest first
   * @param outDistances n × k Euclidean distances (exact, double, of the words returned)
   * @param tally where the sampled recall checks are counted; null: no checks
   */
  public void search(double[] queries, int n, int k, int[] outWords, double[] outDistances, SearchTally tally) {
    int size = embeddings.size();
    if (k < 1 || k > size) { // the mechanisms' validate(spec, model) keeps k <= |V|
      throw new IllegalStateException("k must be in [1, " + size + "], got " + k);
    }
    LuceneGraph g = graph();
    int m = embeddings.dim();
    int topK = Math.min(size, Math.max(k, efSearch));
    float[] q = new float[m];
    int sampled = 0;
    int[] checks = tally == null ? null : new int[n];
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < m; d++) {
        q[d] = (float) queries[i * m + d];
      }
      int[] ids = g.candidates(q, topK);
      if (ids.length < k) {
        // The graph search reached fewer than k words (a graph Lucene could not connect): answer exactly.
        int[] w = new int[k];
        double[] dist = new double[k];
        exact.search(java.util.Arrays.copyOfRange(queries, i * m, (i + 1) * m), 1, k, w, dist);
        System.arraycopy(w, 0, outWords, i * k, k);
        System.arraycopy(dist, 0, outDistances, i * k, k);
        continue;
      }
      double[] d2 = new double[ids.length];
      for (int c = 0; c < ids.length; c++) {
        d2[c] = embeddings.squaredDistanceTo(queries, i * m, ids[c]);
      }
      Heaps.sort(d2, ids, ids.length); // ids is this query's own array, from the graph search
      for (int r = 0; r < k; r++) {
        outWords[i * k + r] = ids[r];
        outDistances[i * k + r] = Math.sqrt(d2[r]);
      }
      if (checks != null && sampled(queries, i * m, m)) {
        checks[sampled++] = i;
      }
    }
    if (sampled > 0) {
      check(queries, checks, sampled, k, outWords, tally);
    }
  }

  /** Searches the sampled queries exactly and counts how many of their neighbours the graph found. */
  private void check(double[] queries, int[] which, int count, int k, int[] outWords, SearchTally tally) {
    int m = embeddings.dim();
    double[] sub = new double[count * m];
    for (int s = 0; s < count; s++) {
      System.arraycopy(queries, which[s] * m, sub, s * m, m);
    }
    int[] exactWords = new int[count * k];
    exact.search(sub, count, k, exactWords, new double[count * k]);
    long found = 0;
    for (int s = 0; s < count; s++) {
      for (int a = 0; a < k; a++) {
        int w = exactWords[s * k + a];
        for (int b = 0; b < k; b++) {
          if (outWords[which[s] * k + b] == w) {
            found++;
            break;
          }
        }
      }
    }
    tally.queries += count;
    tally.wanted += (long) count * k;
    tally.found += found;
  }

  /** Whether a query is in the recall sample: a hash of its coordinates' bits, 0 modulo {@link #CHECK_ONE_IN}. */
  static boolean sampled(double[] queries, int offset, int m) {
    long h = 0x9E3779B97F4A7C15L;
    for (int d = 0; d < m; d++) {
      h = (h ^ Double.doubleToLongBits(queries[offset + d])) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 31;
    }
    return Long.remainderUnsigned(h, CHECK_ONE_IN) == 0;
  }

  /** Lucene's graph and its use; the only class that names Lucene, loaded when a graph is first built. */
  private static final class LuceneGraph {
    private final float[] vectors;
    private final int size;
    private final int dim;
    private final org.apache.lucene.util.hnsw.OnHeapHnswGraph graph;

    LuceneGraph(float[] vectors, int size, int dim) {
      this.vectors = vectors;
      this.size = size;
      this.dim = dim;
      try {
        graph = org.apache.lucene.util.hnsw.HnswGraphBuilder.create(new Supplier(), MAX_CONN, BEAM_WIDTH, SEED)
            .build(size);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    long ramBytes() {
      return graph.ramBytesUsed();
    }

    /** The graph search's best {@code topK} words for {@code q} (by float distance). */
    int[] candidates(float[] q, int topK) {
      try {
        org.apache.lucene.search.TopDocs top = org.apache.lucene.util.hnsw.HnswGraphSearcher
            .search(new Scorer(q, 0), topK, graph, null, Integer.MAX_VALUE).topDocs();
        int[] ids = new int[top.scoreDocs.length];
        for (int c = 0; c < ids.length; c++) {
          ids[c] = top.scoreDocs[c].doc;
        }
        return ids;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Similarity 1/(1 + d²), d² summed in float in coordinate order: a plain loop, so the same bits on
     * every JVM and CPU (Java's float arithmetic is strict, and the JIT does not reorder a reduction).
     */
    private final class Scorer implements org.apache.lucene.util.hnsw.RandomVectorScorer {
      private final float[] q;
      private final int qOffset;

      Scorer(float[] q, int qOffset) {
        this.q = q;
        this.qOffset = qOffset;
      }

      @Override
      public float score(int node) {
        float s = 0f;
        int o = node * dim;
        for (int d = 0; d < dim; d++) {
          float t = q[qOffset + d] - vectors[o + d];
          s += t * t;
        }
        return 1f / (1f + s);
      }

      @Override
      public int maxOrd() {
        return size;
      }
    }

    /** Scorers against the vocabulary's own vectors, for the build; stateless, so its own copy. */
    private final class Supplier implements org.apache.lucene.util.hnsw.RandomVectorScorerSupplier {
      @Override
      public org.apache.lucene.util.hnsw.RandomVectorScorer scorer(int ord) {
        return new Scorer(vectors, ord * dim);
      }

      @Override
      public org.apache.lucene.util.hnsw.RandomVectorScorerSupplier copy() {
        return this;
      }
    }
  }
}
