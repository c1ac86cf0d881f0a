package dev.dptext.job.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Delta table's last committed version as its log's files show it, read without Spark: a {@link ProcessLane}
 * test checks it between two of its processes without waiting for {@link InJvmSpark}. On a local file system
 * Delta commits version {@code n} by creating {@code _delta_log/<n, 20 digits>.json} (a writer's temporary file
 * is hidden, dot-prefixed), so the largest such file is the table's version, as {@code DeltaLog.update()} gives it.
 */
public final class DeltaLogFiles {
  private static final Pattern COMMIT = Pattern.compile("\\d{20}\\.json");

  private DeltaLogFiles() {}

  /** The table's last committed version; -1 when it has none. */
  public static long lastVersion(Path table) {
    Path log = table.resolve("_delta_log");
    if (!Files.isDirectory(log)) {
      return -1;
    }
    try (Stream<Path> files = Files.list(log)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> COMMIT.matcher(n).matches())
          .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElse(-1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
