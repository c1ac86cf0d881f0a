package dev.dptext.job.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.ExitCode;
import dev.dptext.job.JobException;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.spark.LogCapture;
import dev.dptext.spark.TokenAccumulators;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Progress lines while a stage runs: tasks done of the running stage, tokens, rate. */
class ProgressReporterTest {
  @Test
  void logsTheRunningStageEverySecond() {
    SparkSession spark = SharedSpark.get();
    TokenAccumulators counters = new TokenAccumulators(spark);
    List<String> progress;
    try (LogCapture logs = new LogCapture(); ProgressReporter reporter = ProgressReporter.start(spark, counters, 1)) {
      // Two tasks that take ~3 s: the reporter sees the stage while it runs.
      spark.range(0, 2, 1, 2).map((MapFunction<Long, Long>) x -> {
        Thread.sleep(3000);
        return x;
      }, Encoders.LONG()).collectAsList();
      progress = logs.lines().stream().filter(l -> l.startsWith("progress: ")).collect(Collectors.toList());
    }
    assertTrue(progress.size() >= 2, progress.toString());
    assertTrue(progress.stream().anyMatch(l -> l.matches("progress: \\d+ s, stage \\d+: [0-2]/2 tasks, 0 tokens .*")),
        progress.toString());
    assertNull(ProgressReporter.start(spark, counters, 0), "0 turns reporting off");
    JobException e = org.junit.jupiter.api.Assertions.assertThrows(JobException.class,
        () -> ProgressReporter.start(spark, counters, -1));
    assertEquals(ExitCode.USAGE, e.exitCode);
  }
}
