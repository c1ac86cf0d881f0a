package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.random.SecretKey;
import dev.dptext.settings.Settings;
import dev.dptext.testing.ErrorAssertions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * modelDistribution=path: executors load the model from its path, verified by the driver's SHA-256, and
 * sanitize exactly as with the broadcast model (the Python suite checks the same through a Connect server).
 */
class ModelDistributionTest {
  static final Path FIXTURE = Path.of("src/test/resources/fixtures/glove-top2000.txt.gz");

  @Test
  void pathModeGivesTheBroadcastOutput(@TempDir Path dir) throws IOException {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(FIXTURE, model);
    var input = DpTextSparkTest.input;
    if (input == null) {
      DpTextSparkTest.setUp();
      input = DpTextSparkTest.input;
    }
    List<String> broadcast = outputs(builder(model).option("modelDistribution", "broadcast").transform(input, "text",
        "text_dp"));
    DpText.Builder path = builder(model).option("modelDistribution", "path");
    var df = path.transform(input, "text", "text_dp");
    assertFalse(df.queryExecution().toString().contains(DpTextSparkTest.KEY_HEX));
    assertEquals(broadcast, outputs(df));
    assertTrue(broadcast.stream().filter(t -> !t.equals("<null>") && !t.isBlank()).count() > 100);
  }

  @Test
  void anInMemoryModelCannotGoByPath() {
    DpText.Builder b = DpText.sanitizer().model(dev.dptext.model.EmbeddedDefault.model()).idColumn("id")
        .key(SecretKey.parse(DpTextSparkTest.KEY_HEX, "test")).option("modelDistribution", "path");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.udf(SharedSpark.get()));
    ErrorAssertions.assertError(e, "MODEL_DISTRIBUTION_PATH_IN_MEMORY",
        Map.of("distributionKey", Settings.MODEL_DISTRIBUTION.confKey()));
  }

  private static DpText.Builder builder(Path model) {
    return DpText.sanitizer().model(model.toString()).option("neighbours", "16").option("mechanism", "santext")
        .key(SecretKey.parse(DpTextSparkTest.KEY_HEX, "test")).idColumn("id");
  }

  private static List<String> outputs(org.apache.spark.sql.Dataset<Row> df) {
    return DpTextSparkTest.outputsById(df);
  }
}
