package dev.dptext.spark;

import java.util.Map;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/** Reads a session's {@code spark.dptext.*} settings into {@link DpTextOptions}. */
final class SessionConf {
  private SessionConf() {}

  static DpTextOptions options(SparkSession spark) {
    Map<String, String> all = new java.util.HashMap<>(CollectionConverters.asJava(spark.conf().getAll()));
    all.remove(Settings.SECRET_KEY.confKey());
    SessionSecret.get(spark).ifPresent(key -> all.put(Settings.SECRET_KEY.confKey(), key));
    return DpTextOptions.fromConf(all::get, all.keySet());
  }
}
