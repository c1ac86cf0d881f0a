package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dptext.config.Setting;
import dev.dptext.embedding.EmbeddingWriter;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.mechanism.ToyRr;
import dev.dptext.settings.Settings;
import dev.dptext.spark.ml.DpTextSanitizer;
import dev.dptext.spark.ml.RegistryJson;
import dev.dptext.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * A mechanism added by its own files alone reaches every surface derived from the registry. The toy
 * {@link ToyRr} (its class, its distribution test) is named by one line,
 * {@code src/test/toy-mechanism/META-INF/services/dev.dptext.mechanism.MechanismProvider}, and nothing else
 * in dptext mentions it; here it is in the mechanism setting, the settings and mechanisms tables, the Python
 * package's registry, {@code DESCRIBE FUNCTION}, the ML stage's Params, and it sanitizes alike through the
 * DataFrame API, SQL's {@code dp_sanitize} and the ML stage.
 *
 * <p>Only this class's JVM sees that line: surefire's execution {@code toy-mechanism} (udfs/pom.xml) adds
 * the folder to its classpath and runs this class alone, and the default execution leaves it out, so the
 * other tests' registry (which the generated documents are compared with) stays dptext's own.
 */
class ToyMechanismSurfacesTest {
  static final String KEY_HEX = "00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef";

  static final String[] TEXTS = {
    "The movie was great, and the music was even better.",
    "I would not recommend this hotel to my family.",
    "Support never answered my e-mail about the refund.",
  };
  static final int ROWS = 30;

  @TempDir static Path tmp;
  /** The toy's example: its run on every surface. */
  static MechanismSpec toy;
  static SparkSession spark;
  static Dataset<Row> input;
  /** The settings of the toy's run, as every surface takes them. */
  static final Map<Setting<?>, String> SETTINGS = new LinkedHashMap<>();

  @BeforeAll
  static void setUp() throws Exception {
    assertTrue(Mechanisms.ALL.contains(ToyRr.DEFINITION), "toy-rr is not registered: run this class in its own "
        + "surefire execution (./mvnw -B -ntp -o -pl udfs surefire:test@toy-mechanism), which adds its provider");
    toy = MechanismSpec.parse(ToyRr.DEFINITION.example());
    spark = SharedSpark.get();
    Path model = tmp.resolve("glove-top2000.txt");
    EmbeddingWriter.writeGlove(Fixtures.gloveTop2000(), model);
    Path keyFile = Files.writeString(tmp.resolve("key"), KEY_HEX);
    SETTINGS.put(Settings.MODEL, model.toString());
    SETTINGS.put(Settings.NEIGHBOURS, "16");
    SETTINGS.put(Settings.KEY_FILE, keyFile.toString());
    SETTINGS.put(Settings.MECHANISM, toy.name());
    SETTINGS.put(MechanismDefinition.EPSILON, MechanismDefinition.EPSILON.format(toy.epsilon()));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      rows.add(RowFactory.create((long) i, TEXTS[i % TEXTS.length]));
    }
    StructType schema = new StructType().add("id", DataTypes.LongType).add("text", DataTypes.StringType);
    input = spark.createDataFrame(rows, schema);
  }

  @Test
  void theRegistryListsTheToyAfterTheBuiltInOnes() {
    List<MechanismDefinition> expected = new ArrayList<>(Mechanisms.BUILT_IN);
    expected.add(ToyRr.DEFINITION);
    assertEquals(expected, Mechanisms.ALL);
    assertEquals(ToyRr.DEFINITION, Mechanisms.get("TOY_RR"));
  }

  @Test
  void theSettingsAcceptAndDocumentIt() throws Exception {
    assertEquals("toy-rr", Settings.MECHANISM.parse("toy-rr"));
    assertTrue(Settings.MECHANISM.type().choices().contains("toy-rr"), Settings.MECHANISM.type().choices().toString());
    assertTrue(Settings.MECHANISM.doc().contains("toy-rr"), Settings.MECHANISM.doc());
    assertTrue(Settings.mechanismsMarkdownTable().contains("| `toy-rr` | `epsilon` (3.0) | Randomised response"),
        Settings.mechanismsMarkdownTable());
    // The Python package's registry, which its options, docstrings and engine tests read.
    JsonNode exported = null;
    for (JsonNode m : new ObjectMapper().readTree(RegistryJson.json()).get("mechanisms")) {
      exported = m.get("name").asText().equals("toy-rr") ? m : exported;
    }
    assertTrue(exported != null, "toy-rr is not in RegistryJson");
    assertEquals(ToyRr.DEFINITION.guarantee(), exported.get("guarantee").asText());
    assertEquals(ToyRr.DEFINITION.example(), exported.get("example").asText());
  }

  @Test
  void itsGuaranteeIsTheDefinitionsWherePrinted() {
    assertEquals("toy-rr: ε-local DP per token, every pair of words alike (randomised response); "
        + MechanismDefinition.NOT_COVERED, ToyRr.DEFINITION.guarantee());
    assertTrue(toy.guarantee().startsWith("toy-rr: 2.0-local DP per token"), toy.guarantee());
    assertEquals(toy.guarantee(), DpText.sanitizer().mechanism(toy).guarantee());
    String described = spark.sql("DESCRIBE FUNCTION EXTENDED dp_sanitize").collectAsList().toString();
    assertTrue(described.contains(ToyRr.DEFINITION.guarantee()), described);
    String params = new DpTextSanitizer().explainParams();
    assertTrue(params.contains("toy-rr"), params);
  }

  @Test
  void theDataFrameApiSqlAndTheMlStageSanitizeAlikeWithIt() {
    DpText.Builder builder = DpText.sanitizer().mechanism(toy).idColumn("id");
    SETTINGS.forEach((s, v) -> builder.option(s.name(), v));
    List<String> dataFrame = sorted(builder.transform(input, "text", "out"));

    List<String> sql;
    SETTINGS.forEach((s, v) -> spark.conf().set(s.confKey(), v));
    try {
      input.createOrReplaceTempView("reviews");
      sql = sorted(spark.sql("SELECT id, dp_sanitize(text, id) AS out FROM reviews"));
    } finally {
      SETTINGS.keySet().forEach(s -> spark.conf().unset(s.confKey()));
    }

    DpTextSanitizer stage = new DpTextSanitizer().setInputCol("text").setOutputCol("out").setIdCol("id");
    SETTINGS.forEach((s, v) -> stage.setSetting(s.name(), s.parse(v)));
    List<String> ml = sorted(stage.transform(input));

    assertEquals(dataFrame, sql, "dp_sanitize vs DataFrame API");
    assertEquals(dataFrame, ml, "ML stage vs DataFrame API");
    // A word stays with probability e²/(e² + 1999) < 0.004: no text comes out whole, and each row's own
    // stream (its id) gives the rows of one text different outputs.
    assertEquals(ROWS, dataFrame.size());
    long distinct = dataFrame.stream().map(r -> r.substring(r.indexOf('\t') + 1)).distinct().count();
    assertEquals(ROWS, distinct, dataFrame::toString);
    for (String text : TEXTS) {
      assertTrue(dataFrame.stream().noneMatch(r -> r.endsWith("\t" + text)), text);
    }
  }

  private static List<String> sorted(Dataset<Row> df) {
    return df.orderBy("id").select("id", "out").collectAsList().stream()
        .map(r -> r.get(0) + "\t" + (r.isNullAt(1) ? "<null>" : r.getString(1))).collect(Collectors.toList());
  }
}
