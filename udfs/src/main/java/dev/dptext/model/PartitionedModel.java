package dev.dptext.model;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.EmbeddingCovariance;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A model stored as a partitioned dataset, for vocabularies too large to broadcast: a directory
 *
 * <pre>
 *   manifest.properties        format, version, |V|, m, SHA-256 hash, K and row policy, tables, shards
 *   vectors/                   Parquet: rank int, word string, vector array&lt;float&gt;
 *   neighbours-&lt;t&gt;/            Parquet, one per target set [t, |V|): rank int, neighbours array&lt;int&gt;,
 *                              distances array&lt;double&gt; (exact, nearest first), bound double; absent
 *                              when the tables are computed on demand (see {@link #tablesOnDemand()})
 *   covariance.bin             m, then Σ (m×m doubles, row-major), big-endian
 *   centre.bin                 m, then μ (m doubles), then R² (see {@link VocabularyCentre})
 * </pre>
 *
 * <p>The hash is {@link DpTextModel#hash()}'s: SHA-256 over |V|, m, the words in rank order and the
 * vectors' IEEE bits, so a partitioned model and the one-file artifact of the same embeddings carry
 * the same hash. The stored distances are {@link Embeddings#distance(int, int)} of the word and its
 * neighbour, bit for bit, so a sampler built from the table rows draws exactly as one built from the
 * vectors. Read and written through Hadoop's FileSystem (local, HDFS, S3, ABFS, Unity Catalog volumes).
 */
public final class PartitionedModel implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** The manifest's file name; its presence marks a directory as a partitioned model. */
  public static final String MANIFEST = "manifest.properties";
  public static final String FORMAT = "dptext-partitioned";
  public static final int VERSION = 1;

  private final String directory;
  private final int size;
  private final int dim;
  private final String hash;
  private final RowLengths rows;
  private final List<Integer> tables;
  private final boolean tablesOnDemand;
  private final int shards;
  private final EmbeddingCovariance covariance;
  private final VocabularyCentre centre;
  private final Map<String, String> metadata;

  /**
   * @param tables the target starts whose candidate tables are stored
   * @param tablesOnDemand whether candidate rows for any target start are computed when a run needs them
   *     (then {@code tables} is empty)
   */
  public PartitionedModel(String directory, int size, int dim, String hash, RowLengths rows, List<Integer> tables,
      boolean tablesOnDemand, int shards, EmbeddingCovariance covariance, VocabularyCentre centre,
      Map<String, String> metadata) {
    if (tablesOnDemand && !tables.isEmpty()) { // reachable from a manifest edited by hand
      throw DpTextErrors.error("MODEL_CORRUPTED", "model", directory, "what",
          "its manifest lists stored tables " + tables + " and tables on demand, which store none");
    }
    this.tablesOnDemand = tablesOnDemand;
    this.centre = centre;
    this.directory = directory;
    this.size = size;
    this.dim = dim;
    this.hash = hash;
    this.rows = rows;
    this.tables = List.copyOf(tables);
    this.shards = shards;
    this.covariance = covariance;
    this.metadata = Map.copyOf(metadata);
  }

  public String directory() {
    return directory;
  }

  public int size() {
    return size;
  }

  public int dim() {
    return dim;
  }

  public String hash() {
    return hash;
  }

  public RowLengths rowLengths() {
    return rows;
  }

  /** The target starts whose candidate tables are stored. */
  public List<Integer> tables() {
    return tables;
  }

  /**
   * Whether the candidate tables are computed on demand: the model stores none, and a SanText or SanText+
   * run computes the rows of the words its input uses, for whichever target set its w gives, with the
   * build's own blocked search over the shards the model was built with ({@code
   * dev.dptext.classic.partitioned.OnDemandRows}). The rows are the ones a full build would store, so the output
   * is the same; what changes is the cost: |words used|·|V| per run instead of |V|² once. For
   * vocabularies where the all-pairs build would take hours (millions of words).
   */
  public boolean tablesOnDemand() {
    return tablesOnDemand;
  }

  /** Whether rows of the candidate table for {@code targetStart} are available: stored, or computed on demand. */
  public boolean hasTable(int targetStart) {
    return tablesOnDemand || tables.contains(targetStart);
  }

  /** The number of vocabulary shards the model was built with (the sanitize path's default). */
  public int shards() {
    return shards;
  }

  public Map<String, String> metadata() {
    return metadata;
  }

  /** The vocabulary's mean and spread, or null for a model without it. */
  public VocabularyCentre centre() {
    return centre;
  }

  /** What a mechanism built for shards needs. */
  public ModelShape shape() {
    return new ModelShape(size, dim, covariance);
  }

  /** Bytes the vectors take in memory (4·|V|·m), what a broadcast would ship to every executor. */
  public long vectorBytes() {
    return 4L * size * dim;
  }

  public String vectorsPath() {
    return directory + "/vectors";
  }

  public String tablePath(int targetStart) {
    return directory + "/neighbours-" + targetStart;
  }

  /**
   * Whether {@code path} is a directory holding a partitioned model's manifest.
   *
   * @param conf the Hadoop configuration to reach it with (the driver's: {@code dev.dptext.runtime.HadoopConf})
   */
  public static boolean isPartitioned(Configuration conf, String path) {
    try {
      Path manifest = new Path(path, MANIFEST);
      return manifest.getFileSystem(conf).exists(manifest);
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Reads the manifest (and covariance) of the partitioned model at {@code path}.
   *
   * @param conf the Hadoop configuration to reach it with (the driver's: {@code dev.dptext.runtime.HadoopConf})
   */
  public static PartitionedModel open(Configuration conf, String path) {
    try {
      Path dir = new Path(path);
      FileSystem fs = dir.getFileSystem(conf);
      Properties p = new Properties();
      try (InputStream in = fs.open(new Path(dir, MANIFEST))) {
        p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
      }
      if (!FORMAT.equals(p.getProperty("format")) || Integer.parseInt(p.getProperty("version", "0")) != VERSION) {
        throw DpTextErrors.error("PARTITIONED_MODEL_UNSUPPORTED", "model", path, "format", p.getProperty("format"),
            "version", p.getProperty("version"), "expectedFormat", FORMAT, "expectedVersion", VERSION);
      }
      int m = Integer.parseInt(p.getProperty("dim"));
      EmbeddingCovariance cov = null;
      Path covPath = new Path(dir, "covariance.bin");
      if (fs.exists(covPath)) {
        try (DataInputStream in = new DataInputStream(fs.open(covPath))) {
          int n = in.readInt();
          double[] s = new double[n * n];
          for (int i = 0; i < s.length; i++) {
            s[i] = in.readDouble();
          }
          cov = new EmbeddingCovariance(n, s);
        }
      }
      VocabularyCentre centre = null;
      Path centrePath = new Path(dir, "centre.bin");
      if (fs.exists(centrePath)) {
        try (DataInputStream in = new DataInputStream(fs.open(centrePath))) {
          double[] mean = new double[in.readInt()];
          for (int i = 0; i < mean.length; i++) {
            mean[i] = in.readDouble();
          }
          centre = new VocabularyCentre(mean, in.readDouble());
        }
      }
      List<Integer> tables = new ArrayList<>();
      String t = p.getProperty("tables", "").trim();
      if (!t.isEmpty()) {
        for (String s : t.split(",")) {
          tables.add(Integer.parseInt(s.trim()));
        }
      }
      Map<String, String> meta = new TreeMap<>();
      for (String k : p.stringPropertyNames()) {
        if (k.startsWith("meta.")) {
          meta.put(k.substring(5), p.getProperty(k));
        }
      }
      return new PartitionedModel(dir.toString(), Integer.parseInt(p.getProperty("size")), m, p.getProperty("hash"),
          new RowLengths(Integer.parseInt(p.getProperty("neighbours")), Boolean.parseBoolean(p.getProperty("tiered"))),
          tables, Boolean.parseBoolean(p.getProperty("tablesOnDemand", "false")),
          Integer.parseInt(p.getProperty("shards")), cov, centre, meta);
    } catch (IOException e) {
      throw DpTextErrors.error(e, "MODEL_FILE_UNREADABLE", "model", path, "kind",
          e.getClass().getSimpleName() + " " + e.getMessage());
    }
  }

  /** Writes the manifest and covariance; the Parquet parts are written by the builder before. */
  public void writeManifest(Configuration conf) {
    try {
      Path dir = new Path(directory);
      FileSystem fs = dir.getFileSystem(conf);
      if (covariance != null) {
        try (DataOutputStream out = new DataOutputStream(fs.create(new Path(dir, "covariance.bin"), true))) {
          out.writeInt(covariance.dim());
          for (double v : covariance.sigma()) {
            out.writeDouble(v);
          }
        }
      }
      if (centre != null) {
        try (DataOutputStream out = new DataOutputStream(fs.create(new Path(dir, "centre.bin"), true))) {
          out.writeInt(centre.mean().length);
          for (double v : centre.mean()) {
            out.writeDouble(v);
          }
          out.writeDouble(centre.meanSquaredRadius());
        }
      }
      Properties p = new Properties();
      p.setProperty("format", FORMAT);
      p.setProperty("version", String.valueOf(VERSION));
      p.setProperty("size", String.valueOf(size));
      p.setProperty("dim", String.valueOf(dim));
      p.setProperty("hash", hash);
      p.setProperty("neighbours", String.valueOf(rows.k()));
      p.setProperty("tiered", String.valueOf(rows.tiered()));
      p.setProperty("shards", String.valueOf(shards));
      p.setProperty("tables", String.join(",", tables.stream().map(String::valueOf).toList()));
      p.setProperty("tablesOnDemand", String.valueOf(tablesOnDemand));
      metadata.forEach((k, v) -> p.setProperty("meta." + k, v));
      // Written last: a directory without a manifest is not a model, so a failed build is never read.
      try (OutputStream out = fs.create(new Path(dir, MANIFEST), true)) {
        p.store(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), "dptext partitioned model");
      }
    } catch (IOException e) {
      throw DpTextErrors.error(e, "OUTPUT_NOT_WRITABLE", "path", directory, "reason",
          e.getClass().getSimpleName() + " " + e.getMessage());
    }
  }

  /**
   * The whole model in the driver's memory, for the broadcast path: the vectors, the stored tables and
   * the covariance, checked against the manifest's hash. (A model with tables on demand stores none:
   * the broadcast model computes each table whole on first use, {@link DpTextModel#neighbours}.) Only for vocabularies small enough to
   * broadcast; the sanitize job decides by {@link #vectorBytes()}.
   */
  public DpTextModel toBroadcastModel(SparkSession spark) {
    List<Row> vectorRows = spark.read().parquet(vectorsPath()).orderBy("rank").collectAsList();
    String[] words = new String[size];
    float[] vectors = new float[size * dim];
    for (Row r : vectorRows) {
      int rank = r.getInt(r.fieldIndex("rank"));
      words[rank] = r.getString(r.fieldIndex("word"));
      List<Float> v = r.getList(r.fieldIndex("vector"));
      for (int d = 0; d < dim; d++) {
        vectors[rank * dim + d] = v.get(d);
      }
    }
    Embeddings e = new Embeddings(words, vectors, dim);
    String actual = EmbeddingsHash.of(e);
    if (!actual.equals(hash)) {
      throw new IllegalStateException("the partitioned model at " + directory + " does not match its manifest's hash");
    }
    Map<Integer, NeighbourTable> tableMap = new LinkedHashMap<>();
    for (int t : tables) {
      List<Row> rowsOfTable = spark.read().parquet(tablePath(t)).orderBy("rank").collectAsList();
      int[] offsets = new int[size + 1];
      double[] bounds = new double[size];
      List<int[]> rowsList = new ArrayList<>(size);
      for (Row r : rowsOfTable) {
        int rank = r.getInt(r.fieldIndex("rank"));
        List<Integer> ns = r.getList(r.fieldIndex("neighbours"));
        int[] row = ns.stream().mapToInt(Integer::intValue).toArray();
        rowsList.add(row);
        offsets[rank + 1] = row.length;
        bounds[rank] = r.getDouble(r.fieldIndex("bound"));
      }
      for (int x = 0; x < size; x++) {
        offsets[x + 1] += offsets[x];
      }
      int[] neighbours = new int[offsets[size]];
      for (int x = 0; x < size; x++) {
        System.arraycopy(rowsList.get(x), 0, neighbours, offsets[x], rowsList.get(x).length);
      }
      tableMap.put(t, new NeighbourTable(t, offsets, neighbours, bounds));
    }
    Map<String, String> meta = new LinkedHashMap<>(metadata);
    meta.put("partitionedModel", directory);
    DpTextModel model = new DpTextModel(e, rows, tableMap, meta, hash);
    if (covariance != null) {
      model.setCovariance(covariance);
    }
    return model;
  }

  /**
   * {@link DpTextModel#hash()} of a vocabulary streamed in rank order, as the distributed build
   * computes it without holding all vectors: every word first, then every vector.
   */
  public static String hash(int size, int dim, Iterator<String> words, Iterator<float[]> vectors) {
    EmbeddingsHash h = new EmbeddingsHash(size, dim);
    words.forEachRemaining(h::word);
    vectors.forEachRemaining(v -> h.vectors(v, 0, v.length));
    return h.hex();
  }
}
