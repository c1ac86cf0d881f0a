package dev.dptext.job.testing;

import dev.dptext.job.base.JobSession;
import dev.dptext.testing.ScratchDirectories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The one SparkSession of this test JVM (Delta enabled), shared by the job, Databricks-task and
 * notebook tests: starting a session costs seconds, and Surefire runs every test class of the module
 * in one JVM. Its scratch directories live under {@code target/test-spark}, wiped at start-up, so a
 * leftover warehouse from an earlier run cannot break this one.
 */
public final class SharedSpark {
  private static final Path ROOT = Path.of("target", "test-spark").toAbsolutePath();
  /** Where the notebook tests' Scala interpreter writes its classes, for executors to load. */
  public static final Path REPL_CLASSES = ROOT.resolve("repl-classes");
  /** Spark's event log of this JVM's session, which the secrets test searches for the key. */
  public static final Path EVENT_LOG = ROOT.resolve("event-log");

  private static volatile SparkSession session;

  private SharedSpark() {}

  /** The session, started on the first call (which holds {@link InJvmSpark}: starting it is in-JVM work). */
  public static SparkSession get() {
    SparkSession started = session;
    if (started != null) {
      return started;
    }
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      return getOrStart();
    }
  }

  private static synchronized SparkSession getOrStart() {
    if (session == null) {
      ScratchDirectories.wipe(ROOT);
      try {
        Files.createDirectories(REPL_CLASSES);
        Files.createDirectories(EVENT_LOG);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      session = SparkSession.builder()
          .master("local[2]")
          .appName("dptext-job-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.sql.warehouse.dir", ROOT.resolve("warehouse").toString())
          .config("spark.sql.extensions", JobSession.DELTA_EXTENSION)
          .config("spark.sql.catalog.spark_catalog", JobSession.DELTA_CATALOG)
          // Delta replays a table's log with 50 partitions by default: seconds of tiny tasks on 2 cores.
          .config("spark.databricks.delta.snapshotPartitions", "2")
          // Read at SparkContext start-up only: Spark serves this directory to executors, so closures
          // compiled by the notebook tests' interpreter can be deserialized in tasks.
          .config("spark.repl.class.outputDir", REPL_CLASSES.toString())
          .config("spark.eventLog.enabled", "true")
          .config("spark.eventLog.dir", EVENT_LOG.toUri().toString())
          // Spark 4 compresses event logs by default; plain JSON lines let the test search them.
          .config("spark.eventLog.compress", "false")
          .getOrCreate();
    }
    return session;
  }
}
