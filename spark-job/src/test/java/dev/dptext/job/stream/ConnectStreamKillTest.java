package dev.dptext.job.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.JobSession;
import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.JobProcess;
import dev.dptext.job.testing.ProcessLane;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once with a real crash, through Spark Connect: {@code sanitize --stream} runs as a separate JVM
 * that is a Connect client of this JVM's server ({@link ConnectServer}); after its 2nd micro-batch is
 * committed the client is killed with SIGKILL. The query runs on the server, which a dead client does
 * not stop (no shutdown hook runs on SIGKILL); the same command, restarted, takes the checkpoint over
 * (Spark stops the orphaned run: {@code spark.sql.streaming.stopActiveRunOnRestart}) and finishes. The
 * table must equal a batch run's row for row, each micro-batch in exactly one commit, and neither the
 * key nor raw text may be in the client's output, the checkpoint, the Delta log or the server's log.
 */
@Tag("integration")
@ProcessLane
class ConnectStreamKillTest {
  static final int FILES = 12;
  static final int FILES_PER_BATCH = 4;
  static final int BATCHES = FILES / FILES_PER_BATCH;
  static final int ROWS_PER_FILE = 5;
  static final String KEY = "7a6b5c4d3e2f1001122334455667788990aabbccddeeff007a6b5c4d3e2f1001";

  @TempDir static Path tmp;
  static int serverPort;
  static Path keyFile;
  static Path embeddings;
  private final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void setUp() throws Exception {
    serverPort = ConnectServer.port();
    keyFile = JobFixtures.keyFile(tmp, KEY);
    embeddings = JobFixtures.gloveFile(tmp, 1000);
  }

  @AfterEach
  void stopEverythingStarted() {
    for (Process p : started) {
      p.destroyForcibly();
    }
  }

  /** The job as its own JVM, a Spark Connect client of the test server (see {@link JobProcess}). */
  Process launch(Path stdout, Path stderr, String... args) throws IOException {
    Process p = JobProcess.start(stdout, stderr, "512m", List.of(JobSession.API_MODE + "=connect",
        JobSession.REMOTE + "=sc://localhost:" + serverPort), args);
    started.add(p);
    return p;
  }

  @Test
  void aKilledClientsStreamIsTakenOverByTheRestartAndTheTableEqualsABatchRun() throws Exception {
    Path in = tmp.resolve("in");
    StreamSanitizeTest.writeFiles(in, 0, FILES, ROWS_PER_FILE);
    Path out = tmp.resolve("out");
    Path cp = tmp.resolve("checkpoint");
    String[] command = {"sanitize", "--stream", "--checkpoint", cp.toString(), "--max-files-per-trigger",
        Integer.toString(FILES_PER_BATCH), "--input", in.toString(), "--input-format", "json", "--input-schema",
        StreamSanitizeTest.SCHEMA, "--output", out.toString(), "--id-column", "id", "--model", embeddings.toString(),
        "--neighbours", "32", "--key-file", keyFile.toString(), "--progress-interval", "0"};

    Process first = launch(tmp.resolve("first.out"), tmp.resolve("first.err"), command);
    // Versions: 0 (micro-batch 0), 1 (the audit mirrored into the properties), 2 (micro-batch 1).
    Path second = out.resolve("_delta_log").resolve("00000000000000000002.json");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (!Files.exists(second) && first.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertTrue(first.isAlive(), "the stream ended before it could be killed: " + Files.readString(tmp.resolve("first.out"))
        + Files.readString(tmp.resolve("first.err")));
    assertTrue(Files.exists(second), "no 2nd micro-batch in time");
    Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(first.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor());
    assertTrue(first.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, first.exitValue(), "killed by SIGKILL");

    Process restart = launch(tmp.resolve("second.out"), tmp.resolve("second.err"), command);
    assertTrue(restart.waitFor(6, TimeUnit.MINUTES), "the restart did not finish");
    String restartOut = Files.readString(tmp.resolve("second.out"));
    assertEquals(0, restart.exitValue(), restartOut + Files.readString(tmp.resolve("second.err")));

    // The checks in this JVM's Spark: the processes are done.
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      Path batch = tmp.resolve("batch");
      Run b = JobFixtures.sanitize(in, batch.toString(), keyFile, embeddings, "--input-format", "json",
          "--input-schema", StreamSanitizeTest.SCHEMA);
      assertEquals(0, b.exitCode(), b.err());
      List<String> expected = StreamSanitizeTest.rows(batch);
      assertEquals(FILES * ROWS_PER_FILE, expected.size());
      assertEquals(expected, StreamSanitizeTest.rows(out), "the restarted stream's table differs from the batch run's");
      assertEquals(BATCHES, StreamSanitizeTest.versions(out), "a micro-batch was committed twice or not at all");
    }

    List<String> leaks = new ArrayList<>();
    for (Path f : files(List.of(tmp.resolve("first.out"), tmp.resolve("first.err"), tmp.resolve("second.out"),
        tmp.resolve("second.err"), cp, out.resolve("_delta_log"), ConnectServer.LOG))) {
      String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
      if (content.contains(KEY) || content.contains(JobFixtures.CANARY)) {
        leaks.add(f.toString());
      }
    }
    assertTrue(leaks.isEmpty(), "key or raw text found in " + leaks);
    assertFalse(restartOut.contains(KEY));
  }

  private static List<Path> files(List<Path> roots) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path r : roots) {
      if (Files.isRegularFile(r)) {
        files.add(r);
        continue;
      }
      try (var walk = Files.walk(r)) {
        walk.filter(Files::isRegularFile).forEach(files::add);
      }
    }
    return files;
  }
}
