package dev.dptext.evaluation;

import dev.dptext.model.DpTextModel;
import dev.dptext.runtime.ModelLoader;
import java.io.Serializable;
import java.lang.ref.SoftReference;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model as executors can load it themselves: its path (or {@code default}), the load settings, and
 * the SHA-256 the driver computed of its bytes. The recipe a Spark Connect evaluation puts in its plan
 * instead of a broadcast (the way {@code dev.dptext.runtime.PathSanitizer} does for sanitizing): each
 * executor JVM loads the model once, refuses it unless its bytes hash to the driver's value (so every
 * task evaluates the model the driver checked), and builds from it what the tasks need.
 *
 * <p>It names no Hadoop type (a client serializes it into its plan, and a Spark Connect client's classpath may have
 * no Hadoop): the driver hashes the file through {@code dev.dptext.runtime.Storage}, a task loads it with its
 * executor's Hadoop configuration ({@link ModelLoader#loadVerifiedOnExecutor}).
 *
 * <p>Executor caches are soft and small: a tuning run builds dozens of mechanisms one after another,
 * and only the latest few are in use.
 */
public record ModelFile(String source, int vocabularySize, int neighbours, String sha256) implements Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(ModelFile.class);

  /** Values built from a model (mechanisms, metrics) kept per executor JVM, the most recent first out last. */
  private static final int BUILT_KEPT = 8;

  private static final Map<ModelFile, SoftReference<DpTextModel>> MODELS = new LinkedHashMap<>();
  private static final Map<String, SoftReference<Object>> BUILT = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, SoftReference<Object>> eldest) {
      return size() > BUILT_KEPT;
    }
  };

  /** What a task builds from the loaded model, e.g. {@code spec::build}. */
  @FunctionalInterface
  public interface Builder<T> extends Serializable {
    T build(DpTextModel model);
  }

  /**
   * On the driver: hashes the bytes at {@code source} (without loading the model again), reached from {@code spark}'s
   * driver program.
   */
  public static ModelFile hash(SparkSession spark, String source, int vocabularySize, int neighbours) {
    return new ModelFile(source, vocabularySize, neighbours, ModelLoader.sha256(spark, source));
  }

  /**
   * In a task: {@code what}, built by {@code builder} from this model, once per JVM while memory allows.
   * Builds are serialized per JVM: a stage's concurrent first tasks wait for one build instead of each
   * making its own.
   */
  @SuppressWarnings("unchecked")
  <T> T build(String what, Builder<T> builder) {
    String key = sha256 + "|" + vocabularySize + "|" + neighbours + "|" + what;
    synchronized (BUILT) {
      SoftReference<Object> r = BUILT.get(key);
      Object v = r == null ? null : r.get();
      if (v == null) {
        long start = System.nanoTime();
        v = builder.build(model());
        BUILT.put(key, new SoftReference<>(v));
        LOG.info("dptext evaluation: built {} from {} in this JVM in {} ms", what, source,
            (System.nanoTime() - start) / 1_000_000);
      }
      return (T) v;
    }
  }

  /** The model, loaded and verified once per JVM (called under the build lock). */
  private DpTextModel model() {
    SoftReference<DpTextModel> r = MODELS.get(this);
    DpTextModel m = r == null ? null : r.get();
    if (m == null) {
      MODELS.values().removeIf(ref -> ref.get() == null);
      m = ModelLoader.loadVerifiedOnExecutor(source, vocabularySize, neighbours, sha256);
      MODELS.put(this, new SoftReference<>(m));
    }
    return m;
  }

  @Override
  public String toString() {
    return source + " (sha256 " + sha256 + ")";
  }
}
