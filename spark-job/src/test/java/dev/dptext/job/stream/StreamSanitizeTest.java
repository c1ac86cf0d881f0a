package dev.dptext.job.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import dev.dptext.job.command.Commands;
import dev.dptext.job.command.ConfigFile;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sanitize --stream} in-process: a stream's output equals a batch run's over the same input,
 * row for row; a restart reads only new files; a micro-batch replayed after a crash is written once
 * whether or not its Delta commit landed; the per-batch counts reach the query's progress; malformed
 * records stop the stream before their micro-batch commits (or go to the rejects table); and every
 * unsafe combination is refused with exit 2. The real kill of a separate JVM: {@link StreamKillTest}.
 */
@Tag("integration")
class StreamSanitizeTest {
  static final String CANARY = JobFixtures.CANARY;
  static final String SCHEMA = "id BIGINT, text STRING";

  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "5566778899aabbccddeeff00112233445566778899aabbccddeeff0011223344");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
  }

  /** Writes {@code files} JSON-lines files of {@code rows} tickets each into {@code dir}, ids from {@code firstFile}. */
  static void writeFiles(Path dir, int firstFile, int files, int rows) throws IOException {
    Files.createDirectories(dir);
    String[] texts = {"the delivery was late and the box was damaged", "please refund my order today",
        "great service from the support team", "my phone keeps crashing after the update"};
    for (int f = firstFile; f < firstFile + files; f++) {
      List<String> lines = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        int id = f * rows + r;
        lines.add("{\"id\": " + id + ", \"text\": \"" + CANARY + " " + texts[id % texts.length] + " " + id + "\"}");
      }
      write(dir.resolve(String.format("part-%03d.json", f)), lines, f);
    }
  }

  /**
   * Writes a file with a modification time {@code order} seconds after a fixed start: Spark's file
   * source takes new files oldest first, so this fixes which files each micro-batch reads.
   */
  static void write(Path file, List<String> lines, int order) throws IOException {
    Files.write(file, lines);
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L + order * 1000L));
  }

  /** Forgets that micro-batch {@code n} finished, as a crash right before Spark recorded it would. */
  static void forgetFinished(Path checkpoint, int n) throws IOException {
    Files.delete(checkpoint.resolve("commits").resolve(Integer.toString(n)));
    Files.deleteIfExists(checkpoint.resolve("commits").resolve("." + n + ".crc"));
  }

  static Run stream(Path input, Path output, Path checkpoint, String... extra) {
    List<String> a = new ArrayList<>(List.of("--stream", "--checkpoint", checkpoint.toString(), "--input-format",
        "json", "--input-schema", SCHEMA));
    a.addAll(List.of(extra));
    return JobFixtures.sanitize(input, output.toString(), keyFile, embeddings, a.toArray(new String[0]));
  }

  static Run batch(Path input, Path output) {
    return JobFixtures.sanitize(input, output.toString(), keyFile, embeddings, "--input-format", "json",
        "--input-schema", SCHEMA);
  }

  /** Every column of every row, ordered by id. */
  static List<String> rows(Path table) {
    return SharedSpark.get().read().format("delta").load(table.toString()).orderBy("id").collectAsList().stream()
        .map(Row::toString).collect(Collectors.toList());
  }

  /**
   * The table's data commits: every version but the one that mirrors the audit into the table's
   * properties after the first micro-batch (the audit itself is in each data commit's userMetadata).
   */
  static long versions(Path table) {
    return SharedSpark.get().sql("DESCRIBE HISTORY delta.`" + table + "`").where("operation != 'SET TBLPROPERTIES'")
        .count();
  }

  /** Collects the dptext observed metrics of every progress event with data. */
  static final class Progress extends StreamingQueryListener {
    final List<Row> observed = new CopyOnWriteArrayList<>();

    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      Row r = event.progress().observedMetrics().get(SanitizeStream.OBSERVED);
      if (r != null && r.<Long>getAs("rowsIn") > 0) {
        observed.add(r);
      }
    }

    @Override
    public void onQueryIdle(QueryIdleEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}

    /** Waits for the listener bus (asynchronous) to deliver {@code n} events. */
    List<Row> await(int n) throws InterruptedException {
      for (int i = 0; i < 100 && observed.size() < n; i++) {
        Thread.sleep(100);
      }
      return observed;
    }
  }

  @Test
  void streamEqualsBatchRowForRowReportsProgressAndARestartReadsOnlyNewFiles() throws Exception {
    Path in = tmp.resolve("files");
    writeFiles(in, 0, 6, 10);
    Path out = tmp.resolve("streamed");
    Path cp = tmp.resolve("streamed-checkpoint");
    Progress progress = new Progress();
    spark.streams().addListener(progress);
    Run r;
    try {
      r = stream(in, out, cp, "--max-files-per-trigger", "2");
      assertEquals(0, r.exitCode(), r.err());
      List<Row> observed = progress.await(3);
      assertEquals(3, observed.size(), "one progress per micro-batch: " + observed);
      for (Row o : observed) {
        assertEquals(20L, o.<Long>getAs("rowsIn"));
        assertEquals(20L, o.<Long>getAs("rowsSanitized"));
        assertEquals(0L, o.<Long>getAs("rowsMalformed"));
      }
    } finally {
      spark.streams().removeListener(progress);
    }
    assertTrue(r.out().contains("stream: 3 micro-batch(es) this run") && r.out().contains("rows in / out      60 / 60"),
        r.out());
    Path clean = tmp.resolve("batch");
    assertEquals(0, batch(in, clean).exitCode());
    assertEquals(rows(clean), rows(out), "the stream writes what a batch run writes, row for row");
    assertEquals(3, versions(out), "one commit per micro-batch");
    assertEquals(1, spark.sql("DESCRIBE HISTORY delta.`" + out + "`").where("operation = 'SET TBLPROPERTIES'").count());
    // Every data commit carries the audit, as a batch run's does.
    for (Row h : spark.sql("DESCRIBE HISTORY delta.`" + out + "`").where("operation != 'SET TBLPROPERTIES'")
        .collectAsList()) {
      assertTrue(h.<String>getAs("userMetadata").contains("\"dptext.mechanism\":\"santext\""), h.toString());
    }
    Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(org.apache.spark.sql.delta.DeltaLog
        .forTable(spark, out.toString()).update(false, scala.Option.empty(), scala.Option.empty()).metadata()
        .configuration());
    assertEquals("santext", props.get("dptext.mechanism"));

    // A restart with nothing new: no micro-batch, no commit.
    Run idle = stream(in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, idle.exitCode(), idle.err());
    assertTrue(idle.out().contains("stream: 0 micro-batch(es) this run"), idle.out());
    assertEquals(3, versions(out));

    // New files arrive: the restart sanitizes those only, and the table equals a batch run over all.
    writeFiles(in, 6, 2, 10);
    Run more = stream(in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, more.exitCode(), more.err());
    assertTrue(more.out().contains("rows in / out      20 / 20"), more.out());
    Path all = tmp.resolve("batch-all");
    assertEquals(0, batch(in, all).exitCode());
    assertEquals(rows(all), rows(out));
    assertFalse(rows(out).stream().anyMatch(s -> s.contains(CANARY)), "raw text in the output");
  }

  @Test
  void aReplayedMicroBatchIsWrittenOnceWhetherOrNotItsCommitLanded() throws Exception {
    Path in = tmp.resolve("replay-files");
    writeFiles(in, 0, 4, 5);
    Path out = tmp.resolve("replay");
    Path cp = tmp.resolve("replay-checkpoint");
    assertEquals(0, stream(in, out, cp, "--max-files-per-trigger", "2").exitCode());
    List<String> expected = rows(out);
    assertEquals(20, expected.size());

    // A crash after the Delta commit of micro-batch 1, before Spark marked it finished: the restart runs
    // it again, and its transaction in the table makes that a no-op.
    forgetFinished(cp, 1);
    Run replay = stream(in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, replay.exitCode(), replay.err());
    assertEquals(2, versions(out), "no second commit of micro-batch 1");
    assertEquals(expected, rows(out));

    // A crash before the Delta commit of micro-batch 1 (version 2: version 1 mirrored the audit into the
    // properties): the restart writes it, the same rows.
    forgetFinished(cp, 1);
    Path log = out.resolve("_delta_log");
    for (String f : new String[] {"00000000000000000002.json", ".00000000000000000002.json.crc",
        "00000000000000000002.crc", ".00000000000000000002.crc.crc"}) {
      Files.deleteIfExists(log.resolve(f));
    }
    assertEquals(10, spark.read().format("delta").load(out.toString()).count());
    Run rewrite = stream(in, out, cp, "--max-files-per-trigger", "2");
    assertEquals(0, rewrite.exitCode(), rewrite.err());
    assertTrue(rewrite.out().contains("rows in / out      10 / 10"), rewrite.out());
    assertEquals(expected, rows(out), "the replay writes exactly the text the lost attempt would have");
  }

  @Test
  void aMalformedRecordStopsTheStreamBeforeItsBatchCommitsOrGoesToTheRejects() throws Exception {
    Path in = tmp.resolve("bad-files");
    writeFiles(in, 0, 2, 5);
    write(in.resolve("part-002.json"), List.of("{\"id\": 100, \"text\": \"fine\"}",
        "{\"id\": \"not a number\", \"text\": \"" + CANARY + " broken\"}"), 2);
    Path out = tmp.resolve("bad");
    Path cp = tmp.resolve("bad-checkpoint");
    Run failed = stream(in, out, cp, "--max-files-per-trigger", "1");
    assertEquals(3, failed.exitCode(), failed.err());
    ErrorAssertions.assertErrorText(failed.err(), "STREAM_BATCH_MALFORMED_RECORDS");
    assertTrue(failed.err().contains("Micro-batch 2") && failed.err().contains("1 malformed record(s) of 2")
        && failed.err().contains("--on-corrupt reject"), failed.err());
    assertFalse(failed.err().contains(CANARY), "raw text in the error");
    assertEquals(10, spark.read().format("delta").load(out.toString()).count(), "micro-batches 0 and 1 stay");

    Path rejects = tmp.resolve("bad-rejects");
    Run resumed = stream(in, out, cp, "--max-files-per-trigger", "1", "--on-corrupt", "reject",
        "--rejects", rejects.toString());
    assertEquals(0, resumed.exitCode(), resumed.err());
    assertEquals(11, spark.read().format("delta").load(out.toString()).count());
    assertEquals(1, spark.read().format("delta").load(rejects.toString()).count());
  }

  @Test
  void unsafeOrUnsupportedStreamsAreRefusedBeforeAnythingRuns() throws Exception {
    Path in = tmp.resolve("refused-files");
    writeFiles(in, 0, 1, 3);
    Path out = tmp.resolve("refused");
    Path cp = tmp.resolve("refused-checkpoint");
    List<String[]> cases = List.of(
        new String[] {"--checkpoint applies to a stream", "--checkpoint", cp.toString()},
        new String[] {"--stream needs --checkpoint", "--stream"},
        new String[] {"--trigger", "--stream", "--checkpoint", cp.toString(), "--trigger", "sometimes"});
    for (String[] c : cases) {
      Run r = JobFixtures.sanitize(in, out.toString(), keyFile, embeddings,
          java.util.Arrays.copyOfRange(c, 1, c.length));
      assertEquals(2, r.exitCode(), r.err());
      assertTrue(r.err().contains(c[0]), c[0] + " / " + r.err());
    }
    record Refused(String message, Path checkpoint, String... extra) {}
    for (Refused c : List.of(
        new Refused("overlap", out.resolve("_checkpoint")),
        new Refused("overlap", in.resolve("cp")),
        new Refused("Delta only", cp, "--output-format", "parquet"),
        new Refused("--mode errorifexists", cp, "--mode", "overwrite"),
        new Refused("keys its commits itself", cp, "--mode", "append", "--txn-app-id", "a", "--txn-version", "1"))) {
      Run r = stream(in, out, c.checkpoint(), c.extra());
      assertEquals(2, r.exitCode(), c.message() + ": " + r.err());
      assertTrue(r.err().contains(c.message()), c.message() + ": " + r.err());
    }
    Run fresh = JobFixtures.run("sanitize", "--stream", "--checkpoint", cp.toString(), "--input",
        in.toString(), "--output", out.toString(), "--input-format", "json", "--input-schema", SCHEMA, "--model",
        embeddings.toString(), "--id-mode", "fresh", "--progress-interval", "0");
    assertEquals(2, fresh.exitCode(), fresh.err());
    assertTrue(fresh.err().contains("refuses --id-mode fresh"), fresh.err());
    Run noSchema = JobFixtures.sanitize(in, out.toString(), keyFile, embeddings, "--stream",
        "--checkpoint", cp.toString(), "--input-format", "json");
    assertEquals(2, noSchema.exitCode(), noSchema.err());
    assertTrue(noSchema.err().contains("--input-schema"), noSchema.err());
    assertFalse(Files.exists(out), "nothing written by a refused run");

    // A stream's own checkpoint, then: another output with it; a new checkpoint for its table; in place.
    assertEquals(0, stream(in, out, cp).exitCode());
    Run otherOutput = stream(in, tmp.resolve("elsewhere"), cp);
    assertEquals(2, otherOutput.exitCode(), otherOutput.err());
    assertTrue(otherOutput.err().contains("belongs to the stream from"), otherOutput.err());
    Run newCheckpoint = stream(in, out, tmp.resolve("another-checkpoint"));
    assertEquals(2, newCheckpoint.exitCode(), newCheckpoint.err());
    assertTrue(newCheckpoint.err().contains("fed by another stream") && newCheckpoint.err().contains("--mode append"),
        newCheckpoint.err());
    Run inPlace = JobFixtures.sanitize(out, out.toString(), keyFile, embeddings, "--stream",
        "--checkpoint", tmp.resolve("in-place-checkpoint").toString(), "--mode", "append");
    assertEquals(2, inPlace.exitCode(), inPlace.err());
    assertTrue(inPlace.err().contains("is the input"), inPlace.err());
  }

  @Test
  void aDeltaTableStreamsIntoTheSameRowsAsABatchRunOverIt() throws Exception {
    Path files = tmp.resolve("delta-source-files");
    writeFiles(files, 0, 3, 4);
    Path raw = tmp.resolve("delta-source");
    for (int f = 0; f < 3; f++) { // three commits: three micro-batches of one file each
      spark.read().schema(SCHEMA).json(files.resolve(String.format("part-%03d.json", f)).toString())
          .write().format("delta").mode("append").save(raw.toString());
    }
    Path out = tmp.resolve("from-delta");
    Run r = JobFixtures.sanitize(raw, out.toString(), keyFile, embeddings, "--stream", "--checkpoint",
        tmp.resolve("from-delta-checkpoint").toString(), "--input-format", "delta", "--max-files-per-trigger", "1");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("stream: 3 micro-batch(es) this run"), r.out());
    Path clean = tmp.resolve("from-delta-batch");
    assertEquals(0, JobFixtures.sanitize(raw, clean.toString(), keyFile, embeddings, "--input-format", "delta")
        .exitCode());
    assertEquals(rows(clean), rows(out));
  }

  @Test
  void theStreamingExampleConfigurationHoldsOnlySanitizeOptions() {
    ConfigFile.load(Path.of("../conf/stream.properties"))
        .validateAgainst(Commands.commandLine().getSubcommands().get("sanitize").getCommandSpec());
  }
}
