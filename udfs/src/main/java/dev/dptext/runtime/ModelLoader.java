package dev.dptext.runtime;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.ModelArtifact;
import dev.dptext.model.PartitionedModel;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.ModelDistribution;
import dev.dptext.settings.ModelLayout;
import dev.dptext.settings.Settings;
import java.io.BufferedInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * Loads a model on the driver from any Hadoop file system (local, HDFS, S3, DBFS, ABFS…): a dptext
 * model artifact, a GloVe / .vec embedding file (optionally .gz), or {@code default} for the
 * embedded embeddings. Loaded models are cached per JVM so that SQL calls and repeated jobs in one
 * session share them, and the default model (all its words) also per machine ({@link DefaultModelCache}), so
 * that a new driver JVM does not rebuild its neighbour tables.
 */
public final class ModelLoader {
  private static final Map<String, DpTextModel> CACHE = new ConcurrentHashMap<>();
  private static final byte[] ARTIFACT_MAGIC = "DPTEXT-MODEL".getBytes(StandardCharsets.US_ASCII);

  private ModelLoader() {}

  /**
   * @param source {@code default}, a model artifact path, or an embeddings file path
   * @param vocabularySize for embedding files, keep only the most frequent words (0 = all)
   * @param neighbours K for neighbour tables computed from embeddings
   */
  public static DpTextModel load(SparkSession spark, String source, int vocabularySize, int neighbours) {
    String cacheKey = source + "|" + vocabularySize + "|" + neighbours;
    if (source != null && !source.equals(EmbeddedDefault.NAME) && isPartitioned(spark, source)) {
      if (vocabularySize > 0) {
        throw DpTextErrors.error("MODEL_VOCABULARY_FIXED", "size", vocabularySize, "kind", "partitioned model",
            "model", source);
      }
      return CACHE.computeIfAbsent(cacheKey,
          k -> PartitionedModel.open(HadoopConf.of(spark), source).toBroadcastModel(spark));
    }
    return CACHE.computeIfAbsent(cacheKey, k -> loadUncached(spark, source, vocabularySize, neighbours));
  }

  static DpTextModel loadUncached(SparkSession spark, String source, int vocabularySize, int neighbours) {
    if (isDefault(source) && vocabularySize == 0) {
      return DefaultModelCache.load(neighbours); // the machine's copy, else built (the same model)
    }
    try (InputStream raw = open(isDefault(source) ? null : Storage.of(spark, source), source)) {
      return read(raw, source, vocabularySize, neighbours);
    } catch (IOException e) {
      throw unreadable(source, e);
    }
  }

  /**
   * The SHA-256 of the bytes at {@code source} (the embedded file for {@code default}): what the driver
   * computes in {@link ModelDistribution#PATH} mode, without loading the model.
   */
  public static String sha256(Configuration conf, String source) {
    return sha256(isDefault(source) ? null : HadoopStorage.of(conf), source);
  }

  /** {@link #sha256(Configuration, String)}, reached from {@code spark}'s driver program ({@link Storage}). */
  public static String sha256(SparkSession spark, String source) {
    return sha256(isDefault(source) ? null : Storage.of(spark, source), source);
  }

  private static String sha256(Storage storage, String source) {
    try (DigestInputStream in = new DigestInputStream(open(storage, source), sha256())) {
      in.transferTo(OutputStream.nullOutputStream());
      return HexFormat.of().formatHex(in.getMessageDigest().digest());
    } catch (IOException e) {
      throw unreadable(source, e);
    }
  }

  /**
   * Loads the model at {@code source} in one pass that also hashes every byte read, and fails unless
   * the bytes hash to {@code expectedSha256} (the driver's): an executor must never sanitize with a model
   * other than the one the driver checked, e.g. one rebuilt in place while a job runs.
   */
  public static DpTextModel loadVerified(Configuration conf, String source, int vocabularySize, int neighbours,
      String expectedSha256) {
    DpTextModel model;
    String actual;
    try (DigestInputStream in = new DigestInputStream(open(isDefault(source) ? null : HadoopStorage.of(conf), source),
        sha256())) {
      model = read(in, source, vocabularySize, neighbours);
      in.transferTo(OutputStream.nullOutputStream()); // a top-N read stops early: hash the whole file
      actual = HexFormat.of().formatHex(in.getMessageDigest().digest());
    } catch (IOException e) {
      throw unreadable(source, e);
    }
    if (!actual.equals(expectedSha256)) {
      // A user's doing (a model rebuilt in place, or executors mounting another file), not a bug of dptext's.
      throw DpTextErrors.error("MODEL_CHANGED_ON_EXECUTOR", "model", source, "executor", actual,
          "driver", expectedSha256, "modelKey", Settings.MODEL.confKey());
    }
    return model;
  }

  /**
   * {@link #loadVerified} where a task runs (an executor, or a Spark Connect server's), with that JVM's Hadoop
   * configuration (the application's {@code spark.hadoop.*} settings). Here rather than in the recipe a client
   * serializes ({@link PathSanitizer}), whose methods must name no Hadoop type: Java serialization reflects on
   * them, and a Spark Connect client's classpath has no Hadoop.
   */
  public static DpTextModel loadVerifiedOnExecutor(String source, int vocabularySize, int neighbours,
      String expectedSha256) {
    org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
    Configuration conf = env == null ? new Configuration()
        : org.apache.spark.deploy.SparkHadoopUtil.get().newConfiguration(env.conf());
    return loadVerified(conf, source, vocabularySize, neighbours, expectedSha256);
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isDefault(String source) {
    return source == null || source.isBlank() || source.equals(EmbeddedDefault.NAME);
  }

  /** The raw bytes of a model source: the embedded file for {@code default}, else a path of {@code storage}. */
  private static InputStream open(Storage storage, String source) throws IOException {
    if (isDefault(source)) {
      return EmbeddedDefault.open();
    }
    try {
      return storage.open(source);
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      throw DpTextErrors.error(e, "MODEL_SOURCE_NOT_FOUND", "model", source);
    }
  }

  /** Parses a model source's bytes; the caller closes {@code source}'s stream. */
  private static DpTextModel read(InputStream bytes, String source, int vocabularySize, int neighbours)
      throws IOException {
    if (isDefault(source)) {
      var embeddings = EmbeddedDefault.read(bytes);
      String name = EmbeddedDefault.SOURCE;
      return vocabularySize > 0 && vocabularySize < embeddings.size()
          ? DpTextModel.of(embeddings.topWords(vocabularySize), name, neighbours)
          : DpTextModel.of(embeddings, name, neighbours);
    }
    InputStream raw = new BufferedInputStream(bytes, 1 << 16);
    raw.mark(ARTIFACT_MAGIC.length);
    byte[] head = raw.readNBytes(ARTIFACT_MAGIC.length);
    raw.reset();
    if (Arrays.equals(head, ARTIFACT_MAGIC)) {
      if (vocabularySize > 0) {
        throw DpTextErrors.error("MODEL_VOCABULARY_FIXED", "size", vocabularySize, "kind", "model artifact",
            "model", source);
      }
      return ModelArtifact.read(raw, source);
    }
    InputStream in = source.endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
    EmbeddingReader reader = vocabularySize > 0 ? EmbeddingReader.top(vocabularySize) : EmbeddingReader.all();
    Embeddings e = reader.read(in, source);
    return DpTextModel.of(e, source, neighbours);
  }

  /**
   * The partitioned model to sanitize with, or null for the broadcast path: the model setting names a
   * partitioned model directory and the layout setting ({@link ModelLayout}) keeps it partitioned.
   * A partitioned layout demanded of anything else is an error.
   */
  public static PartitionedModel partitioned(SparkSession spark, DpTextOptions o) {
    String source = o.get(Settings.MODEL);
    ModelLayout layout = ModelLayout.parse(o.get(Settings.MODEL_LAYOUT));
    boolean isPartitioned = !isDefault(source) && isPartitioned(spark, source);
    if (!isPartitioned) {
      if (layout == ModelLayout.PARTITIONED) {
        throw DpTextErrors.error("MODEL_NOT_PARTITIONED", "layoutKey", Settings.MODEL_LAYOUT.name(),
            "model", source);
      }
      return null;
    }
    PartitionedModel model = PartitionedModel.open(HadoopConf.of(spark), source);
    return layout.partitioned(model.vectorBytes()) ? model : null;
  }

  /**
   * Which layout a run with {@code o} uses and why, for its summary and audit: e.g. "broadcast (auto: a
   * partitioned model directory with 120 MiB of vectors, at most 1 GiB; modelLayout=partitioned keeps
   * it sharded)". A partitioned directory below the threshold runs broadcast under {@code auto}, which
   * a user who built it partitioned would not expect unless told.
   */
  public static String layout(SparkSession spark, DpTextOptions o) {
    String source = o.get(Settings.MODEL);
    ModelLayout layout = ModelLayout.parse(o.get(Settings.MODEL_LAYOUT));
    String distribution = o.modelDistribution() == ModelDistribution.PATH
        ? ", each executor loading it from its path" : "";
    boolean directory = !isDefault(source) && isPartitioned(spark, source);
    if (!directory) {
      return "broadcast (" + (isDefault(source) ? "the embedded default model" : "a single model file") + distribution
          + ")";
    }
    long bytes = PartitionedModel.open(HadoopConf.of(spark), source).vectorBytes();
    String size = bytes < (1L << 20)
        ? String.format(java.util.Locale.ROOT, "%,.0f KiB of vectors", bytes / 1024.0)
        : String.format(java.util.Locale.ROOT, "%,.0f MiB of vectors", bytes / 1048576.0);
    return switch (layout) {
      case PARTITIONED -> "partitioned (modelLayout=partitioned; a partitioned model directory with " + size + ")";
      case BROADCAST -> "broadcast (modelLayout=broadcast; a partitioned model directory with " + size
          + ", loaded whole" + distribution + ")";
      case AUTO -> layout.partitioned(bytes)
          ? "partitioned (auto: a partitioned model directory with " + size + ", more than 1 GiB)"
          : "broadcast (auto: a partitioned model directory with " + size + ", at most 1 GiB, loaded whole"
              + distribution + "; modelLayout=partitioned keeps it sharded)";
    };
  }

  /**
   * Whether {@code source} is a partitioned model directory (it holds the manifest), looked at through
   * {@link Storage}: {@code PartitionedModel} itself reads with Hadoop, and is loaded only for a model that is one.
   */
  public static boolean isPartitioned(SparkSession spark, String source) {
    try {
      Storage storage = Storage.of(spark, source);
      return storage.exists(storage.child(source, PartitionedModel.MANIFEST));
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  /** Saves a model artifact to any path the driver program reaches ({@link Storage}), replacing an existing file. */
  public static void save(SparkSession spark, DpTextModel model, String target) {
    try {
      try (OutputStream out = Storage.of(spark, target).create(target, true)) {
        ModelArtifact.write(model, out);
      }
    } catch (IOException e) {
      throw DpTextErrors.error(e, "OUTPUT_NOT_WRITABLE", "path", target, "reason", e.getMessage());
    }
  }

  /** The catalogued failure to read {@code source} (an I/O error: retrying may help, the exit is FAILURE). */
  private static RuntimeException unreadable(String source, IOException e) {
    return DpTextErrors.error(e, "MODEL_SOURCE_UNREADABLE", "model", source, "reason", e.getMessage());
  }
}
