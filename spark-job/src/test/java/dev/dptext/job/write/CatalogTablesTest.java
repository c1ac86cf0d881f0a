package dev.dptext.job.write;

import static dev.dptext.job.testing.JobFixtures.CANARY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
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
 * Tables addressed by name, as Databricks users address them ({@code --input schema.tickets --output
 * schema.tickets_dp}), through the CLI: the same modes, checks, in-place policies and audit as paths.
 */
@Tag("integration")
class CatalogTablesTest {
  static final String SCHEMA = "dptext_names";
  @TempDir static Path tmp;
  static CanaryTickets fx;
  static SparkSession spark;

  @BeforeAll
  static void setUp() throws Exception {
    fx = CanaryTickets.in(tmp);
    spark = SharedSpark.get();
    spark.sql("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
  }

  /** A raw managed Delta table of the 20 tickets (each text leads with the canary). */
  static String rawTable(String name) {
    String table = SCHEMA + "." + name;
    spark.read().json(fx.tickets().toString()).write().format("delta").saveAsTable(table);
    return table;
  }

  static Run sanitize(String input, String output, String... extra) {
    return fx.sanitize(input, output, extra);
  }

  static List<String> texts(String table) {
    return spark.table(table).orderBy("id").collectAsList().stream().map(r -> r.<String>getAs("text"))
        .collect(Collectors.toList());
  }

  static long canaries(String table) {
    return spark.table(table).where("text LIKE '%" + CANARY + "%'").count();
  }

  @Test
  void aTableByNameIsSanitizedIntoATableByNameWithItsAuditAndTheSameRowsAsByPath() throws Exception {
    String raw = rawTable("tickets");
    String out = SCHEMA + ".tickets_dp";
    Run r = sanitize(raw, out);
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(20, spark.table(out).count());
    assertEquals(0, canaries(out));
    // The same key and ids as a run between paths: the same rows.
    String byPath = tmp.resolve("by-path").toString();
    assertEquals(0, fx.sanitize(fx.tickets(), byPath).exitCode());
    assertEquals(fx.texts(byPath), texts(out));
    Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(spark.sql("DESCRIBE DETAIL " + out)
        .first().<String, String>getMap(spark.sql("DESCRIBE DETAIL " + out).first().fieldIndex("properties")));
    assertEquals("santext", props.get("dptext.mechanism"));
    String audit = spark.sql("DESCRIBE HISTORY " + out).where("operation = 'CREATE TABLE AS SELECT' OR operation = "
        + "'WRITE' OR operation = 'CREATE OR REPLACE TABLE AS SELECT'").first().getAs("userMetadata");
    assertTrue(audit != null && audit.contains("\"dptext.guarantee\""), String.valueOf(audit));
    assertTrue(r.out().contains(out), r.out());

    // errorifexists: refused before any work.
    Run again = sanitize(raw, out);
    assertEquals(2, again.exitCode(), again.err());
    assertTrue(again.err().contains("already exists"), again.err());

    // A scheduled append, repeated: written once.
    String nightly = SCHEMA + ".tickets_nightly";
    for (int i = 0; i < 2; i++) {
      Run n = sanitize(raw, nightly, "--mode", "append", "--txn-app-id", "nightly", "--txn-version", "7");
      assertEquals(0, n.exitCode(), n.err());
      assertTrue(i == 0 || n.out().contains("Nothing to do"), n.out());
    }
    assertEquals(20, spark.table(nightly).count());

    // Merge and replace-where by name.
    Run m = sanitize(raw, out, "--mode", "merge");
    assertEquals(0, m.exitCode(), m.err());
    assertEquals(20, spark.table(out).count());
    Run w = sanitize(raw, out, "--mode", "replace-where", "--where", "id < 5");
    assertEquals(0, w.exitCode(), w.err());
    assertEquals(20, spark.table(out).count());
    assertTrue(w.out().contains("rows in / out      5 / 5"), w.out());
  }

  @Test
  void inPlaceByNameFollowsThePoliciesAndPurgeSaysWhatToDoInstead() throws Exception {
    String raw = rawTable("inplace");
    Run refused = sanitize(raw, raw, "--mode", "overwrite");
    assertEquals(2, refused.exitCode(), refused.err());
    assertTrue(refused.err().contains("is the input"), refused.err());
    // Another spelling of the same table: its location.
    String location = String.valueOf(spark.sql("DESCRIBE DETAIL " + raw).first().<Object>getAs("location"));
    Run spelled = sanitize(location, raw, "--mode", "overwrite");
    assertEquals(2, spelled.exitCode(), spelled.err());
    assertTrue(spelled.err().contains("is the input"), spelled.err());

    Run purge = sanitize(raw, raw, "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(2, purge.exitCode(), purge.err());
    assertTrue(purge.err().contains("DROP TABLE") && purge.err().contains("UNDROP"), purge.err());
    assertEquals(20, canaries(raw), "nothing changed");

    Run kept = sanitize(raw, raw, "--mode", "overwrite", "--in-place", "keep-history");
    assertEquals(0, kept.exitCode(), kept.err());
    assertTrue(kept.out().contains("RAW text"), kept.out());
    assertEquals(0, canaries(raw));
    assertEquals(20, spark.sql("SELECT * FROM " + raw + " VERSION AS OF 0").where("text LIKE '%"
        + CANARY + "%'").count(), "keep-history keeps the raw version, as it says");
  }

  @Test
  void aCatalogTableOfAnotherFormatIsRefusedForDeltaOutput() {
    String parquet = SCHEMA + ".tickets_parquet";
    spark.read().json(fx.tickets().toString()).write().format("parquet").saveAsTable(parquet);
    Run r = sanitize(parquet, parquet, "--mode", "append", "--in-place", "keep-history");
    assertEquals(2, r.exitCode(), r.err());
    Run o = sanitize(fx.tickets().toString(), parquet, "--mode", "append");
    assertEquals(2, o.exitCode(), o.err());
    assertTrue(o.err().contains("catalog table in format parquet"), o.err());
    assertFalse(o.err().contains(CANARY));
  }
}
