package dev.dptext.job;

import static dev.dptext.job.testing.JobFixtures.SAMPLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.Launcher;
import dev.dptext.job.testing.ProcessLane;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job end to end, in-process (build-model and one sanitize through scripts/dptext): JSON/CSV/text in,
 * Delta/Parquet out, config files, build-model, and one clear error with the right exit code for each kind
 * of bad input.
 */
@ProcessLane
class DpTextJobTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
  }

  static String[] sanitize(String output, String... extra) {
    return JobFixtures.sanitizeArgs(SAMPLE, output, keyFile, embeddings, extra);
  }

  static List<String> texts(String path, String format) {
    return spark.read().format(format).load(path).orderBy("id").collectAsList().stream()
        .map(r -> r.isNullAt(r.fieldIndex("text")) ? "<null>" : r.getString(r.fieldIndex("text")))
        .collect(Collectors.toList());
  }

  @Test
  void sanitizesJsonIntoDeltaReproduciblyAndKeepsEveryRowAndColumn() {
    String out = tmp.resolve("tickets-delta").toString();
    Run r = JobFixtures.run(sanitize(out));
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
    assertTrue(r.out().contains("mechanism          santext ε=3.0"), r.out()); // the default mechanism
    List<Row> rows = spark.read().format("delta").load(out).orderBy("id").collectAsList();
    List<Row> in = spark.read().json(SAMPLE).orderBy("id").collectAsList();
    assertEquals(in.size(), rows.size());
    for (int i = 0; i < in.size(); i++) {
      assertEquals(in.get(i).getAs("customer"), rows.get(i).<String>getAs("customer"));
      String before = in.get(i).getAs("text");
      String after = rows.get(i).getAs("text");
      if (before == null) {
        assertNull(after);
      } else if (before.isEmpty()) {
        assertEquals("", after);
      }
    }
    // The same key and ids: a re-run (overwrite) writes identical text.
    List<String> first = texts(out, "delta");
    Run again = JobFixtures.run(sanitize(out, "--mode", "overwrite"));
    assertEquals(0, again.exitCode(), again.err());
    assertEquals(first, texts(out, "delta"));
    // Writing again without --mode is refused.
    Run refused = JobFixtures.run(sanitize(out));
    assertEquals(2, refused.exitCode());
    assertTrue(refused.err().contains("already exists"), refused.err());
  }

  @Test
  void deltaOutputRecordsWhatProducedItAndAJsonSummary() throws Exception {
    String out = tmp.resolve("audited").toString();
    Run r = JobFixtures.run(sanitize(out, "--mechanism", "santext", "--epsilon", "2"));
    assertEquals(0, r.exitCode(), r.err());
    // DESCRIBE DETAIL, not SHOW TBLPROPERTIES: the latter redacts values that match
    // spark.redaction.regex, and the guarantee text mentions tokens.
    java.util.Map<String, String> props = scala.jdk.javaapi.CollectionConverters.asJava(
        spark.sql("DESCRIBE DETAIL delta.`" + out + "`").select("properties").first().<String, String>getMap(0));
    assertEquals("santext", props.get("dptext.mechanism"));
    assertEquals("2.0", props.get("dptext.epsilon"));
    assertTrue(props.get("dptext.guarantee").contains("metric local DP"), props.toString());
    assertEquals(64, props.get("dptext.modelSha256").length());
    String userMetadata = spark.sql("DESCRIBE HISTORY delta.`" + out + "`").where("operation = 'WRITE'")
        .select("userMetadata").first().getString(0);
    assertTrue(userMetadata.contains("\"dptext.mechanism\":\"santext\""), userMetadata);
    String json = Files.readString(Path.of(out, "_dptext_summary.json"));
    assertTrue(json.contains("\"rowsIn\":16") && json.contains("\"rowsOut\":16") && json.contains("\"epsilon\":2.0"), json);
    String all = String.join("\n", props.values()) + userMetadata + json;
    assertFalse(all.contains("00112233445566778899aabbccddeeff"), "the key leaked into the audit record");
  }

  /**
   * The properties mirror the audit with as few commits as that takes: an append with unchanged settings adds
   * its rows' commit only; a property edited by hand, or new settings, are written again. The guarantee text
   * ("tokens") is shown redacted by SHOW TBLPROPERTIES, what the write path reads: the audit's digest vouches
   * for it there.
   */
  @Test
  void appendsWithUnchangedSettingsAddNoPropertyCommitAndEditedPropertiesAreRestored() throws Exception {
    String out = tmp.resolve("nightly").toString();
    java.util.function.Supplier<List<String>> operations = () -> spark.sql("DESCRIBE HISTORY delta.`" + out + "`")
        .orderBy("version").collectAsList().stream().map(row -> row.<String>getAs("operation")).toList();
    java.util.function.Supplier<java.util.Map<String, String>> props = () -> scala.jdk.javaapi.CollectionConverters
        .asJava(spark.sql("DESCRIBE DETAIL delta.`" + out + "`").select("properties").first().<String, String>getMap(0));
    for (int run = 0; run < 2; run++) {
      Run r = JobFixtures.run(sanitize(out, "--mode", "append", "--epsilon", "2"));
      assertEquals(0, r.exitCode(), r.err());
    }
    assertEquals(List.of("WRITE", "SET TBLPROPERTIES", "WRITE"), operations.get());
    assertTrue(spark.sql("SHOW TBLPROPERTIES delta.`" + out + "` ('dptext.guarantee')").first().getString(1)
        .contains("redacted"), "the case this test is about: the write path sees the guarantee redacted");
    spark.sql("ALTER TABLE delta.`" + out + "` SET TBLPROPERTIES ('dptext.epsilon' = '9.0')");
    Run restored = JobFixtures.run(sanitize(out, "--mode", "append", "--epsilon", "2"));
    assertEquals(0, restored.exitCode(), restored.err());
    assertEquals("2.0", props.get().get("dptext.epsilon"));
    Run changed = JobFixtures.run(sanitize(out, "--mode", "append", "--epsilon", "3"));
    assertEquals(0, changed.exitCode(), changed.err());
    assertEquals("3.0", props.get().get("dptext.epsilon"));
    assertEquals(List.of("WRITE", "SET TBLPROPERTIES", "WRITE", "SET TBLPROPERTIES", "WRITE", "SET TBLPROPERTIES",
        "WRITE", "SET TBLPROPERTIES"), operations.get());
  }

  @Test
  void relativeDeltaOutputPathWorks() throws Exception {
    // As scripts/demo.sh passes it (--output target/demo-output): Delta takes delta.`x` as a path
    // only when x is absolute, so the job must qualify it before its ALTER TABLE / DESCRIBE HISTORY.
    Path relative = Path.of("target", "relative-output-" + System.nanoTime());
    try {
      Run r = JobFixtures.run(sanitize(relative.toString()));
      assertEquals(0, r.exitCode(), r.err());
      Run appended = JobFixtures.run(sanitize(relative.toString(), "--mode", "append"));
      assertEquals(0, appended.exitCode(), appended.err());
      assertTrue(appended.out().contains("rows in / out      16 / 16"), appended.out());
      assertEquals(32, spark.read().format("delta").load(relative.toAbsolutePath().toString()).count());
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(relative.toFile());
    }
  }

  @Test
  void configFileWithOverridesAndUnknownKeys() throws Exception {
    Path conf = tmp.resolve("job.properties");
    Files.writeString(conf, String.join("\n",
        "input = " + SAMPLE, "id-column = id", "model = " + embeddings, "neighbours = 32",
        "key-file = " + keyFile, "mechanism = santext", "epsilon = 2", "output-format = parquet", ""));
    String out = tmp.resolve("from-conf").toString();
    Run r = JobFixtures.run("sanitize", "--config", conf.toString(), "--output", out, "--epsilon", "5");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("santext ε=5.0"), r.out());
    assertEquals(16, spark.read().parquet(out).count());

    Files.writeString(conf, "input = x\nepsilonn = 3\n");
    Run bad = JobFixtures.run("sanitize", "--config", conf.toString(), "--output", out);
    assertEquals(2, bad.exitCode());
    assertTrue(bad.err().contains("[epsilonn]") && bad.err().contains("epsilon"), bad.err());
  }

  /**
   * build-model and sanitize through {@code scripts/dptext} as a user runs them (each its own JVM and
   * session), against sanitize in this JVM building the model on the fly: the same text.
   */
  @Test
  @Tag("integration")
  void builtModelArtifactGivesTheSameOutputAsBuildingOnTheFly() {
    String model = tmp.resolve("model.dptext").toString();
    Run b = Launcher.run("build-model", "--model", embeddings.toString(), "--neighbours", "32", "--output", model);
    assertEquals(0, b.exitCode(), b.err());
    assertTrue(b.out().contains("3,000 words"), b.out());
    String onTheFly = tmp.resolve("on-the-fly").toString();
    String fromArtifact = tmp.resolve("from-artifact").toString();
    List<String> a = new java.util.ArrayList<>(List.of(sanitize(fromArtifact, "--output-format", "parquet")));
    a.set(a.indexOf(embeddings.toString()), model);
    Run launched = Launcher.run(a.toArray(new String[0]));
    assertEquals(0, launched.exitCode(), launched.err());
    assertTrue(launched.out().contains("rows in / out      16 / 16"), launched.out());
    assertFalse(launched.err().contains("00112233445566778899aabbccddeeff"), "the key is not in the launcher's log");
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      assertEquals(0, JobFixtures.run(sanitize(onTheFly, "--output-format", "parquet")).exitCode());
      assertEquals(texts(onTheFly, "parquet"), texts(fromArtifact, "parquet"));
    }
  }

  @Test
  void textAndCsvInputs() throws Exception {
    Path txt = tmp.resolve("lines.txt");
    Files.writeString(txt, "the first line of text\n\nand a third one\n");
    String out = tmp.resolve("from-text").toString();
    // Parquet out: the inputs are the subject here (a Delta write costs two commits per run).
    Run r = JobFixtures.run("sanitize", "--input", txt.toString(), "--output", out, "--output-format", "parquet",
        "--id-mode", "content-hash", "--model", embeddings.toString(), "--neighbours", "32", "--key-file",
        keyFile.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(3, spark.read().parquet(out).count());

    Path csv = tmp.resolve("t.csv");
    Files.writeString(csv, "id,text\n1,\"hello world, again\"\n2,good morning\n");
    String out2 = tmp.resolve("from-csv").toString();
    Run c = JobFixtures.run("sanitize", "--input", csv.toString(), "--input-option", "header=true", "--output", out2,
        "--output-format", "parquet", "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32",
        "--key-file", keyFile.toString());
    assertEquals(0, c.exitCode(), c.err());
    assertEquals(2, spark.read().parquet(out2).count());
  }

  /** No command: a usage error that lists the commands (it listed none: a new CommandLine has no subcommands). */
  @Test
  void noCommandIsAUsageErrorListingTheCommands() {
    Run r = JobFixtures.run();
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("Name a command: sanitize, build-model, privacy-stats, calibrate, evaluate, tune"),
        r.err());
    assertTrue(r.err().contains("Usage: dptext [-hV] [COMMAND]"), r.err());
  }

  @Test
  void badInputIsOneClearErrorWithTheRightExitCode() {
    String out = tmp.resolve("never").toString();
    Run missing = JobFixtures.run("sanitize", "--input", tmp.resolve("nope.json").toString(), "--output", out,
        "--id-column", "id", "--key-file", keyFile.toString(), "--model", embeddings.toString());
    assertEquals(3, missing.exitCode(), missing.err());
    assertTrue(missing.err().contains("nope.json"), missing.err());

    Run column = JobFixtures.run(sanitize(out, "--text-column", "body"));
    assertEquals(3, column.exitCode(), column.err());
    ErrorAssertions.assertErrorText(column.err(), "COLUMN_NOT_IN_INPUT");
    assertTrue(column.err().contains("'body'") && column.err().contains("customer"), column.err());

    Run mechanism = JobFixtures.run(sanitize(out, "--mechanism", "laplace9"));
    assertEquals(2, mechanism.exitCode(), mechanism.err());
    ErrorAssertions.assertErrorText(mechanism.err(), "SETTING_INVALID");
    assertTrue(mechanism.err().contains("mechanism must be one of santext, santext+") && mechanism.err().contains("'laplace9'"), mechanism.err());

    Run epsilon = JobFixtures.run(sanitize(out, "--epsilon", "-1"));
    assertEquals(2, epsilon.exitCode(), epsilon.err());
    ErrorAssertions.assertErrorText(epsilon.err(), "SETTING_INVALID");
    assertTrue(epsilon.err().contains("epsilon must be a positive"), epsilon.err());

    Run noKey = JobFixtures.run("sanitize", "--input", SAMPLE, "--output", out, "--id-column", "id",
        "--key-env", "DPTEXT_TEST_UNSET_VARIABLE");
    assertEquals(2, noKey.exitCode(), noKey.err());
    assertTrue(noKey.err().contains("DPTEXT_TEST_UNSET_VARIABLE") && noKey.err().contains("openssl rand"), noKey.err());

    Run noId = JobFixtures.run("sanitize", "--input", SAMPLE, "--output", out, "--key-file", keyFile.toString());
    assertEquals(2, noId.exitCode(), noId.err());
    assertTrue(noId.err().contains("--id-mode content-hash"), noId.err());

    Run badModel = JobFixtures.run("sanitize", "--input", SAMPLE, "--output", out, "--id-column", "id",
        "--key-file", keyFile.toString(), "--model", tmp.resolve("missing.vec").toString());
    assertEquals(3, badModel.exitCode(), badModel.err());
    assertTrue(badModel.err().contains("missing.vec"), badModel.err());

    // A mechanism parameter the model cannot serve is the configuration's fault (2), not the input's (3).
    Run groups = JobFixtures.run(sanitize(out, "--mechanism", "custext", "--group-size", "1000000"));
    assertEquals(2, groups.exitCode(), groups.err());
    ErrorAssertions.assertErrorText(groups.err(), "MECHANISM_PARAMETER_EXCEEDS_MODEL");
    Run topK = JobFixtures.run(sanitize(out, "--mechanism", "vickrey-topk", "--t",
        String.join(",", java.util.Collections.nCopies(3001, "0")))); // the model has 3,000 words
    assertEquals(2, topK.exitCode(), topK.err());
    ErrorAssertions.assertErrorText(topK.err(), "MECHANISM_PARAMETER_EXCEEDS_MODEL");
    Run noSensitiveWord = JobFixtures.run(sanitize(out, "--mechanism", "santext+", "--w", "0.0001"));
    assertEquals(2, noSensitiveWord.exitCode(), noSensitiveWord.err());
    ErrorAssertions.assertErrorText(noSensitiveWord.err(), "MECHANISM_PARAMETER_SELECTS_NO_WORD");

    Run unknownOption = JobFixtures.run(sanitize(out, "--epsilom", "3"));
    assertEquals(2, unknownOption.exitCode(), unknownOption.err());
  }
}
