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

  /** Runs {@code sanitize} on {@code input} keyed by {@code keyFile}, over {@code embeddings} (K = 32), quietly. */
  static DpTextJobTest.Run sanitize(Path input, String output, Path keyFile, Path embeddings, String... extra) {
    java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("sanitize", "--input", input.toString(),
        "--output", output, "--id-column", "id", "--model", embeddings.toString(), "--neighbours", "32",
        "--key-file", keyFile.toString(), "--progress-interval", "0"));
    a.addAll(java.util.List.of(extra));
    return DpTextJobTest.run(a.toArray(new String[0]));
  }
}
