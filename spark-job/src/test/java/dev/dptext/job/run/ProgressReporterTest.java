package dev.dptext.job.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.spark.LogCapture;
import dev.dptext.spark.TokenAccumulators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Progress lines while a stage runs: tasks done of the running stage, tokens, rate. The stage's tasks wait
 * on a latch until the test has looked (local mode: the executor is this JVM), so what the test sees does
 * not depend on how fast the machine is; waits have generous deadlines and end as soon as the event comes.
 */
class ProgressReporterTest {
  private static final CountDownLatch RELEASE = new CountDownLatch(1);

  @Test
  void aLineNamesTheRunningStageItsTasksAndTheTokensAndTheTimerLogsIt() throws Exception {
    SparkSession spark = SharedSpark.get();
    TokenAccumulators counters = new TokenAccumulators(spark);
    try (LogCapture logs = new LogCapture(); ProgressReporter reporter = ProgressReporter.start(spark, counters, 1)) {
      CompletableFuture<Void> stage = CompletableFuture.runAsync(() -> spark.range(0, 2, 1, 2)
          .map((MapFunction<Long, Long>) x -> {
            RELEASE.await();
            return x;
          }, Encoders.LONG()).collectAsList());
      String line = awaitLine(reporter, l -> l.contains(", stage "));
      assertTrue(line.matches("progress: \\d+ s, stage \\d+: 0/2 tasks, 0 tokens sanitized in finished tasks "
          + "\\(0 tokens/s\\)"), line);
      // The timer logs such lines by itself (every second here).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (logs.lines().stream().noneMatch(l -> l.matches("progress: \\d+ s, stage \\d+: 0/2 tasks, .*"))
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(logs.lines().stream().anyMatch(l -> l.matches("progress: \\d+ s, stage \\d+: 0/2 tasks, .*")),
          logs.lines().toString());
      RELEASE.countDown();
      stage.get(60, TimeUnit.SECONDS);
      String after = awaitLine(reporter, l -> !l.contains(", stage "));
      assertTrue(after.matches("progress: \\d+ s, 0 tokens sanitized .*"), "no stage once it ended: " + after);
    } finally {
      RELEASE.countDown();
    }
    assertNull(ProgressReporter.start(spark, counters, 0), "0 turns reporting off");
    JobException e = org.junit.jupiter.api.Assertions.assertThrows(JobException.class,
        () -> ProgressReporter.start(spark, counters, -1));
    assertEquals(ExitCode.USAGE, e.exitCode);
  }

  /** The reporter's line once {@code wanted} holds for it (60 s at most). */
  private static String awaitLine(ProgressReporter reporter, java.util.function.Predicate<String> wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String line = reporter.line();
    while (!wanted.test(line) && System.nanoTime() < deadline) {
      Thread.sleep(20);
      line = reporter.line();
    }
    return line;
  }
}
