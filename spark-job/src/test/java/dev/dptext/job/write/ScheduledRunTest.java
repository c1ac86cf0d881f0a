package dev.dptext.job.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scheduled ETL on Delta: a repeated run writes nothing new (txnAppId/txnVersion), a lower version
 * is refused rather than silently skipped, a backfill replaces exactly one day (replaceWhere), and
 * MERGE upserts by id.
 */
@Tag("integration")
class ScheduledRunTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;
  static Path tickets;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
    tickets = tmp.resolve("tickets.jsonl");
    Files.write(tickets, ticketLines(""));
  }

  /** 30 tickets over three days; {@code suffix} lets a test change every text. */
  static List<String> ticketLines(String suffix) {
    String[] texts = {"the delivery was late and the box was damaged", "please refund my order today",
        "great service from the support team", "my phone keeps crashing after the update",
        "where is my package it has been two weeks"};
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      lines.add("{\"id\": " + i + ", \"day\": \"2026-11-" + (19 + i % 3) + "\", \"text\": \"" + texts[i % 5] + suffix + "\"}");
    }
    return lines;
  }

  static Run sanitize(Path input, String output, String... extra) {
    return JobFixtures.sanitize(input, output, keyFile, embeddings, extra);
  }

  static long version(String path) {
    return spark.sql("DESCRIBE HISTORY delta.`" + path + "` LIMIT 1").first().getLong(0);
  }

  static List<String> rows(String path, String where) {
    return spark.read().format("delta").load(path).where(where).orderBy("id").collectAsList().stream()
        .map(Row::toString).collect(Collectors.toList());
  }

  @Test
  void repeatedRunWithTheSameTransactionWritesNothingAndALowerVersionIsRefused() {
    String out = tmp.resolve("txn").toString();
    Run first = sanitize(tickets, out, "--mode", "append", "--txn-app-id", "tickets-nightly",
        "--txn-version", "20261121");
    assertEquals(0, first.exitCode(), first.err());
    long v = version(out);
    List<String> before = rows(out, "true");
    assertEquals(30, before.size());

    Run again = sanitize(tickets, out, "--mode", "append", "--txn-app-id", "tickets-nightly",
        "--txn-version", "20261121");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("Nothing to do"), again.out());
    assertEquals(v, version(out), "a repeated run must not add a table version");
    assertEquals(before, rows(out, "true"));

    Run older = sanitize(tickets, out, "--mode", "append", "--txn-app-id", "tickets-nightly",
        "--txn-version", "20261120");
    assertEquals(2, older.exitCode(), older.err());
    assertTrue(older.err().contains("replace-where") && older.err().contains("20261121"), older.err());
    assertEquals(v, version(out));

    Run next = sanitize(tickets, out, "--mode", "append", "--txn-app-id", "tickets-nightly",
        "--txn-version", "20261122", "--where", "day = '2026-11-21'");
    assertEquals(0, next.exitCode(), next.err());
    assertEquals(40, rows(out, "true").size(), "the next night's run appends its 10 rows");
  }

  @Test
  void backfillReplacesExactlyOneDayAndMergeUpsertsById() throws Exception {
    String out = tmp.resolve("daily").toString();
    assertEquals(0, sanitize(tickets, out).exitCode());
    List<String> day19 = rows(out, "day = '2026-11-19'");
    List<String> day20 = rows(out, "day = '2026-11-20'");

    // The 20th's raw texts were corrected upstream: backfill that day only.
    Path corrected = tmp.resolve("corrected.jsonl");
    Files.write(corrected, ticketLines(" again"));
    Run backfill = sanitize(corrected, out, "--mode", "replace-where", "--where", "day = '2026-11-20'");
    assertEquals(0, backfill.exitCode(), backfill.err());
    assertTrue(backfill.out().contains("rows in / out      10 / 10"), backfill.out());
    assertEquals(day19, rows(out, "day = '2026-11-19'"), "other days untouched");
    List<String> new20 = rows(out, "day = '2026-11-20'");
    assertEquals(10, new20.size());
    assertNotEquals(day20, new20);
    assertEquals(30, rows(out, "true").size());
    // The same backfill again: same content.
    assertEquals(0, sanitize(corrected, out, "--mode", "replace-where", "--where", "day = '2026-11-20'").exitCode());
    assertEquals(new20, rows(out, "day = '2026-11-20'"));

    // MERGE by id: re-running changes nothing; a new id is inserted; every row is updated in place.
    List<String> all = rows(out, "true");
    Run merge = sanitize(corrected, out, "--mode", "merge");
    assertEquals(0, merge.exitCode(), merge.err());
    List<String> merged = rows(out, "true");
    assertEquals(30, merged.size());
    assertEquals(new20, rows(out, "day = '2026-11-20'"), "same key, same id: the same sanitized text");
    assertNotEquals(all, merged, "the 19th and 21st now hold the corrected texts' sanitization");
    Files.write(corrected, List.of("{\"id\": 99, \"day\": \"2026-11-22\", \"text\": \"a brand new ticket\"}"),
        java.nio.file.StandardOpenOption.APPEND);
    Run upsert = sanitize(corrected, out, "--mode", "merge");
    assertEquals(0, upsert.exitCode(), upsert.err());
    assertTrue(upsert.out().contains("rows in / out      31 / 31"), upsert.out());
    assertEquals(31, rows(out, "true").size());
    assertEquals(merged, rows(out, "id < 99"));

    Path duplicated = tmp.resolve("duplicated.jsonl");
    Files.write(duplicated, List.of("{\"id\": 1, \"day\": \"2026-11-19\", \"text\": \"one\"}",
        "{\"id\": 1, \"day\": \"2026-11-19\", \"text\": \"two\"}"));
    Run dup = sanitize(duplicated, out, "--mode", "merge");
    assertEquals(3, dup.exitCode(), dup.err());
    assertTrue(dup.err().contains("--merge-key id is not unique"), dup.err());
  }

  @Test
  void writeModeMisuseIsAUsageError() {
    String out = tmp.resolve("misuse").toString();
    Run noWhere = sanitize(tickets, out, "--mode", "replace-where");
    assertEquals(2, noWhere.exitCode());
    assertTrue(noWhere.err().contains("--where"), noWhere.err());
    Run parquetMerge = sanitize(tickets, out, "--mode", "merge", "--output-format", "parquet");
    assertEquals(2, parquetMerge.exitCode());
    assertTrue(parquetMerge.err().contains("needs --output-format delta"), parquetMerge.err());
    Run halfTxn = sanitize(tickets, out, "--mode", "append", "--txn-app-id", "x");
    assertEquals(2, halfTxn.exitCode());
    assertTrue(halfTxn.err().contains("go together"), halfTxn.err());
    Run badWhere = sanitize(tickets, out, "--where", "dayz = 1");
    assertEquals(2, badWhere.exitCode(), badWhere.err());
    assertTrue(badWhere.err().contains("dayz") && badWhere.err().contains("(day, id, text)"), badWhere.err());
  }
}
