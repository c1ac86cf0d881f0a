package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build step's up-to-date check (building the default model takes 10–20 s: the Python build runs it,
 * and the Python engine's tests read its output).
 */
class DefaultModelFileTest {
  @TempDir Path tmp;

  @Test
  void aModelNewerThanTheJarIsKept() throws Exception {
    Path jar = Files.writeString(tmp.resolve("dptext-udfs.jar"), "jar");
    Path model = Files.writeString(tmp.resolve("default.dptext-model"), "an earlier build");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    Files.setLastModifiedTime(model, FileTime.fromMillis(2_000_000));
    long t0 = System.nanoTime();
    DefaultModelFile.main(new String[] {model.toString(), "--unless-newer-than", jar.toString()});
    assertEquals("an earlier build", Files.readString(model), "kept, not rebuilt");
    assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "without building");
  }
}
