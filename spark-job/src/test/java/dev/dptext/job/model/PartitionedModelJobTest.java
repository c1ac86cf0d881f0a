package dev.dptext.job.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * build-model --model-layout partitioned writes a partitioned model directory over Spark partitions;
 * sanitize reads it on either path, chosen by --model-layout, with the same output.
 */
@Tag("integration")
class PartitionedModelJobTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100");
  }

  @Test
  void aPartitionedModelSanitizesAlikeOnBothPaths() {
    Path embeddings = JobFixtures.gloveFile(tmp, 1200);
    String model = tmp.resolve("model").toString();
    Run built = JobFixtures.run("build-model", "--model", embeddings.toString(), "--neighbours", "16",
        "--model-layout", "partitioned", "--output", model);
    assertEquals(0, built.exitCode(), built.out());
    assertTrue(built.out().contains("dptext partitioned model written to") && built.out().contains("1,200 words × 100 dims"),
        built.out());
    assertTrue(Files.exists(Path.of(model, "manifest.properties")));
    String[] outputs = new String[2];
    // auto: a directory of this size (far below 1 GiB) runs broadcast, and the summary says so and why.
    String[] layouts = {"partitioned", "auto"};
    String[] said = {"model layout       partitioned (modelLayout=partitioned; a partitioned model directory",
        "model layout       broadcast (auto: a partitioned model directory with 469 KiB of vectors, at most 1 GiB, "
            + "loaded whole; modelLayout=partitioned keeps it sharded)"};
    for (int i = 0; i < 2; i++) {
      String out = tmp.resolve("out-" + layouts[i]).toString();
      Run r = JobFixtures.run("sanitize", "--input", JobFixtures.SAMPLE,
          "--output", out, "--output-format", "parquet", "--id-column", "id", "--model", model,
          "--model-layout", layouts[i], "--mechanism", "santext+", "--epsilon", "3", "--key-file", keyFile.toString());
      assertEquals(0, r.exitCode(), layouts[i] + ": " + r.out());
      assertTrue(r.out().contains("rows in / out      16 / 16"), r.out());
      assertTrue(r.out().contains(said[i]), r.out());
      List<String> rows = spark.read().parquet(out).orderBy("id").select("text").collectAsList().stream()
          .map(row -> row.isNullAt(0) ? "<null>" : row.getString(0)).collect(Collectors.toList());
      outputs[i] = String.join("\n", rows);
    }
    assertEquals(outputs[1], outputs[0], "the partitioned path's text is the broadcast path's");

    // No tables stored: the run computes its words' rows, the same rows, hence the same text.
    String lean = tmp.resolve("model-on-demand").toString();
    Run leanBuilt = JobFixtures.run("build-model", "--model", embeddings.toString(), "--neighbours",
        "16", "--model-layout", "partitioned", "--neighbour-tables", "on-demand", "--output", lean);
    assertEquals(0, leanBuilt.exitCode(), leanBuilt.out());
    assertTrue(leanBuilt.out().contains("neighbour tables on demand"), leanBuilt.out());
    assertFalse(Files.exists(Path.of(lean, "neighbours-0")));
    String out = tmp.resolve("out-on-demand").toString();
    Run r = JobFixtures.run("sanitize", "--input", JobFixtures.SAMPLE,
        "--output", out, "--output-format", "parquet", "--id-column", "id", "--model", lean,
        "--model-layout", "partitioned", "--mechanism", "santext+", "--epsilon", "3", "--key-file", keyFile.toString());
    assertEquals(0, r.exitCode(), r.out());
    assertEquals(outputs[1], spark.read().parquet(out).orderBy("id").select("text").collectAsList().stream()
        .map(row -> row.isNullAt(0) ? "<null>" : row.getString(0)).collect(Collectors.joining("\n")),
        "tables on demand give the stored tables' text");

    Run refused = JobFixtures.run("build-model", "--model", embeddings.toString(), "--model-layout",
        "broadcast", "--neighbour-tables", "on-demand", "--output", tmp.resolve("refused").toString());
    assertEquals(ExitCode.USAGE.code, refused.exitCode(), refused.err());
    assertTrue(refused.err().contains("--neighbour-tables on-demand is for partitioned models"), refused.err());
    assertFalse(Files.exists(tmp.resolve("refused")));
  }
}
