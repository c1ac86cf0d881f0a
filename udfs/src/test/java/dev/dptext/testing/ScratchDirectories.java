package dev.dptext.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The test JVMs' scratch directories under {@code target/} (a session's warehouse, a Connect server's files). */
public final class ScratchDirectories {
  private ScratchDirectories() {}

  /** Deletes {@code root} and everything under it, if it exists: an earlier run's leftovers. */
  public static void wipe(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
