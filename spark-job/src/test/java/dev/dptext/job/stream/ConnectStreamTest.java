package dev.dptext.job.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sanitize --stream} with the job's session a Spark Connect client of a real local server
 * ({@link ConnectServer}): the micro-batch function runs on the server, carrying the run's settings and
 * the key's source only. Each micro-batch is committed once, with the classic run's rows; a restart
 * resumes with new files; a replayed micro-batch whose commit landed is skipped; a malformed record stops the stream
 * with the batch job's exit code and message (no raw text), and the rejects table takes it on the
 * resumed run. The server's log never holds the key or the raw text.
 */
@Tag("integration")
class ConnectStreamTest {
  static final String KEY = "445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233";

  @TempDir static Path tmp;
  static SparkSession connect;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    connect = ConnectServer.session();
    keyFile = JobFixtures.keyFile(tmp, KEY);
    embeddings = JobFixtures.gloveFile(tmp, 1000);
  }

  @AfterAll
  static void nothingSecretOrRawInTheServersLog() throws Exception {
    String log = Files.readString(ConnectServer.LOG);
    assertFalse(log.contains(KEY), "the key reached the Connect server's log");
    assertFalse(log.contains(StreamSanitizeTest.CANARY), "raw text reached the Connect server's log");
  }

  /** The stream over {@code input}, as the job on {@code spark} (null: classic) runs it. */
  static Run stream(SparkSession spark, Path input, Path output, Path checkpoint, String... extra) {
    List<String> a = new ArrayList<>(List.of("--stream", "--checkpoint", checkpoint.toString(), "--input-format",
        "json", "--input-schema", StreamSanitizeTest.SCHEMA));
    a.addAll(List.of(extra));
    return JobFixtures.run(spark, JobFixtures.sanitizeArgs(input.toString(), output.toString(), keyFile, embeddings,
        a.toArray(new String[0])));
  }

  @Test
  void microBatchesAreCommittedOnceWithTheClassicRowsAReplayIsSkippedAndAMalformedRecordStopsTheStream()
      throws Exception {
    Path in = tmp.resolve("files");
    StreamSanitizeTest.writeFiles(in, 0, 4, 5);
    Path classicOut = tmp.resolve("classic");
    Path out = tmp.resolve("connect");
    Path cp = tmp.resolve("connect-checkpoint");
    Run c = stream(null, in, classicOut, tmp.resolve("classic-checkpoint"), "--max-files-per-trigger", "2");
    assertEquals(0, c.exitCode(), c.err());
    Run r = stream(connect, in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("stream: 2 micro-batch(es) this run") && r.out().contains("rows in / out      20 / 20"),
        r.out());
    List<String> expected = StreamSanitizeTest.rows(classicOut);
    assertEquals(expected, StreamSanitizeTest.rows(out), "the classic run's rows");
    assertEquals(2, StreamSanitizeTest.versions(out), "one commit per micro-batch");
    assertFalse(expected.stream().anyMatch(s -> s.contains(StreamSanitizeTest.CANARY)), "raw text in the output");

    // A crash after micro-batch 1's Delta commit, before Spark marked it finished: the server runs it again,
    // and the transaction in the table makes that a no-op.
    StreamSanitizeTest.forgetFinished(cp, 1);
    Run replay = stream(connect, in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, replay.exitCode(), replay.out() + replay.err());
    assertTrue(replay.out().contains("stream: 0 micro-batch(es) this run"), replay.out());
    assertEquals(2, StreamSanitizeTest.versions(out), "no second commit of micro-batch 1");
    assertEquals(expected, StreamSanitizeTest.rows(out));

    // A new file with a malformed record: its micro-batch stops the stream with the batch job's exit code
    // and message (carried back from the server), nothing of it committed.
    StreamSanitizeTest.write(in.resolve("part-004.json"), List.of("{\"id\": 100, \"text\": \"fine\"}",
        "{\"id\": \"not a number\", \"text\": \"" + StreamSanitizeTest.CANARY + " broken\"}"), 4);
    Run failed = stream(connect, in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(ExitCode.INPUT.code, failed.exitCode(), failed.out() + failed.err());
    assertTrue(failed.err().contains("Micro-batch 2") && failed.err().contains("1 malformed record(s) of 2")
        && failed.err().contains("--on-corrupt reject"), failed.err());
    assertFalse(failed.err().contains("[dptext exit"), "the server's exit-code mark is for the client only");
    assertFalse(failed.err().contains(StreamSanitizeTest.CANARY), "raw text in the error");
    assertEquals(20, connect.read().format("delta").load(out.toString()).count(), "micro-batches 0 and 1 stay");

    // The restart with a rejects table takes the new file: one row out, the malformed record rejected.
    Path rejects = tmp.resolve("rejects");
    Run resumed = stream(connect, in, out, cp, "--max-files-per-trigger", "2", "--on-corrupt", "reject",
        "--rejects", rejects.toString());
    assertEquals(0, resumed.exitCode(), resumed.out() + resumed.err());
    assertTrue(resumed.out().contains("stream: 1 micro-batch(es) this run")
        && resumed.out().contains("rows in / out      2 / 1"), resumed.out());
    assertEquals(21, connect.read().format("delta").load(out.toString()).count());
    assertEquals(1, connect.read().format("delta").load(rejects.toString()).count());
    // Raw records: the rejects table keeps no column statistics (raw prefixes) in its log.
    try (var log = Files.list(rejects.resolve("_delta_log"))) {
      for (Path f : log.filter(f -> f.toString().endsWith(".json")).toList()) {
        assertFalse(Files.readString(f).contains(StreamSanitizeTest.CANARY), "raw text in the rejects' log " + f);
      }
    }
  }
}
