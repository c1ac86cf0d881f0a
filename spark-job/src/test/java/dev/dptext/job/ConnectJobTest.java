package dev.dptext.job;

import static dev.dptext.job.testing.JobFixtures.SAMPLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.job.write.OutputLocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sanitize job with its session a Spark Connect CLIENT of a real Spark Connect server
 * ({@link ConnectServer}: its own JVM, Delta and dptext's extension on the server), against the classic
 * run of the same input, key and settings: the same rows. The server builds the model and resolves the
 * key from the settings the job names; the key itself never leaves the test's key file.
 */
@Tag("integration")
class ConnectJobTest {
  static final String KEY = "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677";

  @TempDir static Path tmp;
  static SparkSession classic;
  static SparkSession connect;
  static Path keyFile;
  static Path embeddings;
  static long started;

  @BeforeAll
  static void setUp() throws Exception {
    started = System.nanoTime();
    classic = SharedSpark.get();
    connect = ConnectServer.session();
    keyFile = JobFixtures.keyFile(tmp, KEY);
    // 1,000 words: each new configuration builds its sampler on both sides (the server's and this JVM's).
    embeddings = JobFixtures.gloveFile(tmp, 1000);
  }

  @AfterAll
  static void report() throws Exception {
    System.out.printf("ConnectJobTest: %.1f s (server start %.1f s)%n", (System.nanoTime() - started) / 1e9,
        ConnectServer.startSeconds);
    // The key is named to the server (its file's path), never sent: nothing the server logged holds it.
    assertFalse(Files.readString(ConnectServer.LOG).contains(KEY), "the key reached the Connect server's log");
  }

  /** Runs the job in {@code spark} (null: the job's own session, classic here) with its output captured. */
  static Run run(SparkSession spark, String... args) {
    return JobFixtures.run(spark, args);
  }

  static String[] sanitize(String output, String... extra) {
    return JobFixtures.sanitizeArgs(SAMPLE, output, keyFile, embeddings, extra);
  }

  /** Every row of a table, each as its string form, sorted: what "the same rows" compares. */
  static List<String> rows(String path, String format) {
    return classic.read().format(format).load(path).collectAsList().stream().map(Object::toString).sorted()
        .collect(Collectors.toList());
  }

  /** Runs the same sanitize classically and on Connect; asserts both succeed with the same rows. */
  static void sameRows(String name, String format, String... extra) {
    String a = tmp.resolve(name + "-classic").toString();
    String b = tmp.resolve(name + "-connect").toString();
    Run c = run(null, sanitize(a, extra));
    assertEquals(0, c.exitCode(), c.err());
    Run r = run(connect, sanitize(b, extra));
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
    List<String> expected = rows(a, format);
    assertEquals(16, expected.size());
    assertEquals(expected, rows(b, format));
    assertEquals(tokenLines(c.out()), tokenLines(r.out()), "the token statistics differ");
  }

  /** The summary's token lines (tokens, changed, out of vocabulary). */
  static List<String> tokenLines(String summary) {
    return summary.lines().filter(l -> l.startsWith("  tokens") || l.startsWith("  out of vocabulary"))
        .collect(Collectors.toList());
  }

  @Test
  void parquetOutputHasTheClassicRunsRows() throws Exception {
    sameRows("parquet", "parquet", "--output-format", "parquet", "--mechanism", "santext", "--epsilon", "2");
    // The run's jobs on the server carry its tags (a Connect client describes no job; the Spark UI shows tags).
    String events = ConnectServer.eventLog();
    assertTrue(events.contains("dptext-phase-sanitize-and-write") && events.contains("dptext-sanitize"),
        "the server's jobs carry no dptext tag");
    String summary = Files.readString(tmp.resolve("parquet-connect").resolve(OutputLocation.SUMMARY_FILE));
    assertTrue(summary.contains("\"rowsIn\":16") && summary.contains("\"rowsOut\":16")
        && summary.matches("(?s).*\"tokens\":[1-9].*") && !summary.contains("tokensCounted"), summary);
  }

  /** The same Delta run on both sides; asserts both exit with {@code code} and print {@code printed}. */
  static void both(String a, String b, int code, String printed, String... extra) {
    long t0 = System.nanoTime();
    Run c = run(null, sanitize(a, extra));
    assertEquals(code, c.exitCode(), c.out() + c.err());
    long t1 = System.nanoTime();
    Run r = run(connect, sanitize(b, extra));
    System.out.printf("  %s: classic %.1f s, Connect %.1f s%n", String.join(" ", extra), (t1 - t0) / 1e9,
        (System.nanoTime() - t1) / 1e9);
    assertEquals(code, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains(printed) || r.err().contains(printed), printed + " not in:\n" + r.out() + r.err());
    if (code == 0 && !List.of(extra).contains("merge") && !printed.startsWith("Nothing")) {
      assertEquals(tokenLines(c.out()), tokenLines(r.out()), "the token statistics differ");
    }
    assertTrue(c.out().contains(printed) || c.err().contains(printed), printed + " not in the classic run's:\n"
        + c.out() + c.err());
  }

  /**
   * The privacy ledger through Spark Connect: the release is recorded and confirmed, a classic run of the same
   * key, settings and file snapshot repeats it (adds nothing), and the budget refuses on Connect as classic.
   */
  @Test
  void theLedgerWorksOnConnectAsClassic() throws Exception {
    String ledger = tmp.resolve("ledger").toString();
    Run r = run(connect, sanitize(tmp.resolve("ledger-connect").toString(), "--ledger", ledger));
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("it adds ε 3 to 16 row key(s)"), r.out());
    Run c = run(null, sanitize(tmp.resolve("ledger-classic").toString(), "--ledger", ledger));
    assertEquals(0, c.exitCode(), c.err());
    assertTrue(c.out().contains("it adds nothing"), "the Connect run's key and settings are recognised: " + c.out());
    Run over = run(connect, sanitize(tmp.resolve("ledger-over").toString(), "--ledger", ledger, "--epsilon", "2",
        "--epsilon-budget", "4"));
    assertEquals(6, over.exitCode(), over.out() + over.err());
    assertTrue(over.err().contains("16 row key(s)"), over.err());
    assertFalse(Files.exists(tmp.resolve("ledger-over")), "nothing written");
    Run shown = run(connect, "ledger", "--ledger", ledger);
    assertEquals(0, shown.exitCode(), shown.err());
    assertTrue(shown.out().contains("largest ε per row 3"), shown.out());
    assertFalse(shown.out().contains("not confirmed"), shown.out());
  }

  /** The userMetadata of the table's latest commit that has one (the audit record of a dptext write). */
  static String audit(String path) {
    return classic.sql("DESCRIBE HISTORY delta.`" + path + "`").where("userMetadata IS NOT NULL")
        .orderBy(org.apache.spark.sql.functions.desc("version")).select("userMetadata").first().getString(0);
  }

  @Test
  void deltaModesHaveTheClassicRunsRowsAtEveryStep() {
    String a = tmp.resolve("delta-classic").toString();
    String b = tmp.resolve("delta-connect").toString();
    both(a, b, 0, "rows in / out      16 / 16");
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    both(a, b, ExitCode.USAGE.code, "already exists");
    both(a, b, 0, "rows in / out      16 / 16", "--mode", "overwrite", "--mechanism", "vickrey", "--epsilon", "4");
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    both(a, b, 0, "rows in / out      16 / 16", "--mode", "append");
    assertEquals(32, rows(b, "delta").size());
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    // A scheduled run's retry: the same (app id, version) writes nothing the second time.
    both(a, b, 0, "rows in / out      16 / 16", "--mode", "overwrite", "--txn-app-id", "nightly", "--txn-version", "7");
    both(a, b, 0, "Nothing to do", "--mode", "overwrite", "--txn-app-id", "nightly", "--txn-version", "7");
    assertEquals(16, rows(b, "delta").size());
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    both(a, b, 0, "rows in / out      5 / 5", "--mode", "replace-where", "--where", "id <= 5", "--epsilon", "1");
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    both(a, b, 0, "rows in / out      16 / 16", "--mode", "merge", "--mechanism", "santext", "--epsilon", "6");
    assertEquals(16, rows(b, "delta").size());
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    // The audit record of the last data commit is the same (but for each run's own id), and holds no key.
    assertEquals(audit(a).replaceAll("\"dptext.run\":\"[^\"]*\"", ""),
        audit(b).replaceAll("\"dptext.run\":\"[^\"]*\"", ""));
    assertTrue(audit(b).contains("\"dptext.mechanism\":\"santext\""), audit(b));
    assertFalse(audit(b).contains(KEY));
  }

  @Test
  void catalogTablesByNameHaveTheClassicRunsRows() {
    // Each side has its own catalog (this JVM's, the server's): the same input table in each.
    String sample = Path.of(SAMPLE).toAbsolutePath().normalize().toString();
    for (SparkSession side : List.of(classic, connect)) {
      side.sql("DROP TABLE IF EXISTS default.connect_tickets");
      side.sql("DROP TABLE IF EXISTS default.connect_tickets_dp");
      side.read().json(sample).write().format("delta").saveAsTable("default.connect_tickets");
    }
    String[] args = {"sanitize", "--input", "default.connect_tickets", "--output", "default.connect_tickets_dp",
        "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32", "--key-file", keyFile.toString(),
        "--progress-interval", "0"};
    Run c = run(null, args);
    assertEquals(0, c.exitCode(), c.out() + c.err());
    Run r = run(connect, args);
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
    List<String> expected = classic.table("default.connect_tickets_dp").collectAsList().stream().map(Object::toString)
        .sorted().collect(Collectors.toList());
    assertEquals(16, expected.size());
    assertEquals(expected, connect.table("default.connect_tickets_dp").collectAsList().stream().map(Object::toString)
        .sorted().collect(Collectors.toList()));
  }

  @Test
  void anInPlacePurgeHasTheClassicRunsRowsAndLeavesNoRawVersion() {
    String sample = Path.of(SAMPLE).toAbsolutePath().normalize().toString();
    String a = tmp.resolve("in-place-classic").toString();
    String b = tmp.resolve("in-place-connect").toString();
    for (String table : List.of(a, b)) {
      classic.read().json(sample).write().format("delta").save(table);
    }
    for (String[] side : new String[][] {{a, "classic"}, {b, "connect"}}) {
      Run r = run(side[1].equals("classic") ? null : connect, "sanitize", "--input", side[0], "--output", side[0],
          "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32", "--key-file",
          keyFile.toString(), "--progress-interval", "0", "--mode", "overwrite", "--in-place", "purge-history");
      assertEquals(0, r.exitCode(), side[1] + ": " + r.out() + r.err());
    }
    assertEquals(rows(a, "delta"), rows(b, "delta"));
    List<String> raw = classic.read().json(sample).collectAsList().stream().map(Object::toString).sorted()
        .collect(Collectors.toList());
    for (long v : classic.sql("DESCRIBE HISTORY delta.`" + b + "`").select("version").collectAsList().stream()
        .map(row -> row.getLong(0)).collect(Collectors.toList())) {
      List<String> at = classic.read().format("delta").option("versionAsOf", v).load(b).collectAsList().stream()
          .map(Object::toString).sorted().collect(Collectors.toList());
      assertFalse(at.equals(raw), "version " + v + " still holds the raw rows");
    }
  }

  @Test
  void contentHashAndAnotherMechanismHaveTheClassicRunsRows() {
    // No id column: rows are keyed by their text; the one-argument dp_sanitize on the server.
    String a = tmp.resolve("hash-classic").toString();
    String b = tmp.resolve("hash-connect").toString();
    String[] args = {"sanitize", "--input", SAMPLE, "--output-format", "parquet", "--id-mode", "content-hash",
        "--model", embeddings.toString(), "--neighbours", "32", "--key-file", keyFile.toString(),
        "--mechanism", "mahalanobis", "--epsilon", "5", "--progress-interval", "0", "--output"};
    List<String> classicArgs = new ArrayList<>(List.of(args));
    classicArgs.add(a);
    List<String> connectArgs = new ArrayList<>(List.of(args));
    connectArgs.add(b);
    Run c = run(null, classicArgs.toArray(new String[0]));
    assertEquals(0, c.exitCode(), c.err());
    Run r = run(connect, connectArgs.toArray(new String[0]));
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals(rows(a, "parquet"), rows(b, "parquet"));
  }

  @Test
  void theRunLeavesTheSessionsSettingsAloneAndIsNotChangedByThem() {
    connect.conf().set("spark.dptext.mechanism", "vickrey");
    String out = tmp.resolve("restored").toString();
    Run r = run(connect, sanitize(out, "--output-format", "parquet", "--mechanism", "santext"));
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertEquals("vickrey", connect.conf().get("spark.dptext.mechanism"));
    assertFalse(connect.conf().getOption("spark.dptext.keyFile").isDefined(), "the run set the session's key file");
    connect.conf().unset("spark.dptext.mechanism");
    assertTrue(r.out().contains("santext") && !r.out().contains("vickrey"), r.out());
  }

  @Test
  void aKeyInThisProgramsEnvironmentIsRefusedBeforeAnythingIsRead() {
    String out = tmp.resolve("key-env").toString();
    Run r = run(connect, "sanitize", "--input", SAMPLE, "--output", out, "--output-format", "parquet",
        "--id-column", "id", "--key-env", "SOME_KEY", "--progress-interval", "0");
    assertEquals(ExitCode.USAGE.code, r.exitCode(), r.err());
    assertTrue(r.err().contains("--key-env") && r.err().contains("spark.dptext.keyFile")
        && r.err().contains("spark.dptext.databricksSecret"), r.err());
    assertFalse(Files.exists(Path.of(out)), "nothing may be written");
    if (System.getenv("DPTEXT_KEY") == null) {
      // Nothing named, and the server (started without one) has no key of its own.
      Run none = run(connect, "sanitize", "--input", SAMPLE, "--output", out, "--output-format", "parquet",
          "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32", "--progress-interval", "0");
      assertEquals(ExitCode.USAGE.code, none.exitCode(), none.err());
      assertTrue(none.err().contains("has no RNG key") && none.err().contains("--key-file"), none.err());
      assertFalse(Files.exists(Path.of(out)), "nothing may be written");
    }
  }

  @Test
  void clientSideModelsAndUdfsAreRefusedOnConnectWithTheAlternative() {
    Run corpus = run(connect, sanitize(tmp.resolve("corpus").toString(), "--output-format", "parquet",
        "--mechanism", "santext+", "--frequency-source", "private-corpus"));
    assertEquals(ExitCode.USAGE.code, corpus.exitCode(), corpus.err());
    assertTrue(corpus.err().contains("--frequency-source embeddings"), corpus.err());
    // The DataFrame API reads the session's settings (never the key), and refuses to build a UDF here: its
    // plan would carry the sanitizer; the server's dp_sanitize is the way.
    connect.conf().set("spark.dptext.mechanism", "vickrey");
    try {
      dev.dptext.spark.DpText.Builder b = dev.dptext.spark.DpText.sanitizer(connect);
      assertEquals("vickrey", b.options().get(dev.dptext.settings.Settings.MECHANISM));
      IllegalArgumentException udf = assertThrows(IllegalArgumentException.class, () -> b.udf(connect));
      dev.dptext.testing.ErrorAssertions.assertError(udf, "CLASSIC_SESSION_REQUIRED");
      assertTrue(udf.getMessage().contains("dp_sanitize") && udf.getMessage().contains("Spark Connect"),
          udf.getMessage());
    } finally {
      connect.conf().unset("spark.dptext.mechanism");
    }
  }

  @Test
  void malformedRecordsFailOrAreRejectedOnConnectAsClassically() throws Exception {
    Path input = tmp.resolve("malformed.jsonl");
    Files.write(input, List.of(
        "{\"id\": 1, \"text\": \"the parcel was late\"}",
        "{\"id\": 2, \"text\": \"broken",
        "{\"id\": null, \"text\": \"a row without an id\"}",
        "{\"id\": 4, \"text\": \"please call me back\"}"));
    String failed = tmp.resolve("malformed-failed").toString();
    Run fail = run(connect, "sanitize", "--input", input.toString(), "--output", failed, "--output-format", "parquet",
        "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32", "--key-file", keyFile.toString(),
        "--progress-interval", "0");
    assertEquals(ExitCode.INPUT.code, fail.exitCode(), fail.out() + fail.err());
    assertTrue(fail.err().contains("1 malformed record(s) and 1 row(s) with text but a null id of 4"), fail.err());
    assertFalse(fail.err().contains("broken") || fail.err().contains("without an id"), "raw text in a message");
    assertFalse(Files.exists(Path.of(failed)), "nothing may be written");

    String a = tmp.resolve("malformed-classic").toString();
    String b = tmp.resolve("malformed-connect").toString();
    for (String[] side : new String[][] {{a, "classic"}, {b, "connect"}}) {
      Run r = run(side[1].equals("classic") ? null : connect, "sanitize", "--input", input.toString(), "--output",
          side[0], "--output-format", "parquet", "--id-column", "id", "--model", embeddings.toString(),
          "--neighbours", "32", "--key-file", keyFile.toString(), "--progress-interval", "0", "--on-corrupt", "reject",
          "--rejects", side[0] + "-rejects");
      assertEquals(0, r.exitCode(), r.out() + r.err());
      assertTrue(r.out().contains("rows in / out      4 / 2") && r.out().contains("rows rejected      2"), r.out());
    }
    assertEquals(rows(a, "parquet"), rows(b, "parquet"));
    assertEquals(rows(a + "-rejects", "parquet"), rows(b + "-rejects", "parquet"));
  }

  @Test
  void aSparkSubmitConnectLaunchGivesTheJobAConnectSession() {
    // What spark-submit --remote sc://… --conf spark.api.mode=connect sets for the application: the job
    // builds its own session (JobSession) as a Connect client, no static conf set on it.
    String remote = "sc://localhost:" + ConnectServer.port();
    String out = tmp.resolve("submitted").toString();
    System.setProperty(JobSession.API_MODE, "connect");
    System.setProperty(JobSession.REMOTE, remote);
    Run r;
    try {
      assertFalse(dev.dptext.classic.Classic.is(JobSession.get()), "the job's own session must be a Connect client");
      r = run(null, sanitize(out, "--output-format", "parquet"));
    } finally {
      System.clearProperty(JobSession.API_MODE);
      System.clearProperty(JobSession.REMOTE);
      ConnectServer.giveBackClassicSession();
    }
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("rows in / out      16 / 16") && r.out().matches("(?s).*  tokens +[1-9].*"), r.out());
  }

  @Test
  void theDatabricksTaskRunsHandedOnlyAConnectSession() {
    String out = tmp.resolve("databricks-task").toString();
    String printed = JobFixtures.capture(() -> DatabricksTask.run(connect, sanitize(out, "--output-format", "parquet")))
        .out();
    assertTrue(printed.contains("rows in / out      16 / 16"), printed);
    assertEquals(16, rows(out, "parquet").size());
    DatabricksTask.Failure refused = assertThrows(DatabricksTask.Failure.class, () ->
        DatabricksTask.run(connect, sanitize(out, "--output-format", "parquet")));
    assertEquals(ExitCode.USAGE.code, refused.exitCode(), refused.getMessage());
  }
}
