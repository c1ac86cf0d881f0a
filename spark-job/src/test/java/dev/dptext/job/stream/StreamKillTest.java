package dev.dptext.job.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.DeltaLogFiles;
import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.JobProcess;
import dev.dptext.job.testing.ProcessLane;
import dev.dptext.job.testing.SharedSpark;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once with a real crash: {@code sanitize --stream} runs as a separate JVM on 16 JSON files,
 * four per micro-batch; after its 2nd micro-batch is committed it is killed with SIGKILL by PID; the
 * same command restarts from the checkpoint. The table must then equal, row for row and column for
 * column, a batch run over the same files with the same key and ids, hold each micro-batch in exactly
 * one commit (4 micro-batches, the last transaction 3), and neither the key nor the raw text may appear in
 * either JVM's output, the checkpoint or the Delta log.
 *
 * <p>The child JVM gets {@code spark.databricks.delta.snapshotPartitions=2}, as this JVM's session
 * does: every micro-batch's commit reads the table's transactions, a Delta state reconstruction of 50
 * tasks by default, seconds each on two cores (docs/streaming.md).
 */
@Tag("integration")
@ProcessLane
class StreamKillTest {
  // Four micro-batches: two before the kill, two for the restart (each costs a Delta commit in a cold JVM).
  static final int FILES = 16;
  static final int FILES_PER_BATCH = 4;
  static final int BATCHES = FILES / FILES_PER_BATCH;
  static final int ROWS_PER_FILE = 5;
  static final String KEY = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";

  @TempDir static Path tmp;
  static Path keyFile;
  static Path embeddings;
  private final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void setUp() throws Exception {
    keyFile = JobFixtures.keyFile(tmp, KEY);
    embeddings = JobFixtures.gloveFile(tmp, 3000);
  }

  @AfterEach
  void stopEverythingStarted() {
    for (Process p : started) {
      p.destroyForcibly();
    }
  }

  /** The job as its own JVM with a local master (see {@link JobProcess}). */
  Process launch(Path stdout, Path stderr, String... args) throws IOException {
    Process p = JobProcess.start(stdout, stderr, "1g", List.of("spark.ui.enabled=false", "spark.master=local[2]",
        "spark.databricks.delta.snapshotPartitions=2"), args);
    started.add(p);
    return p;
  }

  @Test
  void killedMidStreamAndRestartedTheTableEqualsABatchRunRowForRow() throws Exception {
    Path in = tmp.resolve("in");
    StreamSanitizeTest.writeFiles(in, 0, FILES, ROWS_PER_FILE);
    Path out = tmp.resolve("out");
    Path cp = tmp.resolve("checkpoint");
    String[] command = {"sanitize", "--stream", "--checkpoint", cp.toString(), "--max-files-per-trigger", Integer.toString(FILES_PER_BATCH),
        "--input", in.toString(), "--input-format", "json", "--input-schema", StreamSanitizeTest.SCHEMA,
        "--output", out.toString(), "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32",
        "--key-file", keyFile.toString(), "--partitions", "2", "--progress-interval", "5"};

    Process first = launch(tmp.resolve("first.out"), tmp.resolve("first.err"), command);
    // Wait until the 2nd micro-batch (version 2, after the properties commit) is committed, then kill -9.
    Path second = out.resolve("_delta_log").resolve("00000000000000000002.json");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (!Files.exists(second) && first.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertTrue(first.isAlive(), "the stream ended before it could be killed: " + Files.readString(tmp.resolve("first.err")));
    assertTrue(Files.exists(second), "no 2nd micro-batch in time");
    Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(first.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor());
    assertTrue(first.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, first.exitValue(), "killed by SIGKILL");
    long committedAtKill = DeltaLogFiles.lastVersion(out);
    assertTrue(committedAtKill < BATCHES, "killed mid-stream: " + committedAtKill + " of " + BATCHES
        + " committed");

    Process restart = launch(tmp.resolve("second.out"), tmp.resolve("second.err"), command);
    assertTrue(restart.waitFor(6, TimeUnit.MINUTES), "the restart did not finish");
    String secondOut = Files.readString(tmp.resolve("second.out"));
    assertEquals(0, restart.exitValue(), secondOut + Files.readString(tmp.resolve("second.err")));

    // The restart resumed: it committed only what the killed run had not.
    // Versions 0..k at the kill: k micro-batches and the properties commit.
    long resumed = (BATCHES - committedAtKill) * FILES_PER_BATCH * ROWS_PER_FILE;
    assertTrue(secondOut.contains("rows in / out      " + resumed + " / " + resumed), secondOut);

    // The checks in this JVM's Spark: the processes are done.
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      checkAgainstABatchRun(in, out, cp);
    }
  }

  /** The restarted stream's table against a batch run of the same files, in this JVM, and the logs' contents. */
  private void checkAgainstABatchRun(Path in, Path out, Path cp) throws IOException {
    SparkSession spark = SharedSpark.get();
    Path batch = tmp.resolve("batch");
    Run b = JobFixtures.sanitize(in, batch.toString(), keyFile, embeddings, "--input-format", "json",
        "--input-schema", StreamSanitizeTest.SCHEMA);
    assertEquals(0, b.exitCode(), b.err());
    List<String> expected = StreamSanitizeTest.rows(batch);
    List<String> actual = StreamSanitizeTest.rows(out);
    assertEquals(FILES * ROWS_PER_FILE, expected.size());
    assertEquals(expected, actual, "the restarted stream's table differs from the batch run's");
    assertEquals(FILES * ROWS_PER_FILE, spark.read().format("delta").load(out.toString()).select("id").distinct().count());
    // Each micro-batch in exactly one commit, plus the new table's one properties commit (the audit
    // mirrored after the first micro-batch), and the stream's transaction at the last batch.
    assertEquals(BATCHES, lastVersion(spark, out), "a micro-batch was committed twice or not at all");
    assertEquals(1, spark.sql("DESCRIBE HISTORY delta.`" + out + "`").where("operation = 'SET TBLPROPERTIES'").count());
    String queryId = new com.fasterxml.jackson.databind.ObjectMapper().readTree(cp.resolve("metadata").toFile())
        .get("id").asText();
    assertEquals(BATCHES - 1L, DeltaLog.forTable(spark, out.toString()).update(false, scala.Option.empty(),
        scala.Option.empty()).transactions().get(StreamCheckpoint.appId(queryId)).get());

    List<String> leaks = new ArrayList<>();
    for (Path f : filesUnder(List.of(tmp.resolve("first.out"), tmp.resolve("first.err"), tmp.resolve("second.out"),
        tmp.resolve("second.err"), cp, out.resolve("_delta_log")))) {
      String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
      if (content.contains(KEY) || content.contains(JobFixtures.CANARY)) {
        leaks.add(f.toString());
      }
    }
    assertTrue(leaks.isEmpty(), "key or raw text found in " + leaks);
    assertFalse(actual.stream().anyMatch(r -> r.contains(JobFixtures.CANARY)), "raw text in the output");
    assertTrue(Files.readString(tmp.resolve("first.err")).contains("stream: micro-batch 0 committed as table version 0: rows in 20, out 20"),
        "the per-batch line is in the log: " + Files.readAllLines(tmp.resolve("first.err")).stream()
            .filter(l -> l.contains("stream: ")).toList());
  }

  private static long lastVersion(SparkSession spark, Path table) {
    return DeltaLog.forTable(spark, table.toString()).update(false, scala.Option.empty(), scala.Option.empty()).version();
  }

  private static List<Path> filesUnder(List<Path> roots) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path r : roots) {
      try (Stream<Path> walk = Files.walk(r)) {
        files.addAll(walk.filter(Files::isRegularFile).collect(Collectors.toList()));
      }
    }
    return files;
  }
}
