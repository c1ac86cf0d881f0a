package dev.dptext.job.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write path as a scheduler meets it, through the CLI: what is found at the output checked before
 * any work, the leftovers of a crashed first write, concurrent writers, and a JSON record over the
 * reader's string limit. An output that is the input: {@link dev.dptext.job.inplace}'s tests.
 */
class WritePathTest {
  @TempDir static Path tmp;
  static CanaryTickets fx;
  static SparkSession spark;
  static Path tickets;

  @BeforeAll
  static void setUp() throws Exception {
    fx = CanaryTickets.in(tmp);
    spark = SharedSpark.get();
    tickets = fx.tickets();
  }

  @Test
  void whatIsAtTheOutputIsCheckedBeforeAnyWork() throws Exception {
    // A Parquet directory: Delta output would start a table beside it and hide its rows.
    String parquet = tmp.resolve("plain-parquet").toString();
    spark.read().json(tickets.toString()).write().parquet(parquet);
    Run r = fx.sanitize(tickets, parquet, "--mode", "append");
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("not a Delta table") && r.err().contains("CONVERT TO DELTA"), r.err());
    assertFalse(Files.exists(Path.of(parquet, "_delta_log")));
    assertEquals(20, spark.read().parquet(parquet).count());
    // A file, for both formats: left as it is.
    Path file = tmp.resolve("a-file.txt");
    Files.writeString(file, "keep me");
    for (String format : List.of("delta", "parquet")) {
      Run f = fx.sanitize(tickets, file.toString(), "--mode", "overwrite", "--output-format", format);
      assertEquals(2, f.exitCode(), f.err());
      assertTrue(f.err().contains("is a file"), f.err());
    }
    assertEquals("keep me", Files.readString(file));
    // A Delta table for Parquet output.
    String delta = fx.rawTable("a-delta-table");
    Run d = fx.sanitize(tickets, delta, "--mode", "overwrite", "--output-format", "parquet");
    assertEquals(2, d.exitCode(), d.err());
    assertTrue(d.err().contains("is a Delta table"), d.err());
    // errorifexists is refused before the model is built (the message comes from the location check).
    Run e = fx.sanitize(tickets, delta);
    assertEquals(2, e.exitCode(), e.err());
    assertTrue(e.err().contains("already exists (a Delta table)"), e.err());
  }

  @Test
  void theLeftoversOfACrashBeforeTheFirstCommitDoNotBlockTheRetry() throws Exception {
    Path out = tmp.resolve("crashed-first");
    Files.createDirectories(out.resolve("_delta_log"));
    Files.writeString(out.resolve("part-00000-orphan.snappy.parquet"), "orphan of an uncommitted write");
    Run r = fx.sanitize(tickets, out.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(20, fx.texts(out.toString()).size());
    Path parquet = tmp.resolve("crashed-parquet");
    Files.createDirectories(parquet.resolve("_temporary/0"));
    Run p = fx.sanitize(tickets, parquet.toString(), "--output-format", "parquet");
    assertEquals(0, p.exitCode(), p.err());
    assertEquals(20, spark.read().parquet(parquet.toString()).count());
  }

  @Test
  void concurrentWritersEndWithOneCommitAndOneClearOutcomeEach() throws Exception {
    Dataset<Row> rows = spark.read().json(tickets.toString());
    // Two runs of the same scheduled transaction: one commit; the other finds it (nothing to do).
    String txnTable = tmp.resolve("race-txn").toString();
    List<Object> outcomes = race(() -> TableWriter.write(rows, TableWriter.Target.delta(txnTable,
        WriteMode.APPEND).withTransaction("nightly", 7L), TableWriter.Commit.of(Map.of("dptext.version", "test"))));
    assertEquals(20, spark.read().format("delta").load(txnTable).count(), outcomes.toString());
    assertEquals(1, outcomes.stream().filter(o -> o instanceof TableWriter.Result).count(), outcomes.toString());
    assertEquals(1, outcomes.stream().filter(o -> o instanceof TableWriter.AlreadyCommitted).count(), outcomes.toString());
    // Two runs creating one new table: one commit; the other a clear conflict or "already exists".
    String newTable = tmp.resolve("race-new").toString();
    List<Object> created = race(() -> TableWriter.write(rows, TableWriter.Target.delta(newTable,
        WriteMode.ERROR_IF_EXISTS), TableWriter.Commit.of(Map.of("dptext.version", "t"))));
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
    Run r = fx.sanitize(big, tmp.resolve("big-out").toString());
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
