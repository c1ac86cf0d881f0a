package dev.dptext.job.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeltaTables#transactions}, the one history read of a stream's start, against the reads it
 * replaces as the oracle: {@link DeltaTables#latestVersion} and {@link DeltaTables#transactionVersion}
 * per app id, over a history that mixes dptext's commits of several apps, another writer's free-form
 * and JSON userMetadata, and commits without any.
 */
class DeltaTablesTest {
  static SparkSession spark;

  @TempDir
  static Path tmp;

  @BeforeAll
  static void start() {
    spark = SharedSpark.get();
  }

  @Test
  void oneHistoryReadAnswersWhatThePerAppReadsAnswer() {
    String path = tmp.resolve("mixed").toString();
    Dataset<Row> rows = spark.range(2).toDF("id");
    // (userMetadata, txnAppId, txnVersion): dptext's commits carry the transaction in their userMetadata.
    List<String[]> commits = List.of(
        new String[] {null, null, null},
        new String[] {dptext("dptext-stream-a", 0), "dptext-stream-a", "0"},
        new String[] {"a note from another writer", null, null},
        new String[] {dptext("dptext-stream-a", 1), "dptext-stream-a", "1"},
        new String[] {dptext("nightly", 20261128), "nightly", "20261128"},
        new String[] {"{\"dptext.txnAppId\": \"not-dptext\"}", null, null},
        new String[] {dptext("dptext-stream-b", 0), "dptext-stream-b", "0"},
        new String[] {dptext("dptext-stream-a", 2), "dptext-stream-a", "2"});
    for (String[] c : commits) {
      var w = rows.write().format("delta").mode("append");
      if (c[0] != null) {
        w = w.option("userMetadata", c[0]);
      }
      if (c[1] != null) {
        w = w.option("txnAppId", c[1]).option("txnVersion", c[2]);
      }
      w.save(path);
    }
    spark.sql("ALTER TABLE " + DeltaTables.ident(spark, path) + " SET TBLPROPERTIES ('x' = 'y')");

    DeltaTables.Transactions t = DeltaTables.transactions(spark, path);
    assertEquals(DeltaTables.latestVersion(spark, path), t.latestVersion());
    assertEquals(commits.size(), t.latestVersion(), "the property commit is the latest");
    for (String app : List.of("dptext-stream-a", "dptext-stream-b", "nightly", "not-dptext", "absent")) {
      assertEquals(DeltaTables.transactionVersion(spark, path, app), t.of(app), app);
    }
    assertEquals(OptionalLong.of(2), t.of("dptext-stream-a"));
    assertEquals(OptionalLong.empty(), t.of("not-dptext"), "a txnAppId without a txnVersion is no transaction");
    assertEquals(Set.of("dptext-stream-a", "dptext-stream-b"), t.apps("dptext-stream-"));
    assertEquals(Map.of(), DeltaTables.Transactions.NONE.highest());
  }

  private static String dptext(String app, long version) {
    return OutputFormat.toJson(Map.of(DeltaTables.RUN, java.util.UUID.randomUUID().toString(),
        DeltaTables.TXN_APP_ID, app, DeltaTables.TXN_VERSION, Long.toString(version)));
  }
}
