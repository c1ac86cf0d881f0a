package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dptext.testing.ErrorAssertions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading a model by path on an executor, verified against the SHA-256 the driver computed. */
class ModelLoaderTest {
  static final Path FIXTURE = Path.of("src/test/resources/fixtures/glove-top2000.txt.gz");

  @Test
  void aModelThatChangedAfterTheDriverHashedItIsRefused(@TempDir Path dir) throws IOException {
    Path model = dir.resolve("model.txt.gz");
    Files.copy(FIXTURE, model);
    Configuration conf = new Configuration();
    String sha = ModelLoader.sha256(conf, model.toString());
    assertEquals(sha, ModelLoader.sha256(conf, model.toString()));
    assertEquals(2000, ModelLoader.loadVerified(conf, model.toString(), 0, 8, sha).embeddings().size());
    try (InputStream in = dev.dptext.model.EmbeddedDefault.open()) {
      Files.copy(in, model, java.nio.file.StandardCopyOption.REPLACE_EXISTING); // rebuilt in place
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ModelLoader.loadVerified(conf, model.toString(), 2000, 8, sha));
    ErrorAssertions.assertError(e, "MODEL_CHANGED_ON_EXECUTOR");
    assertEquals(sha, ((dev.dptext.errors.Catalogued) e).parameters().get("driver"), e.getMessage());
  }
}
