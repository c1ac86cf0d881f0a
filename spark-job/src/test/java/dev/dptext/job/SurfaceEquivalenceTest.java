package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.dptext.config.Setting;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import dev.dptext.spark.ml.DpTextSanitizer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same key, ids and settings give the same output through every surface — the job's command
 * line, the SQL function {@code dp_sanitize}, the DataFrame API and the ML stage — for every
 * mechanism of the registry, each with parameters away from its defaults.
 */
class SurfaceEquivalenceTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;
  static Dataset<Row> input;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677");
    embeddings = JobFixtures.gloveFile(tmp, 3000);
    input = spark.read().json(JobFixtures.SAMPLE).select("id", "text");
  }

  @Test
  void everyMechanismGivesTheSameOutputThroughEverySurface() {
    List<String> previous = null;
    for (MechanismDefinition d : Mechanisms.ALL) {
      String name = d.name();
      // Each mechanism's own example, every parameter away from its default (MechanismDefinition#example).
      MechanismSpec spec = MechanismSpec.parse(d.example());
      Map<Setting<?>, String> settings = new LinkedHashMap<>();
      settings.put(Settings.MODEL, embeddings.toString());
      settings.put(Settings.NEIGHBOURS, "32");
      settings.put(Settings.KEY_FILE, keyFile.toString());
      settings.put(Settings.MECHANISM, spec.name());
      for (MechanismDefinition.Parameter<?> p : spec.definition().parameters()) {
        settings.put(p.setting(), format(p.setting(), spec.values().get(p.name())));
      }

      List<String> cli = viaCommandLine(name, settings);
      List<String> sql = viaSql(settings);
      List<String> dataFrame = sorted(DpText.sanitizer().model(embeddings.toString())
          .option("neighbours", "32").option("keyFile", keyFile.toString()).mechanism(spec).idColumn("id")
          .transform(input, "text", "out"));
      DpTextSanitizer stage = new DpTextSanitizer().setInputCol("text").setOutputCol("out").setIdCol("id");
      settings.forEach((s, v) -> stage.setSetting(s.name(), s.parse(v)));
      List<String> ml = sorted(stage.transform(input));

      assertEquals(dataFrame, cli, name + ": command line vs DataFrame API");
      assertEquals(dataFrame, sql, name + ": dp_sanitize vs DataFrame API");
      assertEquals(dataFrame, ml, name + ": ML stage vs DataFrame API");
      assertNotEquals(previous, dataFrame, name + ": the mechanism must change the output");
      previous = dataFrame;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> String format(Setting<T> s, Object value) {
    return s.format((T) value);
  }

  private static List<String> viaCommandLine(String name, Map<Setting<?>, String> settings) {
    String out = tmp.resolve("cli-" + name.replace('+', 'p')).toString();
    // Parquet: the text is what is compared; a Delta write (two commits per run) is the write-path tests' subject.
    List<String> args = new ArrayList<>(List.of("sanitize", "--input", JobFixtures.SAMPLE, "--output", out,
        "--output-format", "parquet", "--id-column", "id", "--output-column", "out", "--partitions", "2"));
    settings.forEach((s, v) -> args.addAll(List.of(s.cliName(), v)));
    Run r = JobFixtures.run(args.toArray(new String[0]));
    assertEquals(0, r.exitCode(), r.err());
    return sorted(spark.read().parquet(out));
  }

  private static List<String> viaSql(Map<Setting<?>, String> settings) {
    SparkSession session = spark.newSession();
    settings.forEach((s, v) -> session.conf().set(s.confKey(), v));
    DpText.register(session);
    session.read().json(JobFixtures.SAMPLE).select("id", "text").createOrReplaceTempView("tickets");
    return sorted(session.sql("SELECT id, dp_sanitize(text, id) AS out FROM tickets"));
  }

  private static List<String> sorted(Dataset<Row> df) {
    return df.orderBy("id").select("id", "out").collectAsList().stream()
        .map(r -> r.get(0) + "\t" + (r.isNullAt(1) ? "<null>" : r.getString(1))).collect(Collectors.toList());
  }
}
