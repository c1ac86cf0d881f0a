package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding-noise mechanisms through the job, and the privacy-statistics command. */
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

  static String[] run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = DpTextJob.execute(args);
    } finally {
      System.setOut(old);
    }
    return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8)};
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
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("sanitize",
          "--input", "../data/sample/support-tickets.jsonl", "--output", out, "--output-format", "parquet",
          "--id-column", "id", "--model", embeddings.toString(), "--key-file", keyFile.toString()));
      args.addAll(java.util.List.of(m));
      String[] r = run(args.toArray(new String[0]));
      assertEquals("0", r[0], m[1] + ": " + r[1]);
      assertTrue(r[1].contains("rows in / out      16 / 16"), r[1]);
      assertTrue(r[1].contains("mechanism          " + m[1]), r[1]);
      assertEquals(16, spark.read().parquet(out).count());
    }
  }

  /** nearestSearch=hnsw through the job: the summary names the index and prints its recall; SanText refuses it. */
  @Test
  void approximateSearchPrintsItsRecallAndSanTextRefusesIt() throws Exception {
    String out = tmp.resolve("out-hnsw").toString();
    String[] r = run("sanitize", "--input", "../data/sample/support-tickets.jsonl", "--output", out,
        "--output-format", "parquet", "--id-column", "id", "--model", embeddings.toString(), "--key-file",
        keyFile.toString(), "--mechanism", "vickrey", "--epsilon", "10", "--nearest-search", "hnsw");
    assertEquals("0", r[0], r[1]);
    assertTrue(r[1].contains("rows in / out      16 / 16"), r[1]);
    assertTrue(r[1].contains("nearest words      hnsw, Lucene HNSW (M=16, beamWidth=100, efSearch="), r[1]);
    assertTrue(java.util.regex.Pattern.compile("search recall      \\d+\\.\\d\\d% \\(recall@2 against exact search, on "
        + "\\d+ of the run's noisy vectors").matcher(r[1]).find(), r[1]);
    String json = Files.readString(Path.of(out, RunSummary.FILE_NAME));
    assertTrue(json.contains("\"nearestSearch\":\"hnsw\"") && json.contains("\"searchRecall\""), json);
    String[] refused = run("sanitize", "--input", "../data/sample/support-tickets.jsonl", "--output",
        tmp.resolve("out-hnsw-santext").toString(), "--id-column", "id", "--model", embeddings.toString(),
        "--key-file", keyFile.toString(), "--mechanism", "santext", "--nearest-search", "hnsw");
    assertEquals("2", refused[0], refused[1]);
  }

  @Test
  void privacyStatisticsTableShowsEveryMechanismAndEpsilon() throws Exception {
    Path table = tmp.resolve("stats.md");
    String[] r = run("privacy-stats", "--model", embeddings.toString(), "--words", "40", "--runs", "20",
        "--epsilons", "5,20", "--mechanisms", "laplace mahalanobis:lambda=1 vickrey:t=0.5", "--output", table.toString());
    assertEquals("0", r[0], r[1]);
    String md = Files.readString(table);
    for (String row : new String[] {"| laplace ε=5.0 |", "| laplace ε=20.0 |", "| mahalanobis ε=20.0, λ=1.0 |",
        "| vickrey ε=5.0, t=0.5, noise=laplace |"}) {
      assertTrue(md.contains(row), "missing " + row + " in\n" + md);
    }
    String[] bad = run("privacy-stats", "--model", embeddings.toString(), "--mechanisms", "laplace:lambada=1");
    assertEquals("2", bad[0]);
  }

  @Test
  void calibratePrintsTheMatchingEpsilon() {
    String[] r = run("calibrate", "--model", embeddings.toString(), "--vocab-size", "500",
        "--mechanism-a", "laplace", "--epsilon-a", "10", "--mechanism-b", "brr:bits=64");
    assertEquals("0", r[0], r[1]);
    assertTrue(r[1].contains("Hamming (64 bits) metric") && r[1].contains("ε_B = ε_A·R = "), r[1]);
    String[] bad = run("calibrate", "--model", embeddings.toString(), "--mechanism-a", "laplace",
        "--epsilon-a", "10", "--mechanism-b", "brr", "--aggregate", "median");
    assertEquals("2", bad[0]);
    String[] sampled = run("calibrate", "--model", embeddings.toString(), "--vocab-size", "500",
        "--mechanism-a", "laplace", "--epsilon-a", "10", "--mechanism-b", "brr:bits=64", "--sample-pairs", "5000",
        "--seed", "7");
    assertEquals("0", sampled[0], sampled[1]);
    assertTrue(sampled[1].contains("5,000 uniform ordered pairs") && sampled[1].contains("95% interval")
        && sampled[1].contains("a lower bound") && sampled[1].contains("ε_B = ε_A·R ≈ "), sampled[1]);
    String[] sampledMax = run("calibrate", "--model", embeddings.toString(), "--mechanism-a", "laplace",
        "--epsilon-a", "10", "--mechanism-b", "brr", "--aggregate", "max", "--sample-pairs", "5000");
    assertEquals("2", sampledMax[0], "--aggregate max with --sample-pairs is a usage error");
  }
}
