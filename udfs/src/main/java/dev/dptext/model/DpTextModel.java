package dev.dptext.model;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.HnswNearestWords;
import dev.dptext.knn.NearestWords;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the mechanisms need that does not depend on ε: the embeddings (vocabulary in public
 * frequency order) and neighbour tables, one per target set, keyed by the target set's first rank.
 *
 * <p>Built once on the driver (or read from an artifact, see {@link ModelArtifact}) and broadcast
 * inside the mechanisms; memory O(|V|·(m + K)). A neighbour table missing from the artifact is
 * computed on first use — on the driver, where the mechanisms are built, never on executors.
 */
public final class DpTextModel implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The model file format version {@link ModelArtifact#write} writes ({@code docs/model-format.md}); it
   * reads this one and version 1.
   */
  public static final int FORMAT_VERSION = 2;

  /** Neighbours per word unless configured otherwise. */
  public static final int DEFAULT_NEIGHBOURS = 64;

  private final Embeddings embeddings;
  private final RowLengths rows;
  private final Map<Integer, NeighbourTable> tables;
  private final Map<String, String> metadata;
  private final String embeddingsHash;
  private EmbeddingCovariance covariance;
  private transient NearestWords nearestWords;
  private transient HnswNearestWords hnsw;
  private final Map<Integer, BinaryCodes> binaryCodes = new ConcurrentHashMap<>();

  DpTextModel(
      Embeddings embeddings, RowLengths rows, Map<Integer, NeighbourTable> tables,
      Map<String, String> metadata, String embeddingsHash) {
    this.embeddings = embeddings;
    this.rows = rows;
    this.tables = new ConcurrentHashMap<>(tables);
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    this.embeddingsHash = embeddingsHash;
  }

  /**
   * A model over these embeddings with no precomputed tables, whose rows have {@code neighbours}
   * entries, longer for frequent words ({@link RowLengths#tiered}).
   */
  public static DpTextModel of(Embeddings embeddings, String source, int neighbours) {
    return of(embeddings, source, RowLengths.tiered(neighbours));
  }

  /** A model with these row lengths and no precomputed tables. */
  public static DpTextModel of(Embeddings embeddings, String source, RowLengths rows) {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("source", source);
    return new DpTextModel(embeddings, rows, Map.of(), meta, EmbeddingsHash.of(embeddings));
  }

  /**
   * The same embeddings with the vocabulary re-ranked: word {@code order[i]} of this model becomes
   * rank i. Used for the opt-in "private corpus" frequency source of SanText+; neighbour tables are
   * recomputed on use. The new model's metadata records {@code frequencySource}.
   */
  public DpTextModel reranked(int[] order, String frequencySource) {
    int n = embeddings.size();
    if (order.length != n) { // the order is dptext's own count of the corpus, one rank per word
      throw new IllegalStateException("order has " + order.length + " entries for " + n + " words");
    }
    int dim = embeddings.dim();
    String[] words = new String[n];
    float[] vectors = new float[n * dim];
    boolean[] seen = new boolean[n];
    for (int i = 0; i < n; i++) {
      int w = order[i];
      if (w < 0 || w >= n || seen[w]) {
        throw new IllegalStateException("order is not a permutation: rank " + w + " at position " + i);
      }
      seen[w] = true;
      words[i] = embeddings.word(w);
      System.arraycopy(embeddings.rawVectors(), w * dim, vectors, i * dim, dim);
    }
    Embeddings e = new Embeddings(words, vectors, dim);
    Map<String, String> meta = new java.util.LinkedHashMap<>(metadata);
    meta.put("frequencySource", frequencySource);
    return new DpTextModel(e, rows, Map.of(), meta, EmbeddingsHash.of(e));
  }

  public Embeddings embeddings() {
    return embeddings;
  }

  /** K, the base number of neighbours per word in each table. */
  public int neighbourCount() {
    return rows.k();
  }

  /** The row-length policy of this model's neighbour tables. */
  public RowLengths rowLengths() {
    return rows;
  }

  /** SHA-256 of the vocabulary and vectors, hex: identifies the model in audit logs. */
  public String hash() {
    return embeddingsHash;
  }

  /** Free-form build information (source file, build time, dptext version). */
  public Map<String, String> metadata() {
    return metadata;
  }

  /** The neighbour table for target ranks {@code [targetStart, |V|)}, computing it if needed. */
  public NeighbourTable neighbours(int targetStart) {
    return tables.computeIfAbsent(
        targetStart, t -> NeighbourSearch.compute(embeddings, t, rows));
  }

  /** The embeddings' covariance scaled to trace m, computed on first use and kept in the artifact. */
  public synchronized EmbeddingCovariance covariance() {
    if (covariance == null) {
      covariance = EmbeddingCovariance.of(embeddings);
    }
    return covariance;
  }

  /** Whether the covariance has been computed (or loaded). */
  public synchronized boolean hasCovariance() {
    return covariance != null;
  }

  synchronized void setCovariance(EmbeddingCovariance c) {
    this.covariance = c;
  }

  /** The exact nearest-word index over this vocabulary (built once per model, on first use). */
  public synchronized NearestWords nearestWords() {
    if (nearestWords == null) {
      nearestWords = new NearestWords(embeddings);
    }
    return nearestWords;
  }

  /**
   * The approximate (HNSW) nearest-word index over this vocabulary, one per model in this JVM. Its graph
   * is built on its first search, in the JVM that searches (see {@link HnswNearestWords}).
   */
  public synchronized HnswNearestWords hnswNearestWords() {
    if (hnsw == null) {
      hnsw = new HnswNearestWords(nearestWords(), HnswNearestWords.EF_SEARCH, embeddingsHash);
    }
    return hnsw;
  }

  /**
   * The vocabulary's {@code bits}-bit codes for BRR (random hyperplanes from the public default seed,
   * see {@link BinaryCodes}); derived from the embeddings, so computed on first use, not stored.
   */
  public BinaryCodes binaryCodes(int bits) {
    return binaryCodes.computeIfAbsent(bits, b -> BinaryCodes.of(embeddings, b, BinaryCodes.DEFAULT_SEED));
  }

  /** Whether the table for this target set is already present. */
  public boolean hasNeighbours(int targetStart) {
    return tables.containsKey(targetStart);
  }

  /** The tables present, by target start. */
  public Map<Integer, NeighbourTable> tables() {
    return Collections.unmodifiableMap(new TreeMap<>(tables));
  }
}
