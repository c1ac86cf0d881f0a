package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

/**
 * The job's logging configuration (conf/log4j2.properties, which scripts/dptext passes to the JVM) as a run
 * sees it: dptext's progress and Spark's errors get through, Spark's chatter does not (a run once logged 196–502
 * "Broadcasting large task binary" warnings per evaluate run, Breeze's L-BFGS "errors" in mia, a plan
 * truncation warning in the demo), nor Delta's table-id warning, which prints the raw text's statistics.
 */
class LoggingConfigTest {
  @Test
  void aRunPrintsProgressAndErrorsButNotSparksChatter() {
    Path file = Path.of(System.getProperty("maven.multiModuleProjectDirectory", "..")).resolve("conf/log4j2.properties");
    if (!file.toFile().isFile()) {
      file = Path.of("..", "conf", "log4j2.properties");
    }
    // A context of its own: Configurator.initialize would hand back this JVM's context (the one every other
    // test's log capture uses) and the shutdown below would end its logging.
    LoggerContext context = new LoggerContext("job-logging-" + System.nanoTime(), null, file.toUri());
    context.start();
    try {
      List<String> seen = new ArrayList<>();
      AbstractAppender capture = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
          seen.add(event.getLevel() + " " + event.getLoggerName() + ": " + event.getMessage().getFormattedMessage());
        }
      };
      capture.start();
      for (LoggerConfig c : context.getConfiguration().getLoggers().values()) {
        c.addAppender(capture, null, null);
      }
      context.getConfiguration().getRootLogger().addAppender(capture, null, null);
      context.updateLoggers();
      log(context, "org.apache.spark.scheduler.DAGScheduler", Level.WARN, "Broadcasting large task binary with size 2.1 MiB");
      log(context, "breeze.optimize.LBFGS", Level.ERROR,
          "Failure! Resetting history: breeze.optimize.FirstOrderException: Line search zoom failed");
      log(context, "org.apache.spark.sql.catalyst.util.SparkStringUtils", Level.WARN, "Truncated the string "
          + "representation of a plan since it was too large. This behavior can be adjusted by setting "
          + "'spark.sql.debug.maxToStringFields'.");
      log(context, "org.apache.spark.storage.BlockManager", Level.INFO, "Found block rdd_3_0 locally");
      // Raw text: Delta prints both snapshots, their files' min/max statistics included, when a table's id
      // changes under it (an in-place purge's swap).
      log(context, "org.apache.spark.sql.delta.DeltaLog", Level.WARN, "Change in the table id detected while "
          + "updating snapshot. \nPrevious snapshot = Snapshot(path=file:/t/_delta_log, version=1, stats="
          + "{\"minValues\":{\"text\":\"zqxcanaryraw my parcel 0 arrived\"}})\nNew snapshot = Snapshot(...).");
      // What must stay.
      log(context, "dev.dptext.job.run.ProgressReporter", Level.INFO, "utility 1/4: laplace ε=4");
      log(context, "org.apache.spark.scheduler.DAGScheduler", Level.ERROR, "Job 3 failed");
      log(context, "org.apache.spark.scheduler.DAGScheduler", Level.WARN, "Stage 2 had a failed task");
      log(context, "breeze.optimize.LBFGS", Level.ERROR, "Something else went wrong");
      log(context, "org.apache.spark.executor.Executor", Level.ERROR, "Exception in task 0.0 in stage 1.0");
      log(context, "org.apache.spark.sql.delta.DeltaLog", Level.WARN, "Failed to parse checksum file");
      assertEquals(List.of(
          "INFO dev.dptext.job.run.ProgressReporter: utility 1/4: laplace ε=4",
          "ERROR org.apache.spark.scheduler.DAGScheduler: Job 3 failed",
          "WARN org.apache.spark.scheduler.DAGScheduler: Stage 2 had a failed task",
          "ERROR breeze.optimize.LBFGS: Something else went wrong",
          "ERROR org.apache.spark.executor.Executor: Exception in task 0.0 in stage 1.0",
          "WARN org.apache.spark.sql.delta.DeltaLog: Failed to parse checksum file"), dedupe(seen));
    } finally {
      context.stop();
    }
  }

  private static void log(LoggerContext context, String logger, Level level, String message) {
    context.getLogger(logger).log(level, message);
  }

  /** An event reaches the capture once per logger config on its way up (additivity): keep each once. */
  private static List<String> dedupe(List<String> seen) {
    return new ArrayList<>(new java.util.LinkedHashSet<>(seen));
  }
}
