package dev.dptext.embedding;

import dev.dptext.errors.DpTextErrors;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes embeddings as GloVe text ({@code word v1 … vm} per line, rank order), the format
 * {@link EmbeddingReader} reads back to the same floats (Java's shortest round-trip decimal form).
 * For exporting a vocabulary subset, and for fixtures.
 */
public final class EmbeddingWriter {
  private EmbeddingWriter() {}

  public static void writeGlove(Embeddings e, Path file) {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      float[] v = e.rawVectors();
      int m = e.dim();
      for (int i = 0; i < e.size(); i++) {
        w.write(e.word(i));
        for (int d = 0; d < m; d++) {
          w.write(' ');
          w.write(Float.toString(v[i * m + d]));
        }
        w.write('\n');
      }
    } catch (IOException ex) {
      throw DpTextErrors.error(ex, "OUTPUT_NOT_WRITABLE", "path", file, "reason",
          ex.getClass().getSimpleName() + " " + ex.getMessage());
    }
  }
}
