package dev.dptext.runtime;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.SecretKey;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.ModelDistribution;
import dev.dptext.settings.Settings;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recipe of a sanitizer that each executor JVM builds itself ({@link ModelDistribution#PATH}): the
 * settings as text, the SHA-256 the driver computed of the model's bytes, and the key. The first task
 * in a JVM loads the model from its path, verifies the hash, builds the mechanism and caches the
 * result; every later task of the JVM with an equal recipe reuses it.
 *
 * <p>The key travels inside the serialized task closure, as a broadcast's would inside the broadcast:
 * it is never part of a plan's text ({@link #toString()} redacts it) and never logged. A recipe made for
 * a Spark Connect client ({@link #withoutKey}) carries no key at all: each executor resolves it from
 * the settings' key source (a key file the executors can read), so the client's plan names the file only.
 */
public final class PathSanitizer implements SanitizerSource {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(PathSanitizer.class);

  /** One sanitizer per recipe and JVM; computeIfAbsent makes concurrent first tasks wait for one build. */
  private static final Map<PathSanitizer, Sanitizer> BUILT = new ConcurrentHashMap<>();

  private final TreeMap<String, String> settings;
  private final String modelSha256;
  private final SecretKey key;

  /**
   * The {@link SecretKey#fingerprint} of the key the client resolved, for a recipe without the key (null
   * otherwise, and for fresh randomness): executors check theirs against it, and it tells a rotated key
   * file's recipe from the old one's in their caches.
   */
  private final String keyFingerprint;

  private PathSanitizer(TreeMap<String, String> settings, String modelSha256, SecretKey key) {
    this(settings, modelSha256, key, null);
  }

  private PathSanitizer(TreeMap<String, String> settings, String modelSha256, SecretKey key, String keyFingerprint) {
    this.settings = settings;
    this.modelSha256 = modelSha256;
    this.key = key;
    this.keyFingerprint = keyFingerprint;
  }

  /** On the driver: hashes the model's bytes (without loading the model) and records the recipe. */
  public static PathSanitizer prepare(SparkSession spark, DpTextOptions options, SecretKey key) {
    String model = options.get(Settings.MODEL);
    long start = System.nanoTime();
    String sha = ModelLoader.sha256(spark, model);
    LOG.info("dptext modelDistribution=path: {} has SHA-256 {} ({} ms); executors load and verify it", model, sha,
        (System.nanoTime() - start) / 1_000_000);
    return new PathSanitizer(new TreeMap<>(options.toConf()), sha, key);
  }

  /**
   * A recipe without the key, for a Spark Connect client whose server has no {@code dp_sanitize}: the
   * executors resolve the key from {@code options}' key source themselves.
   */
  static PathSanitizer withoutKey(SparkSession spark, DpTextOptions options, String keyFingerprint) {
    String model = options.get(Settings.MODEL);
    return new PathSanitizer(new TreeMap<>(options.toConf()), ModelLoader.sha256(spark, model), null,
        keyFingerprint);
  }

  @Override
  public Sanitizer get() {
    return BUILT.computeIfAbsent(this, PathSanitizer::build);
  }

  private Sanitizer build() {
    DpTextOptions o = DpTextOptions.fromMap(settings);
    long start = System.nanoTime();
    DpTextModel model = ModelLoader.loadVerifiedOnExecutor(o.get(Settings.MODEL), o.get(Settings.VOCAB_SIZE),
        o.get(Settings.NEIGHBOURS), modelSha256);
    Sanitizer s = Sanitizer.build(o, model, key != null ? key : executorKey(o));
    LOG.info("dptext loaded {} (SHA-256 verified) and built {} in this JVM in {} ms", o.get(Settings.MODEL),
        o.mechanismSpec(), (System.nanoTime() - start) / 1_000_000);
    return s;
  }

  /** The key this executor resolves from the settings' key source, checked against the client's fingerprint. */
  private SecretKey executorKey(DpTextOptions o) {
    SecretKey k = o.resolveKey();
    if (keyFingerprint != null && !keyFingerprint.equals(k.fingerprint())) {
      // A key file rotated (or mounted differently) under a running job: the Python engine's entry, same words.
      throw DpTextErrors.error("KEY_DIFFERS_ON_EXECUTOR", "where", k.source(), "executor", k.fingerprint(),
          "driver", keyFingerprint);
    }
    return k;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathSanitizer p && p.settings.equals(settings) && p.modelSha256.equals(modelSha256)
        && java.util.Objects.equals(p.key, key) && java.util.Objects.equals(p.keyFingerprint, keyFingerprint);
  }

  @Override
  public int hashCode() {
    return settings.hashCode() * 31 + modelSha256.hashCode();
  }

  /** Safe to print: never the key. */
  @Override
  public String toString() {
    return "path sanitizer[" + settings.get(Settings.MODEL.confKey()) + ", sha256=" + modelSha256 + ", key redacted]";
  }
}
