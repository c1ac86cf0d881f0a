package dev.dptext.spark;

import dev.dptext.testing.ScratchDirectories;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * One SparkSession for every Spark test class of this JVM (starting one costs seconds). Its warehouse lives
 * under {@code target/test-spark}, wiped when the session starts: nothing is left in the system's temporary
 * directory, and an earlier run's tables cannot break this one.
 */
public final class SharedSpark {
  private static final Path ROOT = Path.of("target", "test-spark").toAbsolutePath();

  private static SparkSession session;

  private SharedSpark() {}

  public static synchronized SparkSession get() {
    if (session == null) {
      ScratchDirectories.wipe(ROOT);
      session = SparkSession.builder()
          .master("local[2]")
          .appName("dptext-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.sql.warehouse.dir", ROOT.resolve("warehouse").toString())
          .config("spark.sql.extensions", DpTextExtensions.class.getName())
          .getOrCreate();
    }
    return session;
  }
}
