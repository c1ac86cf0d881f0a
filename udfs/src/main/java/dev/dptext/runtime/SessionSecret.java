package dev.dptext.runtime;

import dev.dptext.classic.Classic;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.settings.Settings;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The key in a session's {@code spark.dptext.secretKey}, accepted only when it was set at application
 * start.
 *
 * <p>Why: Spark copies a session's settings into the properties of every job it runs, and the event
 * log redacts only the properties that are in the application's start-up {@code SparkConf}. A key set
 * on the running session ({@code SET}, {@code spark.conf.set}) is therefore written, in clear, into
 * every later job's start event in the event log (checked on Spark 4.0.1). Set at start-up
 * ({@code --conf}, a cluster's Spark config such as {@code {{secrets/scope/key}}} on Databricks) it is
 * redacted everywhere. Naming the key instead of passing it ({@code spark.dptext.keyFile},
 * {@code spark.dptext.keyEnv}, {@code spark.dptext.databricksSecret}) is safe at any time.
 */
public final class SessionSecret {
  private SessionSecret() {}

  /**
   * The session's key, if any; always empty on a Spark Connect client (the server resolves its key).
   *
   * @throws IllegalArgumentException when the key was set on the running session, not at start-up
   */
  public static Optional<String> get(SparkSession spark) {
    if (!Classic.is(spark)) {
      // A Spark Connect server answers a client's conf request in clear: the key of a Connect session is
      // the server's to resolve (ServerSanitizer), and is never asked for from here.
      return Optional.empty();
    }
    scala.Option<String> runtime = spark.conf().getOption(Settings.SECRET_KEY.confKey());
    if (runtime.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> startup = Classic.startupConf(spark, Settings.SECRET_KEY.confKey());
    if (startup.isEmpty() || !startup.get().equals(runtime.get())) {
      throw DpTextErrors.error("SECRET_KEY_SET_AT_RUNTIME", "secretKey", Settings.SECRET_KEY.confKey(),
          "databricksSecret", Settings.DATABRICKS_SECRET.confKey(), "keyFile", Settings.KEY_FILE.confKey(),
          "keyEnv", Settings.KEY_ENV.confKey());
    }
    return Optional.of(runtime.get());
  }
}
