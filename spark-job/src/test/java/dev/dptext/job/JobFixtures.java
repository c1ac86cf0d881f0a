package dev.dptext.job;

import dev.dptext.embedding.EmbeddingWriter;
import dev.dptext.model.EmbeddedDefault;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fixtures the job tests share: a key file and a small GloVe file cut from the embedded default. */
final class JobFixtures {
  private JobFixtures() {}

  /** A key file holding {@code hex} (test keys only; real keys come from a secret store). */
  static Path keyFile(Path dir, String hex) throws IOException {
    Path key = dir.resolve("key");
    Files.writeString(key, hex + "\n");
    return key;
  }

  /** A GloVe text file of the embedded default's {@code words} most frequent words. */
  static Path gloveFile(Path dir, int words) {
    Path file = dir.resolve("glove-" + words + ".txt");
    EmbeddingWriter.writeGlove(EmbeddedDefault.embeddings().topWords(words), file);
    return file;
  }
}
