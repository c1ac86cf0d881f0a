package dev.dptext.job.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.Launcher;
import dev.dptext.job.testing.ProcessLane;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger and a crash: a run killed with SIGKILL between recording its release and writing its output
 * stays counted (its release is not confirmed), and its re-run adds nothing. The job runs as a user's
 * scheduler runs it, through {@code scripts/dptext} ({@link Launcher#startFirstRun}), killed by the launcher's
 * PID, which must leave no process behind; the checks and the re-run run in this JVM.
 */
@Tag("integration")
@ProcessLane
class LedgerKillTest {
  @TempDir static Path tmp;
  static Path keyFile;
  static Path embeddings;
  static String source;

  @BeforeAll
  static void setUp() throws Exception {
    keyFile = JobFixtures.keyFile(tmp, "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
    Path json = tmp.resolve("tickets.jsonl");
    Files.write(json, LedgerTest.tickets(0, 30));
    source = tmp.resolve("source").toString();
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      SharedSpark.get().read().json(json.toString()).write().format("delta").save(source);
    }
  }

  @Test
  void aRunKilledBetweenItsRecordAndItsWriteStaysCounted() throws Exception {
    String ledger = tmp.resolve("ledger-kill").toString();
    String out = tmp.resolve("out-kill").toString();
    String[] command = JobFixtures.sanitizeArgs(source, out, keyFile, embeddings, "--ledger", ledger, "--mode",
        "overwrite");
    // Through scripts/dptext on a first run of the build (no class-data archive yet), as a scheduler runs it:
    // the kill goes to the launcher's PID, which must be the job's JVM (a launcher that started the JVM as a
    // child and was killed left it running, and writing, for minutes).
    Path cds = tmp.resolve("cds");
    Process p = Launcher.startFirstRun(cds, tmp.resolve("kill.out"), tmp.resolve("kill.err"),
        List.of("spark.ui.enabled=false", "spark.master=local[2]"), command);
    List<ProcessHandle> launched = new ArrayList<>();
    try {
      Path recorded = Path.of(ledger, "_delta_log", "00000000000000000000.json");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!Files.exists(recorded) && p.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(Files.exists(recorded), "the release was not recorded in time: " + Files.readString(
          tmp.resolve("kill.err")));
      launched.add(p.toHandle());
      p.descendants().forEach(launched::add);
      new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      // Nothing the launcher started outlives it: not the JVM, nor its helpers (stderr's filter, the
      // archive's clean-up), which end when the JVM's pipes close.
      long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (launched.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < gone) {
        Thread.sleep(50);
      }
      assertEquals(List.of(), launched.stream().filter(ProcessHandle::isAlive)
          .map(h -> h.pid() + " " + h.info().command().orElse("?")).toList(), "left running after kill -9 of "
          + p.pid());
      try (Stream<Path> left = Files.list(cds)) {
        assertEquals(List.of(), left.toList(), "no archive from a killed run, and no temporary file");
      }
    } finally {
      p.destroyForcibly();
      launched.forEach(ProcessHandle::destroyForcibly);
    }

    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      SparkSession spark = SharedSpark.get();
      LedgerTable.Contents c = new LedgerTable(spark, ledger).read();
      assertEquals(1, c.releases().size(), "recorded before the write");
      assertTrue(c.committed().isEmpty(), "not confirmed");
      assertEquals(3.0, only(spark, ledger).maximum(), "counted although its write may not have happened");
      String report = LedgerReport.of(new LedgerTable(spark, ledger).read(), null).render();
      assertTrue(report.contains("not confirmed"), report);

      Run again = JobFixtures.run(command);
      assertEquals(0, again.exitCode(), again.err());
      assertTrue(again.out().contains("it adds nothing"), again.out());
      assertEquals(3.0, only(spark, ledger).maximum(), "the re-run repeats the killed run: nothing added");
      assertEquals(30, spark.read().format("delta").load(out).count());
    }
  }

  private static Spending only(SparkSession spark, String ledger) {
    List<Spending> s = LedgerReport.of(new LedgerTable(spark, ledger).read(), null).sources();
    assertEquals(1, s.size(), "one source");
    return s.get(0);
  }
}
