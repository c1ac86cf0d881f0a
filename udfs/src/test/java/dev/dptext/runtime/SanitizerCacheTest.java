package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.random.SecretKey;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.spark.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver's sanitizers: one per configuration and Spark context, handed to local tasks by number. */
class SanitizerCacheTest {
  static final Path FIXTURE = Path.of("src/test/resources/fixtures/glove-top2000.txt.gz");
  static final String KEY_HEX = "00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef";

  /**
   * In local mode the tasks get the driver's own sanitizer by number (no broadcast to serialize): equal
   * configurations share it, a task's copy of the source (serialized, as in a closure) carries only
   * the number and finds the same object, and a number not held fails loudly. (The output's equality
   * with an independently built sanitizer is {@code dev.dptext.spark.ModelDistributionTest}'s.)
   */
  @Test
  void localModeHandsTasksTheDriversSanitizer(@TempDir Path dir) throws Exception {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(FIXTURE, model);
    var spark = SharedSpark.get();
    SanitizerSource source = SanitizerCache.source(spark, options(model), null, key());
    assertTrue(source instanceof SanitizerSource.Local, source.toString());
    assertSame(source, SanitizerCache.source(spark, options(model), null, key()),
        "equal configurations share one sanitizer");
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

  private static DpTextOptions options(Path model) {
    return DpTextOptions.defaults().with(Settings.MODEL, model.toString()).withText(Settings.NEIGHBOURS, "16")
        .with(Settings.MECHANISM, "santext").with(Settings.ID_MODE, "column");
  }

  private static SecretKey key() {
    return SecretKey.parse(KEY_HEX, "test");
  }
}
