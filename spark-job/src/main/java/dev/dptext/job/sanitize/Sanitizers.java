package dev.dptext.job.sanitize;

import dev.dptext.config.ValueType;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.spark.DpText;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.runtime.SessionSecret;
import dev.dptext.settings.Settings;
import org.apache.spark.sql.SparkSession;

/**
 * The sanitizer of a {@code sanitize} run, batch or stream: the DataFrame API's, with the key resolved
 * in this program (classic), or the Connect server's, which resolves the key itself; and what a
 * sanitizing task's running out of memory means.
 */
public final class Sanitizers {
  /** SanText+'s word ranks by default: the embedding file's order, public. */
  public static final String PUBLIC_FREQUENCIES = "embeddings (public rank of the embedding file)";

  private Sanitizers() {}

  /** The id mode, checked against --id-column: column mode needs one, the others must not have one. */
  public static IdMode idMode(IdMode mode, String idColumn) {
    if (mode == IdMode.COLUMN && idColumn == null) {
      throw JobException.of("ID_COLUMN_MISSING");
    }
    if (mode != IdMode.COLUMN && idColumn != null) {
      throw JobException.of("ID_COLUMN_WITH_ID_MODE", "mode", ValueType.label(mode));
    }
    return mode;
  }

  /**
   * A run's sanitizer on Spark Connect.
   *
   * @param builder the options to send to the server, as a builder that holds them (its model and key are
   *     never built here)
   * @param server the server-side sanitizer of those options
   */
  record OnServer(DpText.Builder builder, ServerSanitizer server) {}

  /**
   * On Spark Connect: the options to send to the server; each query carries them as
   * {@code dp_sanitize}'s options ({@link ServerSanitizer}). What the server cannot do from settings alone
   * is refused before anything is read.
   */
  static OnServer onServer(SparkSession spark, SanitizeRequest r, DpTextOptions options, IdMode ids) {
    if (!r.publicFrequencies()) {
      throw JobException.of("CONNECT_FREQUENCY_SOURCE", "source", r.frequencySource());
    }
    try {
      if (dev.dptext.runtime.ModelLoader.partitioned(spark, options) != null) {
        throw JobException.of("CONNECT_PARTITIONED_MODEL", "model", options.get(Settings.MODEL));
      }
      // Given on the command line, or in --config with another variable than the default's.
      boolean keyEnvGiven = r.keyEnvOnCommandLine()
          || !options.get(Settings.KEY_ENV).equals(Settings.KEY_ENV.defaultValue().orElse(null));
      ServerSanitizer.checkKeySource(options, keyEnvGiven, System.getenv());
      DpText.Builder b = DpText.sanitizer(options);
      if (ids == IdMode.COLUMN) {
        b.idColumn(r.columns().id());
      }
      String idColumn = ids == IdMode.COLUMN ? r.columns().id() : null;
      return new OnServer(b, ServerSanitizer.forSession(spark, b.options(), idColumn));
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
  }

  /**
   * Has the Connect server build the sanitizer (model and key): its failure names the server's problem,
   * in one line (the server's own message; never a key, and no row is involved).
   */
  static void prepareOnServer(SparkSession spark, ServerSanitizer server) {
    try {
      server.prepare(spark);
    } catch (RuntimeException e) {
      String message = JobException.firstLine(e.getMessage());
      if (String.valueOf(e.getMessage()).contains("UNRESOLVED_ROUTINE")) {
        throw JobException.of("CONNECT_SERVER_NO_FUNCTION", "function", DpText.SQL_FUNCTION, "extensions",
            dev.dptext.spark.DpTextExtensions.class.getName());
      }
      if (String.valueOf(e.getMessage()).contains("No RNG key")) {
        // The server's own message names its environment and its conf; say it from this side.
        throw JobException.of("CONNECT_SERVER_NO_KEY");
      }
      throw JobException.of("CONNECT_SERVER_PREPARE_FAILED", "function", DpText.SQL_FUNCTION, "reason", message);
    }
  }

  /**
   * The fingerprint of the run's key, for the privacy ledger: classic, of the key resolved here; on Spark
   * Connect, of the key file when this program can read it too, else null (a key only the server holds:
   * the ledger then never counts the run as a repeat). Null with fresh randomness.
   */
  static String keyFingerprint(boolean connect, DpText.Builder builder) {
    DpTextOptions o = builder.options();
    if (!connect) {
      return builder.keyFingerprint();
    }
    String keyFile = o.get(Settings.KEY_FILE);
    if (o.idMode() == IdMode.FRESH || o.get(Settings.FRESH_RANDOMNESS) || keyFile == null
        || o.get(Settings.DATABRICKS_SECRET) != null) {
      return null;
    }
    try {
      return dev.dptext.random.SecretKey.fromFile(java.nio.file.Path.of(ServerSanitizer.absolute(keyFile))).fingerprint();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * What keys a release's content for the ledger ({@link dev.dptext.job.ledger.ContentKey}): the driver's
   * key where it sanitizes itself, and the key file (absolute) with the key's fingerprint wherever the key
   * comes from one, for a stream's micro-batch function run on a Spark Connect server.
   */
  static dev.dptext.job.ledger.ContentKey contentKey(boolean connect, DpText.Builder builder) {
    String fingerprint = keyFingerprint(connect, builder);
    if (fingerprint == null) {
      return dev.dptext.job.ledger.ContentKey.NONE;
    }
    String keyFile = builder.options().get(Settings.KEY_FILE);
    String absolute = keyFile == null ? null : ServerSanitizer.absolute(keyFile);
    return dev.dptext.job.ledger.ContentKey.of(connect ? null : builder::keyTag, absolute, fingerprint);
  }

  /** The DataFrame-API sanitizer of these options, with the key resolved now (before any data is read). */
  static DpText.Builder classic(SparkSession spark, DpTextOptions options) {
    try {
      // A key in the application's Spark conf (spark.dptext.secretKey, redacted by Spark) wins.
      java.util.Optional<String> secret = SessionSecret.get(spark);
      DpTextOptions o = secret.isPresent() ? options.with(Settings.SECRET_KEY, secret.get()) : options;
      return DpText.sanitizer(o).key(o.resolveKey()); // read once: the builder keeps it for the run
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
  }

  /**
   * The failure for a text too large for one task's memory, when {@code e} was caused by running out
   * of heap: each text is sanitized whole (its tokens and the mechanism's draws are held together),
   * so the fix is more memory per task or shorter texts.
   */
  public static java.util.Optional<JobException> outOfMemory(Throwable e, java.util.function.LongSupplier longestText) {
    if (!JobException.taskFailedWith(e, OutOfMemoryError.class, "java.lang.OutOfMemoryError")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(JobException.of("TEXT_OUT_OF_MEMORY", "longest",
        String.format(java.util.Locale.ROOT, "%,d", longestText.getAsLong())));
  }
}
