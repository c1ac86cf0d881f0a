package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.Launcher;
import dev.dptext.job.testing.ProcessLane;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.job.write.OutputLocation;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding-noise mechanisms through the job, and the privacy-statistics and calibrate commands (their
 * main runs through {@code scripts/dptext}, as a user runs them).
 */
@ProcessLane
class NoiseMechanismJobTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100");
    embeddings = JobFixtures.gloveFile(tmp, 2000);
  }

  @Test
  void everyNoiseMechanismSanitizesEveryRow() {
    String[][] mechanisms = {
      {"--mechanism", "laplace", "--epsilon", "20"},
      {"--mechanism", "mahalanobis", "--epsilon", "20", "--lambda", "1"},
      {"--mechanism", "vickrey", "--epsilon", "20", "--t", "0.75"},
      {"--mechanism", "vickrey-topk", "--epsilon", "20", "--t", "0,0.5,1"},
      {"--mechanism", "brr", "--epsilon", "2", "--bits", "128"},
    };
    for (String[] m : mechanisms) {
      String out = tmp.resolve("out-" + m[1]).toString();
      java.util.List<String> extra = new java.util.ArrayList<>(java.util.List.of("--output-format", "parquet"));
      extra.addAll(java.util.List.of(m));
      Run r = JobFixtures.run(JobFixtures.sanitizeArgs(JobFixtures.SAMPLE, out, keyFile, embeddings,
          extra.toArray(new String[0])));
      assertEquals(0, r.exitCode(), m[1] + ": " + r.out());
      assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
      assertTrue(r.out().contains("mechanism          " + m[1]), r.out());
      assertEquals(16, spark.read().parquet(out).count());
      // The text changed: at these ε most tokens are replaced, so most rows with text read differently
      // (a mechanism wired to emit its input would pass every check above).
      java.util.regex.Matcher changed = java.util.regex.Pattern.compile("tokens changed +[0-9,]+ \\(([0-9.]+)%\\)")
          .matcher(r.out());
      assertTrue(changed.find(), r.out());
      assertTrue(Double.parseDouble(changed.group(1)) > 20, m[1] + ": " + changed.group());
      java.util.Map<Long, String> before = texts(spark.read().json(JobFixtures.SAMPLE));
      java.util.Map<Long, String> after = texts(spark.read().parquet(out));
      long withText = before.values().stream().filter(t -> !t.isBlank()).count();
      long differ = before.keySet().stream().filter(id -> !before.get(id).isBlank())
          .filter(id -> !before.get(id).equals(after.get(id))).count();
      assertTrue(differ * 2 > withText, m[1] + ": only " + differ + " of " + withText + " rows with text changed");
    }
  }

  /** id → text (null as ""). */
  private static java.util.Map<Long, String> texts(org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> rows) {
    java.util.Map<Long, String> m = new java.util.HashMap<>();
    for (org.apache.spark.sql.Row r : rows.select("id", "text").collectAsList()) {
      m.put(r.getLong(0), r.isNullAt(1) ? "" : r.getString(1));
    }
    return m;
  }

  /** nearestSearch=hnsw through the job: the summary names the index and prints its recall; SanText refuses it. */
  @Test
  void approximateSearchPrintsItsRecallAndSanTextRefusesIt() throws Exception {
    String out = tmp.resolve("out-hnsw").toString();
    Run r = JobFixtures.run("sanitize", "--input", JobFixtures.SAMPLE, "--output", out,
        "--output-format", "parquet", "--id-column", "id", "--model", embeddings.toString(), "--key-file",
        keyFile.toString(), "--mechanism", "vickrey", "--epsilon", "10", "--nearest-search", "hnsw");
    assertEquals(0, r.exitCode(), r.out());
    assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
    assertTrue(r.out().contains("nearest words      hnsw, Lucene HNSW (M=16, beamWidth=100, efSearch="), r.out());
    assertTrue(java.util.regex.Pattern.compile("search recall      \\d+\\.\\d\\d% \\(recall@2 against exact search, on "
        + "\\d+ of the run's noisy vectors").matcher(r.out()).find(), r.out());
    String json = Files.readString(Path.of(out, OutputLocation.SUMMARY_FILE));
    assertTrue(json.contains("\"nearestSearch\":\"hnsw\"") && json.contains("\"searchRecall\""), json);
    Run refused = JobFixtures.run("sanitize", "--input", JobFixtures.SAMPLE, "--output",
        tmp.resolve("out-hnsw-santext").toString(), "--id-column", "id", "--model", embeddings.toString(),
        "--key-file", keyFile.toString(), "--mechanism", "santext", "--nearest-search", "hnsw");
    assertEquals(2, refused.exitCode(), refused.out());
  }

  @Test
  @Tag("integration")
  void privacyStatisticsTableShowsEveryMechanismAndEpsilon() throws Exception {
    Path table = tmp.resolve("stats.md");
    Run r = Launcher.run("privacy-stats", "--model", embeddings.toString(), "--words", "40", "--runs", "20",
        "--epsilons", "5,20", "--mechanisms", "laplace mahalanobis:lambda=1 vickrey:t=0.5", "--output", table.toString());
    assertEquals(0, r.exitCode(), r.out());
    String md = Files.readString(table);
    for (String row : new String[] {"| laplace ε=5.0 |", "| laplace ε=20.0 |", "| mahalanobis ε=20.0, λ=1.0 |",
        "| vickrey ε=5.0, t=0.5, noise=laplace |"}) {
      assertTrue(md.contains(row), "missing " + row + " in\n" + md);
    }
    Run bad = JobFixtures.run("privacy-stats", "--model", embeddings.toString(), "--mechanisms", "laplace:lambada=1");
    assertEquals(2, bad.exitCode());
  }

  @Test
  @Tag("integration")
  void calibratePrintsTheMatchingEpsilon() {
    Run r = Launcher.run("calibrate", "--model", embeddings.toString(), "--vocab-size", "500",
        "--mechanism-a", "laplace", "--epsilon-a", "10", "--mechanism-b", "brr:bits=64");
    assertEquals(0, r.exitCode(), r.out());
    assertTrue(r.out().contains("Hamming (64 bits) metric") && r.out().contains("ε_B = ε_A·R = "), r.out());
    Run bad = Launcher.run("calibrate", "--model", embeddings.toString(), "--mechanism-a", "laplace",
        "--epsilon-a", "10", "--mechanism-b", "brr", "--aggregate", "median");
    assertEquals(2, bad.exitCode(), "a usage error's exit code through the launcher");
    assertTrue(bad.err().contains("--aggregate"), bad.err());
    try (InJvmSpark.Held held = InJvmSpark.hold()) { // both in-JVM runs at one turn of the lock
      Run sampled = JobFixtures.run("calibrate", "--model", embeddings.toString(), "--vocab-size", "500",
          "--mechanism-a", "laplace", "--epsilon-a", "10", "--mechanism-b", "brr:bits=64", "--sample-pairs", "5000",
          "--seed", "7");
      assertEquals(0, sampled.exitCode(), sampled.out());
      assertTrue(sampled.out().contains("5,000 uniform ordered pairs") && sampled.out().contains("95% interval")
          && sampled.out().contains("a lower bound") && sampled.out().contains("ε_B = ε_A·R ≈ "), sampled.out());
      Run sampledMax = JobFixtures.run("calibrate", "--model", embeddings.toString(), "--mechanism-a", "laplace",
          "--epsilon-a", "10", "--mechanism-b", "brr", "--aggregate", "max", "--sample-pairs", "5000");
      assertEquals(2, sampledMax.exitCode(), "--aggregate max with --sample-pairs is a usage error");
    }
  }
}
