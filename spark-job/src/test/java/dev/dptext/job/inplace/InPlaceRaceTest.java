package dev.dptext.job.inplace;

import static dev.dptext.job.testing.JobFixtures.CANARY;
import static dev.dptext.job.testing.JobFixtures.canaryFound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --in-place purge-history} against another writer of the same table, at each step of the swap
 * ({@link InPlaceSwap#afterStep}) and started together with it: no writer's rows are lost, the table is
 * readable, and a purge that reports success leaves no raw text of the original table anywhere in it.
 */
@Tag("integration")
class InPlaceRaceTest {
  @TempDir static Path tmp;
  static CanaryTickets fx;
  static SparkSession spark;

  @BeforeAll
  static void setUp() throws Exception {
    fx = CanaryTickets.in(tmp);
    spark = SharedSpark.get();
  }

  @AfterEach
  void noHook() {
    InPlaceSwap.afterStep = step -> { };
  }

  /** Rows another writer appends: no canary in them, so raw text found is the original table's. */
  static Dataset<Row> appended(int rows) {
    return spark.range(1000, 1000 + rows).selectExpr("id", "concat('appended row ', id) AS text");
  }

  static void append(String table, int rows) {
    appended(rows).write().format("delta").mode(SaveMode.Append).save(table);
  }

  static Run purge(String table) {
    return fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
  }

  static long count(String table) {
    return spark.read().format("delta").load(table).count();
  }

  static long canaryRows(String table) {
    return spark.read().format("delta").load(table).where("text LIKE '%" + CANARY + "%'").count();
  }

  @Test
  void aCommitToTheRawTableJustBeforeItIsRenamedPutsItBackWithThatCommit() {
    String table = fx.rawTable("race-marked");
    InPlaceSwap.afterStep = step -> {
      if (step.equals("marked")) {
        append(table, 1000);
      }
    };
    Run r = purge(table);
    assertEquals(5, r.exitCode(), r.err());
    ErrorAssertions.assertErrorText(r.err(), "IN_PLACE_PURGE_CONFLICT");
    assertEquals(1020, count(table), "the raw rows and the other writer's");
    assertEquals(20, canaryRows(table));
    assertFalse(Files.exists(tmp.resolve(".race-marked.dptext-staging")));
    assertFalse(Files.exists(tmp.resolve(".race-marked.dptext-raw")));
  }

  @Test
  void aWriteToTheFreedPathIsReturnedOrMovedAsideAndTheRawTablePutBack() throws Exception {
    String table = fx.rawTable("race-created");
    InPlaceSwap.afterStep = step -> {
      if (step.equals("raw-renamed")) {
        // The path is free. A writer in another JVM creates a new table there; this JVM's Delta still
        // knows the raw table by this path and commits its next version there: both are possible.
        append(table, 1000);
      }
    };
    Run r = purge(table);
    assertEquals(5, r.exitCode(), r.err());
    assertEquals(20, canaryRows(table), "the raw table is back");
    Path aside;
    try (Stream<Path> s = Files.list(tmp)) {
      aside = s.filter(p -> p.getFileName().toString().startsWith(".race-created.dptext-foreign-")).findFirst()
          .orElse(null);
    }
    long elsewhere = aside == null ? 0 : count(aside.toString());
    assertEquals(1020, count(table) + elsewhere, "the other writer's rows: in the raw table or the one named: "
        + r.err());
    assertTrue(aside == null ? r.err().contains("returned to it") : r.err().contains(aside.getFileName().toString()),
        r.err());
    assertFalse(Files.exists(tmp.resolve(".race-created.dptext-staging")));
  }

  @Test
  void anAppendToTheNewTableRightAfterTheSwapStaysAndTheRawTextIsGone() throws Exception {
    String table = fx.rawTable("race-after");
    InPlaceSwap.afterStep = step -> {
      if (step.equals("staging-renamed")) {
        append(table, 1000);
      }
    };
    Run r = purge(table);
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(1020, count(table));
    assertEquals(List.of(), canaryFound(Path.of(table)));
    assertFalse(Files.exists(tmp.resolve(".race-after.dptext-raw")));
  }

  /**
   * A commit file that cannot be Delta's (the fence makes a writer prepared from the raw table fail),
   * written by hand: the new table is withdrawn, kept aside with that commit, and the raw table put back
   * with its log fenced past the withdrawn one's.
   */
  @Test
  void aCommitMadeAgainstTheRawTableLandingInTheNewOneIsMovedAsideAndTheRawTablePutBack() throws Exception {
    String table = fx.rawTable("race-stale");
    AtomicReference<Path> log = new AtomicReference<>();
    InPlaceSwap.afterStep = step -> {
      if (step.equals("staging-renamed")) {
        // A writer that read the raw table before the swap commits its next version (far ahead of the
        // new table's) into the directory now holding the new table: the log would not be contiguous.
        try {
          Path commit = Path.of(table, "_delta_log", String.format("%020d.json", 7));
          Files.writeString(commit, "{\"commitInfo\":{}}\n");
          Files.writeString(Path.of(table, "part-00000-stale-writer.snappy.parquet"), "data of another writer");
          log.set(commit);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
    Run r = purge(table);
    assertEquals(5, r.exitCode(), r.err());
    assertEquals(20, count(table), "the raw table is back and readable");
    assertEquals(20, canaryRows(table));
    assertFalse(Files.readString(log.get()).equals("{\"commitInfo\":{}}\n"), "the raw table's own version 7 now");
    Path withdrawn;
    try (Stream<Path> s = Files.list(tmp)) {
      withdrawn = s.filter(p -> p.getFileName().toString().startsWith(".race-stale.dptext-withdrawn-")).findFirst()
          .orElseThrow();
    }
    assertTrue(r.err().contains(withdrawn.getFileName().toString()), r.err());
    assertTrue(Files.exists(withdrawn.resolve("_delta_log/00000000000000000007.json")));
  }

  @Test
  void aPurgeStartedTogetherWithALargeAppendLosesNoRowAndClaimsNothingFalse() throws Exception {
    String table = fx.rawTable("race-together");
    CompletableFuture<Throwable> appender = CompletableFuture.supplyAsync(() -> {
      try {
        append(table, 20_000);
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    Run r = purge(table);
    Throwable appendFailure = appender.join();
    long expected = 20 + (appendFailure == null ? 20_000 : 0);
    String outcome = "append " + (appendFailure == null ? "succeeded" : "failed: " + appendFailure) + "; purge exit "
        + r.exitCode() + " " + r.err();
    if (r.exitCode() == 0) {
      // The appended rows are sanitized (committed before the purge read the table) or, appended to
      // the new table after the swap, as written; the original raw rows are nowhere.
      assertEquals(expected, count(table), outcome);
      assertEquals(List.of(), canaryFound(Path.of(table)), outcome);
    } else {
      assertEquals(5, r.exitCode(), outcome);
      assertEquals(expected, count(table), "the raw table is intact, with the other writer's rows: " + outcome);
      assertEquals(20, canaryRows(table), outcome);
    }
  }
}
