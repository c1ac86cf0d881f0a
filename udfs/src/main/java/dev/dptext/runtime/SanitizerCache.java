package dev.dptext.runtime;

import dev.dptext.classic.BroadcastValue;
import dev.dptext.classic.ClassicContext;
import dev.dptext.model.DpTextModel;
import dev.dptext.random.SecretKey;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.settings.Settings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sanitizers the driver built, as their tasks find them: built once per configuration and Spark
 * context (model, mechanism, key), then handed to the tasks as a broadcast, or, in local mode, as the
 * driver's own object ({@link LocalSanitizers}: a local task would get that object from the broadcast too,
 * and the broadcast's serialization is then work nothing reads). Fresh randomness is never shared and
 * always broadcast (a Spark broadcast nothing refers to is cleaned up by Spark).
 */
public final class SanitizerCache {
  private static final Logger LOG = LoggerFactory.getLogger(SanitizerCache.class);

  /** What to do on Spark Connect instead of building a sanitizer in the client. */
  public static final String CONNECT_ALTERNATIVE = "On Spark Connect the server builds the sanitizer: use transform "
      + "(it calls the server's SQL function " + SqlFunctionNames.SANITIZE + " with this configuration), or call "
      + SqlFunctionNames.SANITIZE + " yourself (functions.call_function), with the server started with "
      + "spark.sql.extensions=" + SqlFunctionNames.EXTENSIONS + ".";

  private static final Map<BroadcastKey, Cached> SANITIZERS = new ConcurrentHashMap<>();

  private SanitizerCache() {}

  /**
   * The source of the sanitizer of {@code o} with {@code key}, over {@code modelInstance} (a model in
   * memory) or, when it is null, the model {@code o} names: the cached one when an equal configuration
   * already built it in this Spark context, else built now and handed to the tasks.
   */
  public static SanitizerSource source(SparkSession spark, DpTextOptions o, DpTextModel modelInstance,
      SecretKey key) {
    if (o.idMode() == IdMode.FRESH || key.isFresh()) {
      LOG.warn("dptext runs with fresh randomness: re-runs and retried tasks give different output");
    }
    if (o.idMode() == IdMode.FRESH) {
      return hand(spark, build(spark, o, modelInstance, key), false);
    }
    // Equal configurations share one sanitizer: the options compare every setting; the key compares by
    // content, in memory only.
    String application = ClassicContext.applicationId(spark);
    BroadcastKey cacheKey = new BroadcastKey(application, o,
        modelInstance == null ? 0 : System.identityHashCode(modelInstance), key);
    // A JVM has one active Spark context: the entries of other applications belong to stopped ones.
    SANITIZERS.keySet().removeIf(k -> !k.application().equals(application));
    boolean local = ClassicContext.isLocal(spark);
    SanitizerSource[] source = new SanitizerSource[1]; // held strongly from here: a cached one can be collected
    SANITIZERS.compute(cacheKey, (k, existing) -> {
      SanitizerSource cached = existing == null ? null : existing.source();
      source[0] = cached != null ? cached : hand(spark, build(spark, o, modelInstance, key), local);
      return cached != null ? existing : new Cached(source[0]);
    });
    return source[0];
  }

  /**
   * A cache entry. A broadcast handle is held as it is (it is small; Spark's block manager keeps the
   * value, spilling it to disk under memory pressure); a local source, which holds the sanitizer itself,
   * softly: kept for reuse until memory runs short (while a plan refers to it, it stays in any case).
   */
  private static final class Cached {
    private final SanitizerSource broadcast;
    private final java.lang.ref.SoftReference<SanitizerSource> local;

    Cached(SanitizerSource source) {
      boolean isLocal = source instanceof SanitizerSource.Local;
      this.broadcast = isLocal ? null : source;
      this.local = isLocal ? new java.lang.ref.SoftReference<>(source) : null;
    }

    /** The source, or null if it can no longer be used (a destroyed broadcast, a collected sanitizer). */
    SanitizerSource source() {
      if (broadcast != null) {
        return broadcast instanceof SanitizerSource.Broadcasted b && !b.handle().isValid() ? null : broadcast;
      }
      return local.get();
    }
  }

  /** The sanitizer as its tasks will find it: the driver's object in local mode, else a broadcast. */
  private static SanitizerSource hand(SparkSession spark, Sanitizer s, boolean local) {
    if (local) {
      SanitizerSource source = LocalSanitizers.hold(s);
      LOG.debug("sanitizer handed to local tasks (no broadcast)");
      return source;
    }
    SanitizerSource source = SanitizerSource.broadcast(BroadcastValue.of(spark, s, "Sanitizing "
        + "with a sanitizer built in this program", CONNECT_ALTERNATIVE));
    LOG.debug("sanitizer broadcast");
    return source;
  }

  private record BroadcastKey(String application, DpTextOptions options, int modelIdentity, SecretKey key) {
    @Override
    public String toString() {
      return "BroadcastKey[" + options.describe() + ", key redacted]";
    }
  }

  private static Sanitizer build(SparkSession spark, DpTextOptions o, DpTextModel instance, SecretKey key) {
    DpTextModel model = instance != null
        ? instance
        : ModelLoader.load(spark, o.get(Settings.MODEL), o.get(Settings.VOCAB_SIZE), o.get(Settings.NEIGHBOURS));
    LOG.debug("model ready: {} words", model.embeddings().size());
    Sanitizer s = Sanitizer.build(o, model, key);
    LOG.debug("sanitizer built");
    return s;
  }
}
