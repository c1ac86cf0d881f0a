package dev.dptext.job.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.spark.TokenAccumulators;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The summary's rate is the sanitizing phase's, never the whole run's, and is not given for a phase too
 * short to measure (a small input would otherwise show its fixed cost as a rate: "9 tokens/s").
 */
class RunSummaryTest {
  private static RunSummary summary(long rows, double seconds, double workSeconds) {
    TokenAccumulators counters = new TokenAccumulators(SharedSpark.get());
    TableWriter.Target target = TableWriter.Target.delta("/out", WriteMode.ERROR_IF_EXISTS);
    return new RunSummary(DpTextOptions.defaults(), rows, rows, 0, counters, seconds, workSeconds, "h", "f", target, 0,
        null, "broadcast (a single model file)");
  }

  @Test
  void theRateIsTheSanitizingPhasesAndAShortPhaseGivesNone() {
    RunSummary large = summary(1_200_000, 30.0, 10.0);
    String text = large.render();
    assertTrue(text.contains("elapsed            30.0 s (set-up 20.0 s"), text);
    assertTrue(text.contains("throughput         0 tokens/s, 120,000 rows/s (read, sanitize and write)"), text);
    assertEquals(120_000.0, (Double) large.toMap("/out", JobOutcome.SUCCEEDED).get("rowsPerSecond"), 1e-6);

    RunSummary small = summary(9, 9.5, 0.6);
    String smallText = small.render();
    assertTrue(smallText.contains("throughput         not reported: 0.6 s of sanitizing"), smallText);
    Map<String, Object> json = small.toMap("/out", JobOutcome.SUCCEEDED);
    assertFalse(json.containsKey("tokensPerSecond"), json.toString());
    assertEquals(0.6, (Double) json.get("workSeconds"), 1e-9);
  }

  /** The outcome a scheduler reads: succeeded and exit 0, or failed with the exit code and the refusal's name. */
  @Test
  void theJsonSummaryStatesTheOutcome() {
    Map<String, Object> ok = summary(9, 9.5, 0.6).toMap("/out", JobOutcome.SUCCEEDED);
    assertEquals("succeeded", ok.get("outcome"));
    assertEquals(0, ok.get("exitCode"));
    assertFalse(ok.containsKey("error"), ok.toString());

    JobOutcome refused = JobOutcome.of(JobException.of("OUTPUT_IS_A_FILE", "path", "/out"));
    Map<String, Object> failed = RunSummary.failed("/out", refused);
    assertEquals("failed", failed.get("outcome"));
    assertEquals(2, failed.get("exitCode"));
    assertEquals("OUTPUT_IS_A_FILE", failed.get("error"));
    assertEquals(Map.of("path", "/out"), failed.get("errorParameters"));
    assertEquals(1, JobOutcome.of(new RuntimeException("a bug")).exit().code, "an uncatalogued failure is exit 1");
  }
}
