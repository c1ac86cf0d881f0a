package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import dev.dptext.spark.ml.DpTextSanitizer;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library's own surfaces called from a JVM that is a Spark Connect client: the DataFrame API
 * ({@code DpText.sanitizer()…transform}), the ML stage and the SQL function with its options map give
 * the classic session's rows, the model and key staying on the server; what only this program could hold
 * (the key itself, a model in memory) is refused with the way out.
 */
@Tag("integration")
class ConnectDataFrameApiTest {
  static final String KEY = "00ffeeddccbbaa99887766554433221100ffeeddccbbaa998877665544332211";

  @TempDir static Path tmp;
  static SparkSession classic;
  static SparkSession connect;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    classic = SharedSpark.get();
    DpText.register(classic);
    connect = ConnectServer.session();
    keyFile = JobFixtures.keyFile(tmp, KEY);
    embeddings = JobFixtures.gloveFile(tmp, 1000);
  }

  static Dataset<Row> tickets(SparkSession spark) {
    return spark.read().json(Path.of(JobFixtures.SAMPLE).toAbsolutePath().toString());
  }

  static DpText.Builder santextPlus() {
    return DpText.sanitizer().model(embeddings.toString()).set(Settings.NEIGHBOURS, 32)
        .set(Settings.KEY_FILE, keyFile.toString()).option("mechanism", "santext+").option("epsilon", "2")
        .idColumn("id");
  }

  /** Every row as its string form, ordered by id. */
  static List<String> rows(Dataset<Row> df) {
    return df.orderBy("id").collectAsList().stream().map(Row::toString).collect(Collectors.toList());
  }

  @Test
  void theDataFrameApiGivesTheClassicRowsAndIgnoresTheSessionsLaterSettings() {
    List<String> expected = rows(santextPlus().transform(tickets(classic), "text", "text_dp"));
    assertEquals(16, expected.size());
    Dataset<Row> lazy = santextPlus().transform(tickets(connect), "text", "text_dp");
    // The query carries its settings: the session's, set after it was built, change nothing.
    connect.conf().set("spark.dptext.mechanism", "vickrey");
    connect.conf().set("spark.dptext.epsilon", "9");
    try {
      assertEquals(expected, rows(lazy));
    } finally {
      connect.conf().unset("spark.dptext.mechanism");
      connect.conf().unset("spark.dptext.epsilon");
    }
    assertFalse(expected.stream().anyMatch(r -> r.contains(KEY)));
  }

  @Test
  void theMlStageGivesTheClassicRows() {
    DpTextSanitizer stage = new DpTextSanitizer().setInputCol("text").setOutputCol("text_dp").setIdCol("id")
        .setMechanism("laplace").setEpsilon(10).setModel(embeddings.toString()).setNeighbours(32)
        .setSetting("keyFile", keyFile.toString());
    List<String> expected = rows(stage.transform(tickets(classic)));
    assertEquals(expected, rows(stage.transform(tickets(connect))));
  }

  @Test
  void theSqlFunctionTakesItsSettingsAsAnOptionsMap() {
    String path = Path.of(JobFixtures.SAMPLE).toAbsolutePath().toString();
    String query = "SELECT id, dp_sanitize(text, id, map('mechanism', 'santext+', 'epsilon', '2', 'model', '"
        + embeddings + "', 'neighbours', '32', 'keyFile', '" + keyFile + "')) AS text_dp FROM json.`" + path + "`";
    List<String> expected = rows(santextPlus().transform(tickets(classic), "text", "text_dp").select("id", "text_dp"));
    assertEquals(expected, rows(classic.sql(query)), "classic SQL");
    assertEquals(expected, rows(connect.sql(query)), "SQL through Spark Connect");
    // A NULL value is the setting's default: the session's epsilon does not apply.
    connect.conf().set("spark.dptext.epsilon", "9");
    try {
      assertEquals(expected, rows(connect.sql(query.replace("'epsilon', '2'", "'epsilon', '2', 'purpose', NULL"))));
    } finally {
      connect.conf().unset("spark.dptext.epsilon");
    }
    Exception keyInQuery = assertThrows(Exception.class, () -> connect.sql("SELECT dp_sanitize(text, id, map("
        + "'secretKey', '" + KEY + "')) FROM json.`" + path + "`").collect());
    ErrorAssertions.assertErrorText(keyInQuery.getMessage(), "SQL_OPTIONS_NAME_THE_KEY");
    Exception unknown = assertThrows(Exception.class, () -> connect.sql("SELECT dp_sanitize(text, id, map("
        + "'epsilom', '2')) FROM json.`" + path + "`").collect());
    ErrorAssertions.assertErrorText(unknown.getMessage(), "SETTING_UNKNOWN");
    assertTrue(unknown.getMessage().contains("epsilom"), unknown.getMessage());
  }

  @Test
  void withoutTheServersFunctionTheProgramsUdfGivesTheSameRowsAndCarriesNoKey() {
    dev.dptext.settings.DpTextOptions options = santextPlus().options();
    List<String> expected = rows(santextPlus().transform(tickets(classic), "text", "text_dp"));
    // What a server without dptext's extension (Databricks serverless) gets: this program's UDF, whose
    // executors load the model and read the key file.
    dev.dptext.runtime.ServerSanitizer udf = dev.dptext.runtime.ServerSanitizer.viaUdf(connect, options, "id");
    Dataset<Row> out = udf.transform(tickets(connect), "text", "text_dp");
    assertEquals(expected, rows(out));
    Dataset<Row> counted = udf.transformCounted(tickets(connect), "text", "text_dp");
    assertEquals(expected, rows(counted));
    assertTrue(udf.totals(java.time.Duration.ofSeconds(5)).orElseThrow().tokens() > 0, "tokens counted");
    String plan = JobFixtures.capture(() -> out.explain(true)).out();
    assertFalse(plan.contains(KEY), "the key in the plan");
    // A Databricks secret is read through dbutils on a driver, which executors cannot do.
    IllegalArgumentException secret = assertThrows(IllegalArgumentException.class, () ->
        dev.dptext.runtime.ServerSanitizer.viaUdf(connect, options.withText(Settings.DATABRICKS_SECRET, "dptext/key"), "id"));
    assertTrue(secret.getMessage().contains("key file every executor can read"), secret.getMessage());
  }

  @Test
  void whatOnlyThisProgramHoldsIsRefusedWithTheWayOut() {
    Dataset<Row> df = tickets(connect);
    IllegalArgumentException key = assertThrows(IllegalArgumentException.class, () -> santextPlus()
        .key(SecretKey.parse(KEY, "test")).transform(df, "text", "text_dp"));
    assertTrue(key.getMessage().contains("spark.dptext.keyFile") && !key.getMessage().contains(KEY), key.getMessage());
    IllegalArgumentException model = assertThrows(IllegalArgumentException.class, () -> santextPlus()
        .model(dev.dptext.model.EmbeddedDefault.model()).transform(df, "text", "text_dp"));
    assertTrue(model.getMessage().contains("model(\"...\")"), model.getMessage());
  }
}
