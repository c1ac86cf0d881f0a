package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.random.SecretKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
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

  /**
   * In local mode the tasks get the driver's own sanitizer by number (no broadcast to serialize): equal
   * configurations share it, a task's copy of the source (serialized, as in a closure) carries only
   * the number and finds the same object, and a number not held fails loudly. (The output's equality
   * with an independently built sanitizer is {@link #pathModeGivesTheBroadcastOutput}.)
   */
  @Test
  void localModeHandsTasksTheDriversSanitizer(@TempDir Path dir) throws Exception {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(FIXTURE, model);
    var spark = SharedSpark.get();
    SanitizerSource source = DpText.sanitizerSource(spark, builder(model));
    assertTrue(source instanceof SanitizerSource.Local, source.toString());
    assertSame(source, DpText.sanitizerSource(spark, builder(model)), "equal configurations share one sanitizer");
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(source);
    }
    assertTrue(bytes.size() < 200, "the closure carries a number, not the sanitizer: " + bytes.size() + " bytes");
    SanitizerSource copy;
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (SanitizerSource) in.readObject();
    }
    assertSame(source.get(), copy.get());
    SanitizerSource unknown = new SanitizerSource.Local(-1, null); // a task's copy of a number never held
    IllegalStateException e = assertThrows(IllegalStateException.class, unknown::get);
    assertTrue(e.getMessage().contains("not held"), e.getMessage());
  }

  @Test
  void aModelThatChangedAfterTheDriverHashedItIsRefused(@TempDir Path dir) throws IOException {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(FIXTURE, model);
    Configuration conf = new Configuration();
    String sha = ModelLoader.sha256(conf, model.toString());
    assertEquals(sha, ModelLoader.sha256(conf, model.toString()));
    assertEquals(2000, ModelLoader.loadVerified(conf, model.toString(), 0, 8, sha).embeddings().size());
    try (InputStream in = embeddedDefault()) {
      Files.copy(in, model, java.nio.file.StandardCopyOption.REPLACE_EXISTING); // rebuilt in place
    }
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ModelLoader.loadVerified(conf, model.toString(), 2000, 8, sha));
    assertTrue(e.getMessage().contains("has SHA-256") && e.getMessage().contains(sha)
        && e.getMessage().contains("Write each new model to a new path"), e.getMessage());
  }

  @Test
  void anInMemoryModelCannotGoByPath() {
    DpText.Builder b = DpText.sanitizer().model(dev.dptext.model.EmbeddedDefault.model()).idColumn("id")
        .key(SecretKey.parse(DpTextSparkTest.KEY_HEX, "test")).option("modelDistribution", "path");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.udf(SharedSpark.get()));
    assertTrue(e.getMessage().contains("model in memory"), e.getMessage());
  }

  private static InputStream embeddedDefault() {
    return dev.dptext.model.EmbeddedDefault.open();
  }

  private static DpText.Builder builder(Path model) {
    return DpText.sanitizer().model(model.toString()).option("neighbours", "16").option("mechanism", "santext")
        .key(SecretKey.parse(DpTextSparkTest.KEY_HEX, "test")).idColumn("id");
  }

  private static List<String> outputs(org.apache.spark.sql.Dataset<Row> df) {
    return DpTextSparkTest.outputsById(df);
  }
}
