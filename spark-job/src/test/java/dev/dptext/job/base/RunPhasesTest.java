package dev.dptext.job.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's Spark jobs carry its command, table and phase (the Spark UI's description and job tags), and
 * the session is left as the run found it. Seen as Spark's own listener sees each job start.
 */
class RunPhasesTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static CanaryTickets fx;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    fx = CanaryTickets.in(tmp);
  }

  @Test
  void aRunsJobsAreNamedAfterItsCommandTableAndPhase() throws Exception {
    String out = tmp.resolve("named").toString();
    List<Properties> jobs = new CopyOnWriteArrayList<>();
    SparkListener listener = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart start) {
        jobs.add(start.properties());
      }
    };
    spark.sparkContext().addSparkListener(listener);
    try {
      Run r = fx.sanitize(fx.tickets(), out);
      assertEquals(0, r.exitCode(), r.err());
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    List<String> descriptions = jobs.stream().map(p -> p.getProperty("spark.job.description")).toList();
    String run = "dptext sanitize " + out + ": ";
    for (String phase : List.of("read the input", "sanitize and write", "find the commit")) {
      assertTrue(descriptions.contains(run + phase), phase + " in " + descriptions);
    }
    List<List<String>> tags = jobs.stream()
        .map(p -> List.of(String.valueOf(p.getProperty("spark.job.tags")).split(","))).toList();
    assertTrue(tags.stream().anyMatch(t -> t.containsAll(List.of("dptext", "dptext-sanitize",
        "dptext-phase-sanitize-and-write"))), tags.toString());
    // The session as it was: no tag, no description left behind.
    assertTrue(spark.getTags().isEmpty() && spark.sparkContext().getJobTags().isEmpty(), tags.toString());
    assertNull(spark.sparkContext().getLocalProperty("spark.job.description"));
    // Tagging left the session serializable: a closure that captures it (an MLlib model's training summary
    // does) still ships. SparkSession.addTag on a classic session would not leave it so.
    new java.io.ObjectOutputStream(java.io.OutputStream.nullOutputStream()).writeObject(spark);
  }

  @Test
  void outsideARunEnteringAPhaseDoesNothingAndTagsTakeNoComma() {
    RunPhases.enter(spark, "write");
    assertTrue(spark.sparkContext().getJobTags().isEmpty());
    assertEquals("evaluate-utility", RunPhases.tagOf("evaluate utility"));
    assertEquals("micro-batch-7-sanitize-and-write", RunPhases.tagOf("micro-batch 7: sanitize, and write"));
    try (RunPhases.Scope outer = RunPhases.begin(spark, "sanitize", "/a,b")) {
      RunPhases.enter(spark, "write");
      assertEquals("dptext sanitize /a,b: write", spark.sparkContext().getLocalProperty("spark.job.description"));
      try (RunPhases.Scope inner = RunPhases.begin(spark, "sanitize --stream", "/c")) {
        RunPhases.enter(spark, "micro-batch 1: count");
        assertTrue(spark.sparkContext().getJobTags().contains("dptext-phase-micro-batch-1-count"),
            spark.sparkContext().getJobTags().toString());
      }
      assertEquals("dptext sanitize /a,b: write", spark.sparkContext().getLocalProperty("spark.job.description"));
      assertTrue(spark.sparkContext().getJobTags().contains("dptext-phase-write")
          && spark.sparkContext().getJobTags().contains("dptext-sanitize"));
    }
    assertTrue(spark.sparkContext().getJobTags().isEmpty(), spark.sparkContext().getJobTags().toString());
  }
}
