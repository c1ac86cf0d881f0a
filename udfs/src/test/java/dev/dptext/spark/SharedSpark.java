package dev.dptext.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** One SparkSession for every Spark test class of this JVM (starting one costs seconds). */
public final class SharedSpark {
  private static SparkSession session;

  private SharedSpark() {}

  public static synchronized SparkSession get() {
    if (session == null) {
      try {
        Path warehouse = Files.createTempDirectory("dptext-warehouse");
        session = SparkSession.builder()
            .master("local[2]")
            .appName("dptext-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.warehouse.dir", warehouse.toString())
            .config("spark.sql.extensions", DpTextExtensions.class.getName())
            .getOrCreate();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return session;
  }
}
