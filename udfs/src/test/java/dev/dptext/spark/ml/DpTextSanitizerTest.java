package dev.dptext.spark.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import dev.dptext.spark.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ML pipeline stage: same output as the DataFrame API for the same settings and key, inside a
 * Pipeline and after PipelineModel save/load; what a saved pipeline holds (the model path, never the
 * key, never the vectors); schema checks and param validation with clear messages.
 */
class DpTextSanitizerTest {
  static final String KEY_HEX = "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677";

  @TempDir static Path tmp;
  static SparkSession spark;
  static Dataset<Row> tickets;
  static String embeddingsPath;
  static Path keyFile;

  @BeforeAll
  static void setUp() throws IOException {
    spark = SharedSpark.get();
    embeddingsPath = writeGlove(EmbeddedDefault.embeddings().topWords(3000), tmp.resolve("glove-3000.txt"));
    keyFile = tmp.resolve("dptext.key");
    Files.writeString(keyFile, KEY_HEX + "\n");
    String[] texts = {
      "My order Quxzorblat arrived two days late and the box was damaged.",
      "The new update keeps crashing when I open the settings page.",
      "Great service! The support team solved my problem within an hour.",
      "",
      null,
    };
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      rows.add(RowFactory.create("T-" + i, texts[i % texts.length], i % 3));
    }
    tickets = spark.createDataFrame(rows, new StructType()
        .add("ticket_id", DataTypes.StringType, false)
        .add("body", DataTypes.StringType)
        .add("priority", DataTypes.IntegerType));
  }

  @AfterEach
  void forgetSessionKey() {
    spark.conf().unset(Settings.SECRET_KEY.confKey());
    spark.sparkContext().conf().remove(Settings.SECRET_KEY.confKey());
  }

  static String writeGlove(Embeddings e, Path file) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < e.size(); i++) {
      sb.append(e.word(i));
      for (int d = 0; d < e.dim(); d++) {
        sb.append(' ').append(e.rawVectors()[i * e.dim() + d]);
      }
      sb.append('\n');
    }
    Files.writeString(file, sb);
    return file.toString();
  }

  /** Every param away from its default, so a param the stage drops would change the output. */
  static DpTextSanitizer stage() {
    return new DpTextSanitizer()
        .setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id")
        .setMechanism("santext+").setEpsilon(2.5).setW(0.8).setP(0.4)
        .setModel(embeddingsPath).setNeighbours(32)
        .setOov("placeholder").setOovPlaceholder("[?]").setCasePolicy("restore")
        .setPurpose("ml-stage-test")
        .setKeyEnv("DPTEXT_TEST_UNSET_VARIABLE").setKeyFile(keyFile.toString());
  }

  /** The same configuration through the DataFrame API. */
  static DpText.Builder dataFrameApi(String purpose) {
    return DpText.sanitizer(DpTextOptions.fromMap(Map.of(Settings.NEIGHBOURS.confKey(), "32")))
        .model(embeddingsPath)
        .mechanism(MechanismSpec.of("santext+", java.util.Map.of("epsilon", 2.5, "w", 0.8, "p", 0.4)))
        .oovPolicy(OovPolicy.PLACEHOLDER).oovPlaceholder("[?]").casePolicy(CasePolicy.RESTORE)
        .purpose(purpose)
        .key(SecretKey.fromFile(keyFile))
        .idColumn("ticket_id");
  }

  static List<String> sanitized(Dataset<Row> df) {
    return df.orderBy("ticket_id").select("body_dp").collectAsList().stream()
        .map(r -> r.isNullAt(0) ? "<null>" : r.getString(0))
        .collect(Collectors.toList());
  }

  @Test
  void pipelineGivesTheDataFrameApiOutputAndSurvivesSaveAndLoad() throws IOException {
    PipelineModel fitted = new Pipeline().setStages(new PipelineStage[] {stage()}).fit(tickets);
    Dataset<Row> viaPipeline = fitted.transform(tickets);
    List<String> expected = sanitized(dataFrameApi("ml-stage-test").transform(tickets, "body", "body_dp"));
    assertEquals(expected, sanitized(viaPipeline));
    assertNotEquals(expected, sanitized(dataFrameApi("dptext").transform(tickets, "body", "body_dp")),
        "the purpose param must reach the row seeds");
    assertTrue(expected.stream().anyMatch(s -> s.contains("[?]")), "the oovPlaceholder param must be used");
    assertEquals(stage().transformSchema(tickets.schema()), viaPipeline.schema());

    Path saved = tmp.resolve("pipeline");
    fitted.write().overwrite().save(saved.toString());
    PipelineModel loaded = PipelineModel.load(saved.toString());
    assertEquals(expected, sanitized(loaded.transform(tickets)));
    DpTextSanitizer reloaded = (DpTextSanitizer) loaded.stages()[0];
    assertEquals(embeddingsPath, reloaded.getModel());
    assertEquals(0.4, reloaded.getP());

    // What the directory holds: params (the model path, the key file path), no key, no vectors.
    List<Path> files;
    try (Stream<Path> walk = Files.walk(saved)) {
      files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
    }
    StringBuilder all = new StringBuilder();
    long bytes = 0;
    for (Path f : files) {
      byte[] content = Files.readAllBytes(f);
      bytes += content.length;
      all.append(new String(content, StandardCharsets.ISO_8859_1)).append('\n');
    }
    String everything = all.toString();
    assertTrue(everything.contains(embeddingsPath), "the saved pipeline does not reference the model");
    assertFalse(everything.toLowerCase().contains(KEY_HEX), "the key was written with the pipeline");
    assertTrue(bytes < 16_384, "the saved pipeline has " + bytes + " bytes: are embeddings copied into it?");
  }

  @Test
  void brrBitsReachTheMechanismAndSurviveSaveAndLoad() throws IOException {
    DpTextSanitizer dp = stage().setMechanism("brr").setEpsilon(0.2).setBits(128).setCasePolicy("vocabulary");
    List<String> expected = sanitized(dataFrameApi("ml-stage-test").mechanism(MechanismSpec.of("brr", java.util.Map.of("epsilon", 0.2, "bits", 128)))
        .casePolicy(CasePolicy.VOCABULARY).transform(tickets, "body", "body_dp"));
    PipelineModel fitted = new Pipeline().setStages(new PipelineStage[] {dp}).fit(tickets);
    assertEquals(expected, sanitized(fitted.transform(tickets)));
    assertNotEquals(expected, sanitized(dataFrameApi("ml-stage-test").mechanism(MechanismSpec.of("brr", java.util.Map.of("epsilon", 0.2, "bits", 256)))
        .casePolicy(CasePolicy.VOCABULARY).transform(tickets, "body", "body_dp")), "the bits param must reach BRR");
    Path saved = tmp.resolve("pipeline-brr");
    fitted.write().overwrite().save(saved.toString());
    PipelineModel loaded = PipelineModel.load(saved.toString());
    assertEquals(128, ((DpTextSanitizer) loaded.stages()[0]).getBits());
    assertEquals(expected, sanitized(loaded.transform(tickets)));
    assertEquals(256, new DpTextSanitizer().getBits());
  }

  @Test
  void keyComesFromTheSessionConfAndIsNeverWrittenWithTheStage() throws IOException {
    DpTextSanitizer dp = new DpTextSanitizer()
        .setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id")
        .setModel(embeddingsPath).setNeighbours(32).setKeyEnv("DPTEXT_TEST_UNSET_VARIABLE");
    assertRefused(() -> dp.transform(tickets), "KEY_NOT_GIVEN", Map.of("variable", "DPTEXT_TEST_UNSET_VARIABLE",
        "secretKey", Settings.SECRET_KEY.confKey()));

    // The key itself on the running session is refused (it would reach the event log unredacted)...
    spark.conf().set(Settings.SECRET_KEY.confKey(), KEY_HEX);
    assertRefused(() -> dp.transform(tickets), "SECRET_KEY_SET_AT_RUNTIME",
        Map.of("secretKey", Settings.SECRET_KEY.confKey()));
    // ...unless it was set at application start, as a cluster's Spark config does (emulated here).
    spark.sparkContext().conf().set(Settings.SECRET_KEY.confKey(), KEY_HEX);
    List<String> viaStage = sanitized(dp.transform(tickets));
    List<String> viaApi = sanitized(DpText.sanitizer(DpTextOptions.fromMap(Map.of(Settings.NEIGHBOURS.confKey(), "32")))
        .model(embeddingsPath).mechanism(MechanismSpec.parse("santext:epsilon=3")) // the stage's default
        .key(SecretKey.parse(KEY_HEX, "test")).idColumn("ticket_id")
        .transform(tickets, "body", "body_dp"));
    assertEquals(viaApi, viaStage);

    Path saved = tmp.resolve("stage");
    dp.write().overwrite().save(saved.toString());
    try (Stream<Path> walk = Files.walk(saved)) {
      for (Path f : walk.filter(Files::isRegularFile).collect(Collectors.toList())) {
        String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).toLowerCase();
        assertFalse(content.contains(KEY_HEX), "key in " + f);
      }
    }
    assertEquals(viaStage, sanitized(DpTextSanitizer.load(saved.toString()).transform(tickets)));
    spark.sparkContext().conf().remove(Settings.SECRET_KEY.confKey());
    spark.conf().unset(Settings.SECRET_KEY.confKey());

    // A saved stage edited to an invalid value is refused when loaded, naming the param.
    Path metadata;
    try (Stream<Path> parts = Files.list(saved.resolve("metadata"))) {
      metadata = parts.filter(f -> f.getFileName().toString().startsWith("part-")).findFirst().orElseThrow();
    }
    String json = Files.readString(metadata);
    assertTrue(json.contains("\"neighbours\":32"), json);
    Files.writeString(metadata, json.replace("\"neighbours\":32", "\"neighbours\":0"));
    Files.deleteIfExists(metadata.resolveSibling("." + metadata.getFileName() + ".crc"));
    assertRefused(() -> DpTextSanitizer.load(saved.toString()), "SETTING_INVALID", Map.of("setting", "neighbours",
        "value", "0"));
  }

  @Test
  void aKeyFileNamedInTheSessionReachesTheStageAsItReachesTheSqlFunction() {
    // What the Python ML example of docs/python-and-connect.md does: configure(key_file=…) sets the session's keyFile; the stage
    // names no key itself.
    DpTextSanitizer dp = new DpTextSanitizer()
        .setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id").setModel(embeddingsPath).setNeighbours(32);
    spark.conf().set(Settings.KEY_FILE.confKey(), keyFile.toString());
    try {
      List<String> viaApi = sanitized(DpText.sanitizer(DpTextOptions.fromMap(Map.of(Settings.NEIGHBOURS.confKey(), "32")))
          .model(embeddingsPath).mechanism(MechanismSpec.parse("santext:epsilon=3")) // the stage's default
          .key(SecretKey.fromFile(keyFile)).idColumn("ticket_id").transform(tickets, "body", "body_dp"));
      assertEquals(viaApi, sanitized(dp.transform(tickets)));
      // The stage's own Param wins over the session's.
      dp.setKeyFile(tmp.resolve("no-such-key").toString());
      assertMessage(() -> dp.transform(tickets), "no-such-key");
    } finally {
      spark.conf().unset(Settings.KEY_FILE.confKey());
    }
  }

  @Test
  void transformSchemaRefusesBadColumnsBeforeReadingData() {
    DpTextSanitizer dp = new DpTextSanitizer().setInputCol("body").setOutputCol("body_dp").setIdCol("ticket_id");
    StructType out = dp.transformSchema(tickets.schema());
    assertEquals(DataTypes.StringType, out.apply("body_dp").dataType());
    assertEquals(tickets.schema().size() + 1, out.size());

    String columns = java.util.Arrays.toString(tickets.schema().fieldNames());
    assertRefused(() -> dp.copy(new org.apache.spark.ml.param.ParamMap()).setInputCol("text")
        .transformSchema(tickets.schema()), "COLUMN_NOT_IN_INPUT",
        Map.of("role", "text column", "column", "text", "columns", columns));
    assertRefused(() -> new DpTextSanitizer().setInputCol("priority").setOutputCol("o").setIdCol("ticket_id")
        .transformSchema(tickets.schema()), "TEXT_COLUMN_NOT_STRING", Map.of("column", "priority"));
    assertRefused(() -> new DpTextSanitizer().setInputCol("body").setOutputCol("priority").setIdCol("ticket_id")
        .transformSchema(tickets.schema()), "ML_OUTPUT_COLUMN_EXISTS", Map.of("column", "priority"));
    assertRefused(() -> new DpTextSanitizer().setInputCol("body").setOutputCol("o").setIdCol("nope")
        .transformSchema(tickets.schema()), "COLUMN_NOT_IN_INPUT",
        Map.of("role", "id column", "column", "nope", "columns", columns));
    assertRefused(() -> new DpTextSanitizer().setInputCol("body").setOutputCol("o")
        .transformSchema(tickets.schema()), "ID_COLUMN_NOT_GIVEN",
        Map.of("caller", "DpTextSanitizer", "idColumn", "setIdCol", "contentHash", "setIdMode(\"content-hash\")",
            "fresh", "setIdMode(\"fresh\")"));
    assertRefused(() -> new DpTextSanitizer().setInputCol("body").setOutputCol("o").setIdCol("ticket_id")
        .setIdMode("fresh").transformSchema(tickets.schema()), "ML_ID_COL_WITH_ID_MODE",
        Map.of("idCol", "ticket_id", "idMode", "fresh"));
    assertRefused(() -> new DpTextSanitizer().setOutputCol("o").setIdCol("ticket_id")
        .transformSchema(tickets.schema()), "ML_PARAM_NOT_SET", Map.of("param", "inputCol"));
    // Parameters that are valid alone but not together fail here, before any data is read.
    assertMessage(() -> new DpTextSanitizer().setInputCol("body").setOutputCol("o").setIdCol("ticket_id")
        .setMechanism("vickrey").setT(0.2, 0.5).transformSchema(tickets.schema()), "vickrey", "one threshold");
    // Seeding by content needs no id column.
    new DpTextSanitizer().setInputCol("body").setOutputCol("o").setIdMode("content-hash")
        .transformSchema(tickets.schema());
  }

  @Test
  void badParamValuesFailWhenSetNamingTheParam() {
    DpTextSanitizer dp = new DpTextSanitizer();
    assertRefused(() -> dp.setEpsilon(-1), "SETTING_INVALID",
        Map.of("setting", "epsilon", "value", "-1.0", "expected", "a positive finite number"));
    assertRefused(() -> dp.setEpsilon(Double.POSITIVE_INFINITY), "SETTING_INVALID",
        Map.of("setting", "epsilon", "value", "Infinity"));
    assertRefused(() -> dp.setW(0), "SETTING_INVALID", Map.of("setting", "w", "expected", "in (0, 1]"));
    assertRefused(() -> dp.setP(1.5), "SETTING_INVALID", Map.of("setting", "p", "expected", "in [0, 1]"));
    assertRefused(() -> dp.setLambda(2), "SETTING_INVALID", Map.of("setting", "lambda", "expected", "in [0, 1]"));
    assertRefused(() -> dp.setT(-0.5), "SETTING_INVALID", Map.of("setting", "t", "value", "[-0.5]"));
    assertRefused(() -> dp.setMechanism("laplace9"), "SETTING_INVALID", Map.of("setting", "mechanism",
        "value", "'laplace9'"));
    assertRefused(() -> dp.setIdMode("sometimes"), "SETTING_INVALID", Map.of("setting", "idMode",
        "value", "'sometimes'"));
    assertRefused(() -> dp.setOov("drop"), "SETTING_INVALID", Map.of("setting", "oov", "value", "'drop'"));
    assertRefused(() -> dp.setCasePolicy("upper"), "SETTING_INVALID", Map.of("setting", "casePolicy",
        "value", "'upper'"));
    assertRefused(() -> dp.setNeighbours(0), "SETTING_INVALID", Map.of("setting", "neighbours", "value", "0"));
    assertRefused(() -> dp.setVocabSize(-3), "SETTING_INVALID", Map.of("setting", "vocabSize", "value", "-3"));
    assertRefused(() -> dp.setBits(0), "SETTING_INVALID", Map.of("setting", "bits", "value", "0"));
    assertRefused(() -> dp.setBits(5000), "SETTING_INVALID", Map.of("setting", "bits", "value", "5000"));
    assertRefused(() -> dp.setInputCol(" "), "SETTING_INVALID", Map.of("setting", "inputCol",
        "expected", "a non-empty string", "value", "' '"));
    // The stage is unchanged by the rejected values.
    assertEquals(3.0, dp.getEpsilon());
    assertEquals("santext", dp.getMechanism());
  }

  @Test
  void theStageIsDiscoverableAsATransformerService() {
    List<String> services = ServiceLoader.load(Transformer.class).stream()
        .map(provider -> provider.type().getName()).collect(Collectors.toList());
    assertTrue(services.contains(DpTextSanitizer.class.getName()), services.toString());
  }

  /** {@code call} fails with the catalogue's {@code name}, with (at least) these parameters. */
  static void assertRefused(org.junit.jupiter.api.function.Executable call, String name, Map<String, ?> some) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    ErrorAssertions.assertError(e, name);
    Map<String, String> parameters = ((dev.dptext.errors.Catalogued) e).parameters();
    some.forEach((k, v) -> assertEquals(String.valueOf(v), parameters.get(k), k + " of " + e.getMessage()));
  }

  static void assertMessage(org.junit.jupiter.api.function.Executable call, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + part + "' not in: " + e.getMessage());
    }
  }
}
