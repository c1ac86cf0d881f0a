package dev.dptext.runtime;

import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/** Reads a session's {@code spark.dptext.*} settings into {@link DpTextOptions}. */
public final class SessionConf {
  private SessionConf() {}

  public static DpTextOptions options(SparkSession spark) {
    if (!dev.dptext.classic.Classic.is(spark)) {
      // A Spark Connect server answers a client's conf request in clear, the server's start-up
      // spark.dptext.secretKey included: ask for each setting but the key, never for everything.
      Map<String, String> named = new java.util.HashMap<>();
      for (dev.dptext.config.Setting<?> s : Settings.options()) {
        scala.Option<String> v = spark.conf().getOption(s.confKey());
        if (v.isDefined()) {
          named.put(s.confKey(), v.get());
        }
      }
      return DpTextOptions.fromConf(named::get, named.keySet());
    }
    Map<String, String> all = new java.util.HashMap<>(CollectionConverters.asJava(spark.conf().getAll()));
    all.remove(Settings.SECRET_KEY.confKey());
    SessionSecret.get(spark).ifPresent(key -> all.put(Settings.SECRET_KEY.confKey(), key));
    return DpTextOptions.fromConf(all::get, all.keySet());
  }
}
