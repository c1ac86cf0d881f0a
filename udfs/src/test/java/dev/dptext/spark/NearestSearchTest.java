package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.knn.NearestSearch;
import dev.dptext.knn.SearchTally;
import dev.dptext.random.SecretKey;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.spark.ml.DpTextSanitizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The nearestSearch setting: exact by default, hnsw accepted for the embedding-noise mechanisms only,
 * refused with the mechanism named and the fix for the others; through Spark, hnsw gives the same text
 * whatever the partitioning and however the model reaches the executors, and counts its recall.
 * (Independent builds of the graph are compared in {@code HnswNearestWordsTest}.)
 */
class NearestSearchTest {

  @Test
  void exactIsTheDefaultAndHnswIsOnlyForTheEmbeddingNoiseMechanisms() {
    assertEquals(NearestSearch.EXACT, DpTextOptions.defaults().nearestSearch());
    assertEquals("exact", Settings.NEAREST_SEARCH.defaultText());
    DpTextSanitizer fresh = new DpTextSanitizer();
    assertEquals("exact", fresh.getOrDefault(fresh.getParam("nearestSearch")));
    for (String m : List.of("laplace", "mahalanobis", "vickrey")) {
      DpTextOptions o = DpTextOptions.fromMap(Map.of("spark.dptext.mechanism", m, "spark.dptext.nearestSearch", "hnsw"));
      assertEquals(NearestSearch.HNSW, o.nearestSearch(), m);
    }
    DpTextOptions.fromMap(Map.of("spark.dptext.mechanism", "vickrey-topk", "spark.dptext.t", "0,0.5,1",
        "spark.dptext.nearestSearch", "HNSW"));
    for (String m : List.of("santext", "santext+", "brr")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DpTextOptions.fromMap(
          Map.of("spark.dptext.mechanism", m, "spark.dptext.nearestSearch", "hnsw")));
      assertTrue(e.getMessage().startsWith("nearestSearch=hnsw is refused for " + m + ": ")
          && e.getMessage().contains("Use nearestSearch=exact (the default) with " + m), e.getMessage());
    }
    String brr = assertThrows(IllegalArgumentException.class, () -> DpTextOptions.fromMap(
        Map.of("spark.dptext.mechanism", "brr", "spark.dptext.nearestSearch", "hnsw"))).getMessage();
    assertTrue(brr.contains("Hamming"), brr);
    String santext = assertThrows(IllegalArgumentException.class, () -> DpTextOptions.fromMap(
        Map.of("spark.dptext.nearestSearch", "hnsw"))).getMessage();
    assertTrue(santext.contains("guarantee"), "the default mechanism (santext) refuses it too: " + santext);
    String bad = assertThrows(IllegalArgumentException.class, () -> DpTextOptions.fromMap(
        Map.of("spark.dptext.nearestSearch", "fast"))).getMessage();
    assertTrue(bad.contains("nearestSearch") && bad.contains("exact, hnsw"), bad);
    // The ML stage and the DataFrame API refuse it before anything runs, too.
    DpTextSanitizer stage = new DpTextSanitizer().setMechanism("santext+").setInputCol("text").setOutputCol("dp")
        .setIdCol("id");
    stage.set(stage.getParam("nearestSearch"), "hnsw");
    var schema = new org.apache.spark.sql.types.StructType().add("id", "long").add("text", "string");
    IllegalArgumentException ml = assertThrows(IllegalArgumentException.class, () -> stage.transformSchema(schema));
    assertTrue(ml.getMessage().contains("refused for santext+"), ml.getMessage());
  }

  @Test
  void hnswGivesTheSameTextWhateverThePartitioningAndTheModelsWayToTheExecutors(@TempDir Path dir) throws Exception {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(ModelDistributionTest.FIXTURE, model);
    if (DpTextSparkTest.input == null) {
      DpTextSparkTest.setUp();
    }
    var input = DpTextSparkTest.input;
    TokenAccumulators counters = new TokenAccumulators(SharedSpark.get());
    List<String> broadcast = DpTextSparkTest.outputsById(builder(model).countTokens(counters)
        .option("modelDistribution", "broadcast").transform(input.repartition(1), "text", "text_dp"));
    List<String> path = DpTextSparkTest.outputsById(builder(model).option("modelDistribution", "path")
        .transform(input.repartition(4), "text", "text_dp"));
    assertEquals(broadcast, path);
    List<String> exact = DpTextSparkTest.outputsById(builder(model).option("nearestSearch", "exact")
        .transform(input.repartition(2), "text", "text_dp"));
    long same = 0;
    for (int i = 0; i < exact.size(); i++) {
      same += exact.get(i).equals(broadcast.get(i)) ? 1 : 0;
    }
    assertTrue(same >= 0.9 * exact.size(), "hnsw and exact agree on " + same + " of " + exact.size() + " rows");
    SearchTally t = counters.search();
    assertTrue(t.queries > 0 && t.recall() >= 0.9, t.queries + " checked, recall " + t.recall());
  }

  private static DpText.Builder builder(Path model) {
    return DpText.sanitizer().model(model.toString()).option("mechanism", "laplace").option("epsilon", "15")
        .option("nearestSearch", "hnsw").key(SecretKey.parse(DpTextSparkTest.KEY_HEX, "test")).idColumn("id");
  }
}
