package dev.dptext.job.inplace;

import static dev.dptext.job.testing.JobFixtures.CANARY;
import static dev.dptext.job.testing.JobFixtures.canaryFound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output that is the input, through the CLI: refused by default and naming the ways out; purged
 * (no raw text left in any version, file or log; a crash at each step finished or restarted by the
 * re-run) or kept on request, loudly.
 */
@Tag("integration")
class InPlaceTest {
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
  void inPlaceIsRefusedByDefaultAndNamesTheWaysOut() {
    String table = fx.rawTable("refused");
    long versions = spark.sql("DESCRIBE HISTORY delta.`" + table + "`").count();
    Run r = fx.sanitize(Path.of(table), table, "--mode", "overwrite");
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("is the input") && r.err().contains("--in-place purge-history")
        && r.err().contains("another --output"), r.err());
    assertEquals(versions, spark.sql("DESCRIBE HISTORY delta.`" + table + "`").count(), "nothing may be written");
    // Append in place would keep every raw row: refused whatever the policy.
    Run append = fx.sanitize(Path.of(table), table, "--mode", "append", "--in-place", "keep-history");
    assertEquals(2, append.exitCode(), append.err());
    // Parquet has no transaction: refused.
    String parquet = tmp.resolve("raw-parquet").toString();
    spark.read().json(tickets.toString()).write().parquet(parquet);
    Run p = fx.sanitize(Path.of(parquet), parquet, "--output-format", "parquet", "--mode", "overwrite",
        "--in-place", "purge-history");
    assertEquals(2, p.exitCode(), p.err());
    assertTrue(p.err().contains("only a Delta table"), p.err());
  }

  @Test
  void purgeHistoryLeavesNoRawTextInAnyVersionFileOrLogAndARerunDoesNothing() throws Exception {
    String table = fx.rawTable("purged");
    String clean = tmp.resolve("purged-clean").toString();
    assertEquals(0, fx.sanitize(Path.of(table), clean).exitCode());
    Run r = fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("in place           purge-history"), r.out());
    assertEquals(fx.texts(clean), fx.texts(table), "same key and ids: the same rows as a run into a new table");
    assertEquals(20, fx.texts(table).size());
    // No earlier version exists: the new table's own commits only (its rows, its properties, then the
    // fence: property commits up to the raw table's last version, the swap's mark (1), plus one).
    assertEquals(List.of("WRITE", "SET TBLPROPERTIES", "SET TBLPROPERTIES"), operations(table));
    assertEquals(List.of(), canaryFound(Path.of(table)));
    assertFalse(Files.exists(tmp.resolve(".purged.dptext-staging")));
    assertFalse(Files.exists(tmp.resolve(".purged.dptext-raw")));
    Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(spark.sql(
        "DESCRIBE DETAIL delta.`" + table + "`").select("properties").first().<String, String>getMap(0));
    assertTrue(props.get(InPlace.PROPERTY).startsWith("purge-history"), props.toString());
    // A scheduler's retry after success: nothing is sanitized twice.
    Run again = fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("Nothing to do"), again.out());
    assertEquals(fx.texts(clean), fx.texts(table));
  }

  @Test
  void aPurgeInterruptedAtEachStepIsFinishedOrRestartedByTheRerun() throws Exception {
    String clean = tmp.resolve("swap-clean").toString();
    fx.rawTableAt(clean + "-raw");
    assertEquals(0, fx.sanitize(Path.of(clean + "-raw"), clean).exitCode());

    // Crash while writing the staging table: it is incomplete, the raw table intact.
    String a = fx.rawTable("swap-a");
    Path stagingA = tmp.resolve(".swap-a.dptext-staging");
    Files.createDirectories(stagingA.resolve("_delta_log"));
    Files.writeString(stagingA.resolve("part-00000-partial.snappy.parquet"), "partial");
    Run ra = fx.sanitize(Path.of(a), a, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, ra.exitCode(), ra.err());
    assertEquals(fx.texts(clean), fx.texts(a));
    assertEquals(List.of(), canaryFound(Path.of(a)));

    // Crash after the staging table was checked and marked ready, before the swap: the re-run swaps
    // it in without sanitizing again (here the staging table is made by an ordinary run).
    String b = fx.rawTable("swap-b");
    Path stagingB = tmp.resolve(".swap-b.dptext-staging");
    assertEquals(0, fx.sanitize(Path.of(b), stagingB.toString()).exitCode());
    Files.writeString(stagingB.resolve(InPlaceSwap.READY), "ready\n");
    Run rb = fx.sanitize(Path.of(b), b, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, rb.exitCode(), rb.err());
    assertTrue(rb.out().contains("Completed the interrupted in-place run"), rb.out());
    assertEquals(fx.texts(clean), fx.texts(b));
    assertEquals(List.of(), canaryFound(Path.of(b)));
    assertFalse(Files.exists(stagingB));

    // Crash between the two renames: the path is empty, the raw table and the ready staging beside it.
    String c = fx.rawTable("swap-c");
    Path stagingC = tmp.resolve(".swap-c.dptext-staging");
    assertEquals(0, fx.sanitize(Path.of(c), stagingC.toString()).exitCode());
    Files.writeString(stagingC.resolve(InPlaceSwap.READY), "ready\n");
    Files.move(Path.of(c), tmp.resolve(".swap-c.dptext-raw"));
    Run rc = fx.sanitize(Path.of(c), c, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, rc.exitCode(), rc.err());
    assertEquals(fx.texts(clean), fx.texts(c));
    assertFalse(Files.exists(tmp.resolve(".swap-c.dptext-raw")), "the raw table is deleted");
  }

  static List<String> operations(String table) {
    return spark.sql("DESCRIBE HISTORY delta.`" + table + "`").orderBy("version").collectAsList().stream()
        .map(row -> row.<String>getAs("operation")).collect(Collectors.toList());
  }

  @Test
  void keepHistoryWritesInPlaceAndSaysLoudlyThatTheRawVersionsRemain() throws Exception {
    String table = fx.rawTable("kept");
    Run r = fx.sanitize(Path.of(table), table, "--mode", "overwrite", "--in-place", "keep-history");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("WARNING") && r.out().contains("RAW text"), r.out());
    assertFalse(fx.texts(table).stream().anyMatch(t -> t.contains(CANARY)));
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
}
