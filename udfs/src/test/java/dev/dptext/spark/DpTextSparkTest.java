package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.Settings;
import dev.dptext.testing.ErrorAssertions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark surfaces end to end on a local session: DataFrame API, SQL function through
 * spark.sql.extensions and through register(spark), keyed reproducibility across partitionings, and
 * that neither the key nor input text reaches a plan or a log line.
 */
class DpTextSparkTest {
  static final String KEY_HEX = "00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef";
  static final String OTHER_KEY_HEX = "ffeeddccbbaa99887766554433221100fedcba9876543210fedcba9876543210";
  static final String CANARY = "Quxzorblat";

  static SparkSession spark;
  static DpTextModel model;
  static Dataset<Row> input;

  @BeforeAll
  static void setUp() {
    spark = SharedSpark.get();
    model = DpTextModel.of(EmbeddedDefault.embeddings().topWords(3000), "test-top3000", 32);
    List<Row> rows = new ArrayList<>();
    String[] texts = {
      "The movie was great, and the music was even better.",
      "I would not recommend this hotel to my family.",
      "  Leading spaces,\ttabs and\nnew lines stay where they are.  ",
      "Support never answered my e-mail about the refund " + CANARY + ".",
      "",
      null,
    };
    for (int i = 0; i < 240; i++) {
      rows.add(RowFactory.create((long) i, "cat-" + (i % 5), texts[i % texts.length], i * 1.5));
    }
    StructType schema = new StructType()
        .add("id", DataTypes.LongType, false)
        .add("category", DataTypes.StringType)
        .add("text", DataTypes.StringType)
        .add("score", DataTypes.DoubleType);
    input = spark.createDataFrame(rows, schema);
  }

  static DpText.Builder sanitizer(String keyHex) {
    return DpText.sanitizer()
        .model(model)
        .mechanism(MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3.0, "w", 0.9, "p", 0.3)))
        .key(SecretKey.parse(keyHex, "test"))
        .idColumn("id");
  }

  static List<String> outputsById(Dataset<Row> df) {
    return df.orderBy("id").select("text_dp").collectAsList().stream()
        .map(r -> r.isNullAt(0) ? "<null>" : r.getString(0))
        .collect(Collectors.toList());
  }

  @Test
  void sameKeyAndIdsGiveIdenticalOutputWhateverThePartitioning() {
    List<String> one = outputsById(sanitizer(KEY_HEX).transform(input.repartition(1), "text", "text_dp"));
    List<String> three = outputsById(sanitizer(KEY_HEX).transform(input.repartition(3), "text", "text_dp"));
    List<String> seven = outputsById(sanitizer(KEY_HEX).transform(input.repartition(7), "text", "text_dp"));
    assertEquals(one, three);
    assertEquals(one, seven);
    List<String> otherKey = outputsById(sanitizer(OTHER_KEY_HEX).transform(input.repartition(3), "text", "text_dp"));
    assertNotEquals(one, otherKey);
    long differing = 0;
    for (int i = 0; i < one.size(); i++) {
      if (!one.get(i).equals(otherKey.get(i))) {
        differing++;
      }
    }
    // 160 of the 240 rows have non-empty text; with p=0.3 and ~12 tokens each nearly all must differ.
    assertTrue(differing > 120, "only " + differing + " rows differ under another key");
  }

  @Test
  void aKeyFileIsReadOncePerConfiguration(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path keyFile = java.nio.file.Files.writeString(dir.resolve("key"), KEY_HEX);
    DpText.Builder b = DpText.sanitizer()
        .model(model)
        .mechanism(MechanismSpec.of("santext+", java.util.Map.of("epsilon", 3.0, "w", 0.9, "p", 0.3)))
        .set(Settings.KEY_FILE, keyFile.toString())
        .idColumn("id");
    b.prepare(spark); // reads the key file
    java.nio.file.Files.delete(keyFile);
    // The run's transform uses the key it read: the same text as the key given directly.
    assertEquals(outputsById(sanitizer(KEY_HEX).transform(input, "text", "text_dp")),
        outputsById(b.transform(input, "text", "text_dp")));
    // Another configuration resolves its key again (here: the file is gone, and the error says so).
    IllegalArgumentException gone = assertThrows(IllegalArgumentException.class,
        () -> b.purpose("another-use").transform(input, "text", "text_dp"));
    assertTrue(gone.getMessage().contains(keyFile.toString()), gone.getMessage());
  }

  @Test
  void rowsColumnsNullsAndEmptyStringsArePreserved() {
    Dataset<Row> out = sanitizer(KEY_HEX).transform(input, "text", "text_dp");
    assertEquals(List.of("id", "category", "text", "score", "text_dp"), List.of(out.columns()));
    List<Row> rows = out.orderBy("id").collectAsList();
    assertEquals(240, rows.size());
    for (Row r : rows) {
      long id = r.getLong(0);
      assertEquals("cat-" + (id % 5), r.getString(1));
      assertEquals(id * 1.5, r.getDouble(3));
      String in = r.getString(2);
      String dp = r.getString(4);
      if (in == null) {
        assertNull(dp);
      } else if (in.isEmpty()) {
        assertEquals("", dp);
      } else {
        assertFalse(dp.contains(CANARY.toLowerCase()) || dp.contains(CANARY), "OOV canary emitted verbatim");
        assertEquals(in.chars().filter(c -> c == '\n').count(), dp.chars().filter(c -> c == '\n').count());
      }
    }
    // Replacing the column in place keeps the schema.
    Dataset<Row> replaced = sanitizer(KEY_HEX).transform(input, "text");
    assertEquals(input.schema(), replaced.schema());
  }

  @Test
  void badColumnsAndMissingIdAreClearErrors() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> sanitizer(KEY_HEX).transform(input, "body", "out"));
    ErrorAssertions.assertError(e, "COLUMN_NOT_IN_INPUT", java.util.Map.of("role", "text column", "column", "body",
        "columns", java.util.Arrays.toString(input.schema().fieldNames())));
    assertTrue(e.getMessage().contains("category"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> sanitizer(KEY_HEX).transform(input, "score", "out"));
    ErrorAssertions.assertError(e, "TEXT_COLUMN_NOT_STRING");
    e = assertThrows(IllegalArgumentException.class,
        () -> DpText.sanitizer().model(model).key(SecretKey.parse(KEY_HEX, "test")).transform(input, "text", "out"));
    ErrorAssertions.assertError(e, "ID_COLUMN_NOT_GIVEN", java.util.Map.of("caller", "The sanitizer",
        "idColumn", "idColumn(...)", "contentHash", "seedByContent()", "fresh", "freshRandomness()"));
  }

  @Test
  void contentHashModeGivesEqualOutputsForEqualTexts() {
    Dataset<Row> out = DpText.sanitizer().model(model).key(SecretKey.parse(KEY_HEX, "test"))
        .seedByContent().transform(input, "text", "text_dp");
    List<Row> rows = out.where("id = 0 OR id = 6").orderBy("id").collectAsList();
    assertEquals(rows.get(0).getString(2), rows.get(1).getString(2));
    assertEquals(rows.get(0).getString(4), rows.get(1).getString(4));
  }

  @Test
  void sqlFunctionThroughExtensionsAndRegister(@TempDir java.nio.file.Path tmp) throws Exception {
    java.nio.file.Path embeddings = tmp.resolve("embeddings.txt");
    dev.dptext.embedding.EmbeddingWriter.writeGlove(model.embeddings(), embeddings);
    spark.conf().set(Settings.MODEL.confKey(), embeddings.toString());
    spark.conf().set(Settings.NEIGHBOURS.confKey(), "32");
    spark.conf().set(Settings.MECHANISM.confKey(), "santext");
    spark.conf().set("spark.dptext.epsilon", "2");
    java.nio.file.Path keyFile = tmp.resolve("key.txt");  // in @TempDir: deleted with the test
    java.nio.file.Files.writeString(keyFile, KEY_HEX);
    spark.conf().set(Settings.KEY_FILE.confKey(), keyFile.toString());
    try {
      input.createOrReplaceTempView("reviews");
      List<Row> viaExtension = spark.sql("SELECT id, dp_sanitize(text, id) AS dp FROM reviews ORDER BY id").collectAsList();
      assertEquals(240, viaExtension.size());
      assertNull(viaExtension.get(5).get(1));
      assertEquals("", viaExtension.get(4).getString(1));

      DpText.register(spark);
      List<Row> viaRegister = spark.sql("SELECT id, dp_sanitize(text, id) AS dp FROM reviews ORDER BY id").collectAsList();
      assertEquals(viaExtension, viaRegister);

      String described = spark.sql("DESCRIBE FUNCTION EXTENDED dp_sanitize").collectAsList().toString();
      assertTrue(described.contains("metric local DP") && described.contains("id"), described);

      // The key itself SET on the running session is refused (Spark would write it, unredacted, into
      // the event log with every job); SET itself shows it redacted.
      spark.conf().set(Settings.SECRET_KEY.confKey(), KEY_HEX);
      String set = spark.sql("SET " + Settings.SECRET_KEY.confKey()).collectAsList().toString();
      assertTrue(set.contains("redacted") && !set.contains(KEY_HEX), set);
      Exception refused = assertThrows(Exception.class,
          () -> spark.sql("SELECT dp_sanitize(text, id) FROM reviews").collect());
      ErrorAssertions.assertErrorText(refused.getMessage(), "SECRET_KEY_SET_AT_RUNTIME");
      assertFalse(refused.getMessage().contains(KEY_HEX), refused.getMessage());
      spark.conf().unset(Settings.SECRET_KEY.confKey());

      // The plan shows the function, never the key.
      String plan = spark.sql("SELECT dp_sanitize(text, id) FROM reviews").queryExecution().toString();
      assertTrue(plan.contains("dp_sanitize"), plan);
      assertFalse(plan.toLowerCase().contains(KEY_HEX), "key in plan");

      Exception err = assertThrows(Exception.class, () -> spark.sql("SELECT dp_sanitize(text) FROM reviews").collect());
      ErrorAssertions.assertErrorText(err.getMessage(), "ID_COLUMN_NOT_GIVEN");
    } finally {
      for (String k : List.of(Settings.MODEL.confKey(), Settings.NEIGHBOURS.confKey(), Settings.MECHANISM.confKey(),
          "spark.dptext.epsilon", Settings.SECRET_KEY.confKey(), Settings.KEY_FILE.confKey())) {
        spark.conf().unset(k);
      }
    }
  }

  @Test
  void keyAndInputTextAppearInNoPlanAndNoLogLine() {
    ByteArrayOutputStream explained = new ByteArrayOutputStream();
    List<String> logLines;
    try (LogCapture capture = new LogCapture()) {
      spark.sparkContext().setLogLevel("DEBUG");
      // A model without tables, so the driver-side build (and its logging) happens inside the capture.
      DpTextModel fresh = DpTextModel.of(model.embeddings(), "test-fresh", 16);
      Dataset<Row> out = sanitizer(KEY_HEX).model(fresh).transform(input, "text", "text_dp");
      PrintStream old = System.out;
      System.setOut(new PrintStream(explained, true, StandardCharsets.UTF_8));
      try {
        out.explain(true);
      } finally {
        System.setOut(old);
      }
      assertEquals(240, out.collectAsList().size());
      logLines = capture.lines();
    } finally {
      spark.sparkContext().setLogLevel("WARN");
    }
    String plan = explained.toString(StandardCharsets.UTF_8);
    assertTrue(plan.contains("dp_sanitize"), plan);
    // DEBUG is on: dptext's own DEBUG line is there. (How many of Spark's lines there are depends on what
    // ran before in this JVM: a query whose code an earlier test generated logs no code generation here.)
    assertTrue(logLines.stream().anyMatch(l -> l != null && l.startsWith("neighbour search")),
        "dptext's own DEBUG lines were not captured (" + logLines.size() + " lines)");
    assertTrue(logLines.size() > 10, "the capture saw only " + logLines.size() + " lines");
    for (String secret : List.of(KEY_HEX, KEY_HEX.toUpperCase(), CANARY, CANARY.toLowerCase())) {
      assertFalse(plan.contains(secret), "plan contains " + secret);
      for (String line : logLines) {
        assertFalse(line != null && line.contains(secret), "log line contains a secret: " + line);
      }
    }
  }
}
