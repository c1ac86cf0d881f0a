package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write path as a scheduler meets it, through the CLI: an output that is the input (refused by
 * default; purged or kept on request, crash states recovered), what is found at the output checked
 * before any work, the leftovers of a crashed first write, properties and rows in one commit,
 * concurrent writers, and a JSON record over the reader's string limit.
 */
class WritePathTest {
  /** A word no model knows and no mechanism emits: if it is readable anywhere, raw text leaked. */
  static final String CANARY = "zqxcanaryraw";

  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;
  static Path tickets;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "2233445566778899aabbccddeeff00112233445566778899aabbccddeeff0011");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
    tickets = tmp.resolve("tickets.jsonl");
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      // The canary leads each text, so it is the smallest value: Delta's file statistics keep it.
      lines.add("{\"id\": " + i + ", \"text\": \"" + CANARY + " my parcel " + i + " arrived late and damaged\"}");
    }
    Files.write(tickets, lines);
  }

  static DpTextJobTest.Run sanitize(Path input, String output, String... extra) {
    return JobFixtures.sanitize(input, output, keyFile, embeddings, extra);
  }

  /** A raw Delta table of the tickets at a new path. */
  static String rawTable(String name) {
    String path = tmp.resolve(name).toString();
    spark.read().json(tickets.toString()).write().format("delta").save(path);
    return path;
  }

  static List<String> texts(String path) {
    return spark.read().format("delta").load(path).orderBy("id").collectAsList().stream()
        .map(r -> r.<String>getAs("text")).collect(Collectors.toList());
  }

  /** Every place under {@code dir} where the canary is readable: Parquet rows and log/text files. */
  static List<String> canaryFound(Path dir) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        String name = f.getFileName().toString();
        if (name.endsWith(".parquet")) {
          Dataset<Row> rows = SharedSpark.get().read().parquet(f.toString());
          if (rows.filter(org.apache.spark.sql.functions.to_json(org.apache.spark.sql.functions.struct("*"))
              .contains(CANARY)).count() > 0) {
            found.add(f.toString());
          }
        } else if (new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(CANARY)) {
          found.add(f.toString());
        }
      }
    }
    return found;
  }

  @Test
  void inPlaceIsRefusedByDefaultAndNamesTheWaysOut() {
    String table = rawTable("refused");
    long versions = spark.sql("DESCRIBE HISTORY delta.`" + table + "`").count();
    DpTextJobTest.Run r = sanitize(Path.of(table), table, "--mode", "overwrite");
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("is the input") && r.err().contains("--in-place purge-history")
        && r.err().contains("another --output"), r.err());
    assertEquals(versions, spark.sql("DESCRIBE HISTORY delta.`" + table + "`").count(), "nothing may be written");
    // Append in place would keep every raw row: refused whatever the policy.
    DpTextJobTest.Run append = sanitize(Path.of(table), table, "--mode", "append", "--in-place", "keep-history");
    assertEquals(2, append.exitCode(), append.err());
    // Parquet has no transaction: refused.
    String parquet = tmp.resolve("raw-parquet").toString();
    spark.read().json(tickets.toString()).write().parquet(parquet);
    DpTextJobTest.Run p = sanitize(Path.of(parquet), parquet, "--output-format", "parquet", "--mode", "overwrite",
        "--in-place", "purge-history");
    assertEquals(2, p.exitCode(), p.err());
    assertTrue(p.err().contains("only a Delta table"), p.err());
  }

  @Test
  void purgeHistoryLeavesNoRawTextInAnyVersionFileOrLogAndARerunDoesNothing() throws Exception {
    String table = rawTable("purged");
    String clean = tmp.resolve("purged-clean").toString();
    assertEquals(0, sanitize(Path.of(table), clean).exitCode());
    DpTextJobTest.Run r = sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("in place           purge-history"), r.out());
    assertEquals(texts(clean), texts(table), "same key and ids: the same rows as a run into a new table");
    assertEquals(20, texts(table).size());
    // No earlier version exists: the new table's own commits only (its rows, then its properties).
    assertEquals(List.of("WRITE", "SET TBLPROPERTIES"), operations(table));
    assertEquals(List.of(), canaryFound(Path.of(table)));
    assertFalse(Files.exists(tmp.resolve(".purged.dptext-staging")));
    assertFalse(Files.exists(tmp.resolve(".purged.dptext-raw")));
    Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(spark.sql(
        "DESCRIBE DETAIL delta.`" + table + "`").select("properties").first().<String, String>getMap(0));
    assertTrue(props.get(InPlace.PROPERTY).startsWith("purge-history"), props.toString());
    // A scheduler's retry after success: nothing is sanitized twice.
    DpTextJobTest.Run again = sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("Nothing to do"), again.out());
    assertEquals(texts(clean), texts(table));
  }

  @Test
  void aPurgeInterruptedAtEachStepIsFinishedOrRestartedByTheRerun() throws Exception {
    String clean = tmp.resolve("swap-clean").toString();
    rawTableAt(clean + "-raw");
    assertEquals(0, sanitize(Path.of(clean + "-raw"), clean).exitCode());

    // Crash while writing the staging table: it is incomplete, the raw table intact.
    String a = rawTable("swap-a");
    Path stagingA = tmp.resolve(".swap-a.dptext-staging");
    Files.createDirectories(stagingA.resolve("_delta_log"));
    Files.writeString(stagingA.resolve("part-00000-partial.snappy.parquet"), "partial");
    DpTextJobTest.Run ra = sanitize(Path.of(a), a, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, ra.exitCode(), ra.err());
    assertEquals(texts(clean), texts(a));
    assertEquals(List.of(), canaryFound(Path.of(a)));

    // Crash after the staging table was checked and marked ready, before the swap: the re-run swaps
    // it in without sanitizing again (here the staging table is made by an ordinary run).
    String b = rawTable("swap-b");
    Path stagingB = tmp.resolve(".swap-b.dptext-staging");
    assertEquals(0, sanitize(Path.of(b), stagingB.toString()).exitCode());
    Files.writeString(stagingB.resolve(InPlaceSwap.READY), "ready\n");
    DpTextJobTest.Run rb = sanitize(Path.of(b), b, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, rb.exitCode(), rb.err());
    assertTrue(rb.out().contains("Completed the interrupted in-place run"), rb.out());
    assertEquals(texts(clean), texts(b));
    assertEquals(List.of(), canaryFound(Path.of(b)));
    assertFalse(Files.exists(stagingB));

    // Crash between the two renames: the path is empty, the raw table and the ready staging beside it.
    String c = rawTable("swap-c");
    Path stagingC = tmp.resolve(".swap-c.dptext-staging");
    assertEquals(0, sanitize(Path.of(c), stagingC.toString()).exitCode());
    Files.writeString(stagingC.resolve(InPlaceSwap.READY), "ready\n");
    Files.move(Path.of(c), tmp.resolve(".swap-c.dptext-raw"));
    DpTextJobTest.Run rc = sanitize(Path.of(c), c, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, rc.exitCode(), rc.err());
    assertEquals(texts(clean), texts(c));
    assertFalse(Files.exists(tmp.resolve(".swap-c.dptext-raw")), "the raw table is deleted");
  }

  static List<String> operations(String table) {
    return spark.sql("DESCRIBE HISTORY delta.`" + table + "`").orderBy("version").collectAsList().stream()
        .map(row -> row.<String>getAs("operation")).collect(Collectors.toList());
  }

  static void rawTableAt(String path) {
    spark.read().json(tickets.toString()).write().format("delta").save(path);
  }

  @Test
  void keepHistoryWritesInPlaceAndSaysLoudlyThatTheRawVersionsRemain() throws Exception {
    String table = rawTable("kept");
    DpTextJobTest.Run r = sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "keep-history");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("WARNING") && r.out().contains("RAW text"), r.out());
    assertFalse(texts(table).stream().anyMatch(t -> t.contains(CANARY)));
    // Exactly what was asked for: the raw version is still readable by time travel.
    assertTrue(spark.read().format("delta").option("versionAsOf", 0).load(table).collectAsList().toString()
        .contains(CANARY));
    // The control for canaryFound: it does see raw text where raw files remain.
    assertFalse(canaryFound(Path.of(table)).isEmpty());
    // Rows and audit in one commit (its userMetadata); the properties mirror the audit in the next.
    assertEquals(List.of("WRITE", "WRITE", "SET TBLPROPERTIES"), operations(table));
    String audit = spark.sql("DESCRIBE HISTORY delta.`" + table + "`").where("version = 1").first().getAs("userMetadata");
    assertTrue(audit.contains("\"dptext.mechanism\":\"santext\"") && audit.contains(InPlace.PROPERTY), audit);
    Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(spark.sql(
        "DESCRIBE DETAIL delta.`" + table + "`").select("properties").first().<String, String>getMap(0));
    assertTrue(props.get(InPlace.PROPERTY).startsWith("keep-history"), props.toString());
    assertEquals("santext", props.get("dptext.mechanism"));
  }

  @Test
  void whatIsAtTheOutputIsCheckedBeforeAnyWork() throws Exception {
    // A Parquet directory: Delta output would start a table beside it and hide its rows.
    String parquet = tmp.resolve("plain-parquet").toString();
    spark.read().json(tickets.toString()).write().parquet(parquet);
    DpTextJobTest.Run r = sanitize(tickets, parquet, "--mode", "append");
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("not a Delta table") && r.err().contains("CONVERT TO DELTA"), r.err());
    assertFalse(Files.exists(Path.of(parquet, "_delta_log")));
    assertEquals(20, spark.read().parquet(parquet).count());
    // A file, for both formats: left as it is.
    Path file = tmp.resolve("a-file.txt");
    Files.writeString(file, "keep me");
    for (String format : List.of("delta", "parquet")) {
      DpTextJobTest.Run f = sanitize(tickets, file.toString(), "--mode", "overwrite", "--output-format", format);
      assertEquals(2, f.exitCode(), f.err());
      assertTrue(f.err().contains("is a file"), f.err());
    }
    assertEquals("keep me", Files.readString(file));
    // A Delta table for Parquet output.
    String delta = rawTable("a-delta-table");
    DpTextJobTest.Run d = sanitize(tickets, delta, "--mode", "overwrite", "--output-format", "parquet");
    assertEquals(2, d.exitCode(), d.err());
    assertTrue(d.err().contains("is a Delta table"), d.err());
    // errorifexists is refused before the model is built (the message comes from the location check).
    DpTextJobTest.Run e = sanitize(tickets, delta);
    assertEquals(2, e.exitCode(), e.err());
    assertTrue(e.err().contains("already exists (a Delta table)"), e.err());
  }

  @Test
  void theLeftoversOfACrashBeforeTheFirstCommitDoNotBlockTheRetry() throws Exception {
    Path out = tmp.resolve("crashed-first");
    Files.createDirectories(out.resolve("_delta_log"));
    Files.writeString(out.resolve("part-00000-orphan.snappy.parquet"), "orphan of an uncommitted write");
    DpTextJobTest.Run r = sanitize(tickets, out.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(20, texts(out.toString()).size());
    Path parquet = tmp.resolve("crashed-parquet");
    Files.createDirectories(parquet.resolve("_temporary/0"));
    DpTextJobTest.Run p = sanitize(tickets, parquet.toString(), "--output-format", "parquet");
    assertEquals(0, p.exitCode(), p.err());
    assertEquals(20, spark.read().parquet(parquet.toString()).count());
  }

  @Test
  void concurrentWritersEndWithOneCommitAndOneClearOutcomeEach() throws Exception {
    Dataset<Row> rows = spark.read().json(tickets.toString());
    // Two runs of the same scheduled transaction: one commit; the other finds it (nothing to do).
    String txnTable = tmp.resolve("race-txn").toString();
    List<Object> outcomes = race(() -> TableWriter.write(rows, new TableWriter.Target(txnTable, "delta",
        WriteMode.APPEND, null, List.of(), "nightly", 7L), TableWriter.Commit.of(Map.of("dptext.version", "test"))));
    assertEquals(20, spark.read().format("delta").load(txnTable).count(), outcomes.toString());
    assertEquals(1, outcomes.stream().filter(o -> o instanceof TableWriter.Result).count(), outcomes.toString());
    assertEquals(1, outcomes.stream().filter(o -> o instanceof TableWriter.AlreadyCommitted).count(), outcomes.toString());
    // Two runs creating one new table: one commit; the other a clear conflict or "already exists".
    String newTable = tmp.resolve("race-new").toString();
    List<Object> created = race(() -> TableWriter.write(rows, new TableWriter.Target(newTable, "delta",
        WriteMode.ERROR_IF_EXISTS, null, List.of(), null, null), TableWriter.Commit.of(Map.of("dptext.version", "t"))));
    assertEquals(20, spark.read().format("delta").load(newTable).count(), created.toString());
    assertEquals(1, created.stream().filter(o -> o instanceof TableWriter.Result).count(), created.toString());
    Object loser = created.stream().filter(o -> !(o instanceof TableWriter.Result)).findFirst().orElseThrow();
    assertTrue(loser instanceof JobException je && (je.exitCode == ExitCode.CONFLICT || je.exitCode == ExitCode.USAGE),
        String.valueOf(loser));
  }

  /** Runs {@code write} on two threads released together; each outcome is a result or the exception. */
  static List<Object> race(java.util.concurrent.Callable<Object> write) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Object>> runs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        runs.add(pool.submit(() -> {
          start.await();
          try {
            return write.call();
          } catch (RuntimeException e) {
            return e;
          }
        }));
      }
      List<Object> outcomes = new ArrayList<>();
      for (Future<Object> f : runs) {
        outcomes.add(f.get());
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aJsonRecordOverTheReadersStringLimitIsReportedWithTheLimitAndTheFix() throws Exception {
    Path big = tmp.resolve("big.jsonl");
    StringBuilder text = new StringBuilder(InputTable.JSON_STRING_LIMIT + 64);
    while (text.length() <= InputTable.JSON_STRING_LIMIT) {
      text.append("late parcel ");
    }
    Files.writeString(big, "{\"id\": 1, \"text\": \"" + text + "\"}\n{\"id\": 2, \"text\": \"fine\"}\n");
    DpTextJobTest.Run r = sanitize(big, tmp.resolve("big-out").toString());
    assertEquals(3, r.exitCode(), r.err());
    assertTrue(r.err().contains("1 malformed record") && r.err().contains("maxStringLen"), r.err());
    assertFalse(r.err().contains("late parcel"), "no raw text in the message");
  }

  @Test
  void parquetRowsFromFootersEqualSparksCountAndFallBackToItForPartitionedOrLargeDirectories() throws Exception {
    String few = tmp.resolve("rows-few").toString();
    spark.range(0, 1000, 1, 5).toDF("id").write().parquet(few);
    assertEquals(1000, OutputFormat.parquetRows(spark, few));
    Files.writeString(Path.of(few, "_dptext_summary.json"), "{}"); // not data: skipped, as Spark does
    assertEquals(1000, OutputFormat.parquetRows(spark, few));

    String partitioned = tmp.resolve("rows-partitioned").toString();
    spark.range(0, 100).selectExpr("id", "id % 3 AS part").write().partitionBy("part").parquet(partitioned);
    assertEquals(100, OutputFormat.parquetRows(spark, partitioned)); // Spark's count

    String many = tmp.resolve("rows-many").toString();
    spark.range(0, 500, 1, OutputFormat.FOOTER_COUNT_LIMIT + 3).toDF("id").write().parquet(many);
    assertEquals(500, OutputFormat.parquetRows(spark, many)); // Spark's count
  }
}
