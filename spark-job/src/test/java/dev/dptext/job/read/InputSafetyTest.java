package dev.dptext.job.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.job.write.TableWriter;
import dev.dptext.spark.LogCapture;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input safety: awkward texts are sanitized with every row and column kept; malformed records fail
 * the run or go to a rejects table, never silently dropped; and neither the key nor raw text reaches
 * a log line (driver and, in local mode, executor, at DEBUG), the event log, or an error message.
 */
class InputSafetyTest {
  static final String KEY = "5e5e5e5e0123456789abcdef0123456789abcdef0123456789abcdef5e5e5e5e";
  /** A text that must never appear anywhere but in the input and the rejects table. */
  static final String CANARY = "zqxcanaryvortigaunt";

  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, KEY);
    embeddings = JobFixtures.gloveFile(tmp, 3000);
  }

  static Run sanitize(Path input, String output, String... extra) {
    return JobFixtures.sanitize(input, output, keyFile, embeddings, extra);
  }

  static Map<Long, Row> byId(String path) {
    return spark.read().format("delta").load(path).collectAsList().stream()
        .collect(Collectors.toMap(r -> r.<Long>getAs("id"), r -> r));
  }

  @Test
  void awkwardTextsAreSanitizedWithEveryRowAndColumnKept() throws Exception {
    String longText = "the movie was good and ".repeat(460_000); // 10.6 MB
    ByteArrayOutputStream json = new ByteArrayOutputStream();
    String[][] rows = {
        {"1", "null"}, {"2", "\"\""}, {"3", "\"   \\t  \""},
        {"4", "\"I love it \uD83D\uDE00\uD83D\uDC4D\uD83C\uDFFD great\""},
        {"5", "\"我喜欢这个产品 とても良い 좋아요\""},
        {"6", "\"שלום עולם مرحبا بالعالم the movie\""},
        {"7", "\"" + longText + "\""},
    };
    for (String[] r : rows) {
      json.write(("{\"id\": " + r[0] + ", \"customer\": \"C-" + r[0] + "\", \"text\": " + r[1] + "}\n")
          .getBytes(StandardCharsets.UTF_8));
    }
    Path input = tmp.resolve("awkward.jsonl");
    Files.write(input, json.toByteArray());

    String out = tmp.resolve("awkward-out").toString();
    Run r = sanitize(input, out);
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows in / out      7 / 7"), r.out());
    Map<Long, Row> got = byId(out);
    assertEquals(7, got.size());
    for (long id = 1; id <= 7; id++) {
      assertEquals("C-" + id, got.get(id).getAs("customer"), "other columns are untouched");
    }
    assertNull(got.get(1L).getAs("text"));
    assertEquals("", got.get(2L).getAs("text"));
    assertEquals("   \t  ", got.get(3L).getAs("text"), "whitespace is layout: kept exactly");
    for (long id : new long[] {4, 5, 6}) {
      String text = got.get(id).getAs("text");
      // Out-of-vocabulary tokens (emoji, CJK, Hebrew, Arabic) are replaced by vocabulary
      // words: none of their characters survives.
      assertTrue(text.codePoints().allMatch(c -> c < 0x2000), "row " + id + ": " + text);
      assertFalse(text.isBlank());
    }
    String sanitizedLong = got.get(7L).getAs("text");
    assertEquals(longText.split(" ", -1).length, sanitizedLong.split(" ", -1).length,
        "the 10 MB text keeps its layout: one output word per input word");
    assertNotEquals(longText, sanitizedLong);
  }

  /** Invalid UTF-8 in text input: Spark decodes it to U+FFFD, an out-of-vocabulary symbol, sanitized. */
  @Test
  void invalidUtf8InTextInputIsSanitizedLikeAnyOtherToken() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write("the order was late\nbad ".getBytes(StandardCharsets.UTF_8));
    bytes.write(new byte[] {(byte) 0xC3, 0x28, 0x20, (byte) 0x80, (byte) 0xFF});
    bytes.write(" bytes here\n".getBytes(StandardCharsets.UTF_8));
    Path input = tmp.resolve("invalid-utf8.txt");
    Files.write(input, bytes.toByteArray());
    String out = tmp.resolve("invalid-utf8-out").toString();
    Run r = JobFixtures.run("sanitize", "--input", input.toString(), "--output", out,
        "--id-mode", "content-hash", "--model", embeddings.toString(), "--neighbours", "32",
        "--key-file", keyFile.toString(), "--progress-interval", "0");
    assertEquals(0, r.exitCode(), r.err());
    List<String> texts = spark.read().format("delta").load(out).collectAsList().stream()
        .map(row -> row.getString(0)).collect(Collectors.toList());
    assertEquals(2, texts.size());
    for (String t : texts) {
      assertFalse(t.contains("\uFFFD"), t);
    }
  }

  @Test
  void malformedRecordsFailTheRunOrGoToTheRejectsTable() throws Exception {
    Path input = tmp.resolve("corrupt.jsonl");
    Files.write(input, List.of(
        "{\"id\": 1, \"text\": \"the delivery was late\"}",
        "{\"id\": 2, \"text\": \"broken " + CANARY + " record",
        "{\"id\": 3, \"text\": \"please refund my order\"}",
        "{\"id\": \"four\", \"text\": \"an id that is not a number " + CANARY + "\"}",
        "{\"id\": null, \"text\": \"a text without an id " + CANARY + "\"}",
        "{\"id\": 6, \"text\": null}"));
    // JSON must be UTF-8: a record with invalid bytes is malformed.
    Files.write(input, new byte[] {'{', '"', 'i', 'd', '"', ':', '7', ',', '"', 't', 'e', 'x', 't', '"', ':', '"',
        (byte) 0xC3, 0x28, '"', '}', '\n'}, java.nio.file.StandardOpenOption.APPEND);
    String out = tmp.resolve("corrupt-out").toString();

    Run failed = sanitize(input, out);
    assertEquals(3, failed.exitCode(), failed.err());
    ErrorAssertions.assertErrorText(failed.err(), "INPUT_MALFORMED_RECORDS");
    assertTrue(failed.err().contains("2 malformed record(s) and 1 row(s) with text but a null id of 7"), failed.err());
    assertTrue(failed.err().contains("--on-corrupt reject"), failed.err());
    assertFalse(failed.err().contains(CANARY) || failed.out().contains(CANARY), "raw text in an error message");
    assertFalse(Files.exists(Path.of(out)), "a failed run writes nothing");

    String rejects = tmp.resolve("corrupt-rejects").toString();
    Run rejected = sanitize(input, out, "--on-corrupt", "reject", "--rejects", rejects);
    assertEquals(0, rejected.exitCode(), rejected.err());
    assertTrue(rejected.out().contains("rows in / out      7 / 4") && rejected.out().contains("rows rejected      3"),
        rejected.out());
    assertEquals(4, spark.read().format("delta").load(out).count());
    List<Row> rej = spark.read().format("delta").load(rejects).orderBy(InputTable.REASON).collectAsList();
    assertEquals(3, rej.size());
    assertEquals("malformed record", rej.get(0).getAs(InputTable.REASON));
    assertEquals("malformed record", rej.get(1).getAs(InputTable.REASON));
    assertTrue(rej.stream().anyMatch(x -> String.valueOf(x.<String>getAs(InputTable.CORRUPT)).contains("broken " + CANARY)),
        "the raw record is kept");
    assertEquals("null id", rej.get(2).getAs(InputTable.REASON));
    String summary = Files.readString(Path.of(out, "_dptext_summary.json"));
    assertTrue(summary.contains("\"rowsIn\":7") && summary.contains("\"rowsOut\":4")
        && summary.contains("\"rowsRejected\":3"), summary);

    Run unpaired = sanitize(input, tmp.resolve("x").toString(), "--on-corrupt", "reject");
    assertEquals(2, unpaired.exitCode());
    assertTrue(unpaired.err().contains("--rejects PATH"), unpaired.err());
    Run dropMalformed = sanitize(input, tmp.resolve("x").toString(), "--input-option", "mode=DROPMALFORMED");
    assertEquals(2, dropMalformed.exitCode());
    assertTrue(dropMalformed.err().contains("--on-corrupt"), dropMalformed.err());
  }

  @Test
  void theInputCheckRidesTheWriteOnlyWhereARejectedRecordLosesNothing() throws Exception {
    Path good = tmp.resolve("ride-good.jsonl");
    Files.write(good, List.of("{\"id\": 1, \"text\": \"the delivery was late\"}",
        "{\"id\": 2, \"text\": \"please refund my order\"}", "{\"id\": 3, \"text\": null}",
        "{\"id\": 4, \"text\": \"\"}", "{\"id\": 5, \"text\": \"thank you\"}"));
    Path bad = tmp.resolve("ride-bad.jsonl");
    Files.write(bad, List.of("{\"id\": 6, \"text\": \"good morning\"}", "{\"id\": 7, \"text\": \"broken " + CANARY,
        "{\"id\": 8, \"text\": \"see you\"}", "{\"id\": 9, \"text\": \"the order\"}"));

    // A clean run to a new Delta table: the input is checked and counted by the write's read of it
    // (no pass of its own), and rows in = rows out still holds.
    String delta = tmp.resolve("ride-delta").toString();
    Run first;
    List<String> logged;
    try (LogCapture logs = new LogCapture()) {
      first = sanitize(good, delta);
      logged = logs.lines();
    }
    assertEquals(0, first.exitCode(), first.err());
    assertTrue(first.out().contains("rows in / out      5 / 5"), first.out());
    assertTrue(logged.stream().anyMatch(l -> l.contains("phase: input to be checked as the write reads it")),
        "the check rode the write");
    assertFalse(logged.stream().anyMatch(l -> l.contains("phase: input counted")), "no counting pass of its own");

    // A malformed record in an append to that table: the run fails with the same counts a separate
    // pass reports, and nothing is committed.
    long version = TableWriter.currentVersion(spark, delta);
    Run append = sanitize(bad, delta, "--mode", "append");
    assertEquals(3, append.exitCode(), append.err());
    assertTrue(append.err().contains("1 malformed record(s) of 4; nothing was written"), append.err());
    assertFalse(append.err().contains(CANARY) || append.out().contains(CANARY), "raw text in an error message");
    assertEquals(version, TableWriter.currentVersion(spark, delta), "nothing committed");
    assertEquals(5, spark.read().format("delta").load(delta).count());

    // Parquet: to a new path the check rides the write and a failure leaves no directory; an
    // overwrite of existing Parquet data keeps the pass of its own (Spark deletes the old files before
    // its job runs), so a malformed record leaves the old rows where they were.
    String fresh = tmp.resolve("ride-parquet-new").toString();
    Run freshBad = sanitize(bad, fresh, "--output-format", "parquet");
    assertEquals(3, freshBad.exitCode(), freshBad.err());
    assertFalse(Files.exists(Path.of(fresh)), "a failed run leaves nothing at a new path");
    String parquet = tmp.resolve("ride-parquet").toString();
    assertEquals(0, sanitize(good, parquet, "--output-format", "parquet").exitCode());
    // (With adaptive execution Spark happens to run the shuffle's map stage before the write command
    // deletes; the guarantee must not rest on that, so this run has it off.)
    Run overwrite;
    spark.conf().set("spark.sql.adaptive.enabled", "false");
    try {
      overwrite = sanitize(bad, parquet, "--output-format", "parquet", "--mode", "overwrite");
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
    assertEquals(3, overwrite.exitCode(), overwrite.err());
    assertEquals(5, spark.read().parquet(parquet).count(), "the old rows are still there");
  }

  @Test
  void theRowsCountedInTheWriteCountAPartitionOnceWhateverItsAttempts() {
    dev.dptext.classic.RowsPerPartition driver = new dev.dptext.classic.RowsPerPartition();
    dev.dptext.classic.RowsPerPartition first = (dev.dptext.classic.RowsPerPartition) driver.copyAndReset();
    first.addRows(3, 10);
    driver.merge(first);
    dev.dptext.classic.RowsPerPartition rerun = (dev.dptext.classic.RowsPerPartition) driver.copyAndReset();
    rerun.addRows(3, 10); // partition 3 computed again after a lost shuffle file
    driver.merge(rerun);
    dev.dptext.classic.RowsPerPartition other = (dev.dptext.classic.RowsPerPartition) driver.copyAndReset();
    other.addRows(4, 7);
    driver.merge(other);
    assertEquals(17, driver.value());
    assertTrue(driver.copyAndReset().isZero());
  }

  @Test
  void aGivenSchemaIsUsedAsDeclaredAndRecordsThatDoNotFitItAreRejected() throws Exception {
    Path input = tmp.resolve("typed.jsonl");
    Files.write(input, List.of(
        "{\"id\": 1, \"text\": \"the delivery was late\", \"stars\": 2}",
        "{\"id\": 2, \"text\": \"great " + CANARY + "\", \"stars\": \"five\"}",
        "{\"id\": 3, \"text\": \"please refund my order\"}"));
    String out = tmp.resolve("typed-out").toString();
    String rejects = tmp.resolve("typed-rejects").toString();
    Run r = sanitize(input, out, "--input-schema", "id BIGINT, text STRING, stars INT",
        "--on-corrupt", "reject", "--rejects", rejects);
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows in / out      3 / 2") && r.out().contains("rows rejected      1"), r.out());
    org.apache.spark.sql.Dataset<Row> written = spark.read().format("delta").load(out);
    assertEquals("struct<id:bigint,text:string,stars:int>", written.schema().simpleString(), "declared types kept");
    assertEquals(2, byId(out).get(1L).<Integer>getAs("stars"));
    assertTrue(byId(out).get(3L).isNullAt(byId(out).get(3L).fieldIndex("stars")), "an absent declared column is null");
    Row rejected = spark.read().format("delta").load(rejects).first();
    assertTrue(rejected.<String>getAs(InputTable.CORRUPT).contains("\"five\""), "the raw record is kept");

    Run bad = sanitize(input, tmp.resolve("x").toString(), "--input-schema", "id BIGINT,, text");
    assertEquals(2, bad.exitCode(), bad.err());
    assertTrue(bad.err().contains("--input-schema is not a valid schema"), bad.err());
  }

  @Test
  void csvRecordsWithTheWrongShapeAreRejectedToo() throws Exception {
    Path input = tmp.resolve("tickets.csv");
    Files.write(input, List.of("id,text", "1,the box was damaged", "2,\"unterminated " + CANARY,
        "3,great service"));
    String rejects = tmp.resolve("csv-rejects").toString();
    Run r = sanitize(input, tmp.resolve("csv-out").toString(), "--input-option", "header=true",
        "--input-option", "inferSchema=true", "--on-corrupt", "reject", "--rejects", rejects);
    assertEquals(0, r.exitCode(), r.err());
    long in = 3;
    long written = spark.read().format("delta").load(tmp.resolve("csv-out").toString()).count();
    long rejected = Files.exists(Path.of(rejects)) ? spark.read().format("delta").load(rejects).count() : 0;
    assertEquals(in, written + rejected, r.out());
  }

  @Test
  void neitherTheKeyNorRawTextReachesLogsTheEventLogOrErrors() throws Exception {
    Path input = tmp.resolve("canary.jsonl");
    Files.write(input, List.of("{\"id\": 1, \"text\": \"hello " + CANARY + " world\"}",
        "{\"id\": 2, \"text\": \"the " + CANARY + " was late\"}"));
    Path broken = tmp.resolve("canary-broken.jsonl");
    Files.write(broken, List.of("{\"id\": 1, \"text\": \"unterminated " + CANARY));
    List<String> printed = new ArrayList<>();
    List<String> logged;
    try (LogCapture logs = new LogCapture()) {
      // The key set on the running session is refused before any job runs: Spark would copy it,
      // unredacted, into every job's properties in the event log (SessionSecret).
      spark.conf().set("spark.dptext.secretKey", KEY);
      Run refused;
      try {
        refused = sanitize(input, tmp.resolve("canary-refused").toString());
      } finally {
        spark.conf().unset("spark.dptext.secretKey");
      }
      assertEquals(2, refused.exitCode(), refused.err());
      assertTrue(refused.err().contains("RESET spark.dptext.secretKey"), refused.err());
      Run ok = sanitize(input, tmp.resolve("canary-out").toString());
      assertEquals(0, ok.exitCode(), ok.err());
      Run bad = sanitize(broken, tmp.resolve("canary-bad").toString());
      assertEquals(3, bad.exitCode(), bad.err());
      // A malformed key (too short) in a file: the error names the file, never the value.
      Path shortKey = Files.writeString(tmp.resolve("short.key"), KEY.substring(0, 30));
      Run badKey = JobFixtures.run("sanitize", "--input", input.toString(), "--output",
          tmp.resolve("canary-key").toString(), "--id-column", "id", "--key-file", shortKey.toString());
      assertEquals(2, badKey.exitCode(), badKey.err());
      assertTrue(badKey.err().contains("short.key"), badKey.err());
      for (Run r : List.of(refused, ok, bad, badKey)) {
        printed.add(r.out());
        printed.add(r.err());
      }
      logged = logs.lines();
    }
    assertTrue(logged.size() > 100, "DEBUG logging was captured: " + logged.size() + " lines");
    // The event log holds every event of this test JVM's shared session (over 100 MB by now): read line
    // by line (one JSON event per line, so a secret cannot straddle lines), never whole.
    boolean sawPlans = false;
    List<String> leaks = new ArrayList<>();
    List<String> secrets = List.of(KEY, KEY.substring(0, 24), CANARY);
    try (Stream<Path> files = Files.walk(SharedSpark.EVENT_LOG)) {
      for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        try (java.io.BufferedReader reader = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
          for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            sawPlans |= line.contains("SparkListenerSQLExecutionStart") && line.contains("physicalPlanDescription");
            for (String secret : secrets) {
              if (line.contains(secret)) {
                leaks.add(secret.substring(0, 6) + "…");
              }
            }
          }
        }
      }
    }
    assertTrue(sawPlans, "the event log holds the query plans");
    assertTrue(leaks.isEmpty(), "event log leaks " + leaks);
    for (String secret : secrets) {
      for (String line : logged) {
        assertFalse(line.contains(secret), "log line leaks " + secret.substring(0, 6) + "…: " + line.substring(0,
            Math.min(200, line.length())));
      }
      for (String text : printed) {
        assertFalse(text.contains(secret), "job output leaks " + secret.substring(0, 6) + "…");
      }
    }
  }
}
