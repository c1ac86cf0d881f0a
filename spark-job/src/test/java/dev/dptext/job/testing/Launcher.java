package dev.dptext.job.testing;

import dev.dptext.job.testing.JobFixtures.Run;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The job as a user runs it: {@code scripts/dptext}, a JVM of its own with the launcher's flags, logging
 * and the job's own session set-up ({@code local[*]}), not this JVM's test session. The build writes what
 * the launcher needs (the shaded jar, {@code target/classpath*.txt}) before the tests run.
 *
 * <p>One test per command family goes through here (sanitize, build-model, the evaluation commands, the
 * analysis commands), so CI runs the path a user takes; the others call the job in this JVM, which costs
 * no JVM start.
 */
public final class Launcher {
  private static final Path SCRIPT = Path.of("..", "scripts", "dptext").toAbsolutePath().normalize();
  private static final long TIMEOUT_MINUTES = 5;

  private Launcher() {}

  /** Runs {@code scripts/dptext args…} and returns its exit code, stdout and stderr. */
  public static Run run(String... args) {
    try {
      Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "launcher").toAbsolutePath()), "run");
      Path out = dir.resolve("stdout");
      Path err = dir.resolve("stderr");
      ProcessBuilder pb = builder(out, err, "", args);
      // The class-data archive is the launcher's own start-up optimisation (LauncherArchiveTest); writing one
      // costs a run ~12 s and two test JVMs would write it at once.
      pb.environment().put("DPTEXT_CDS", "0");
      Process p = pb.start();
      if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("scripts/dptext " + String.join(" ", args) + " ran over " + TIMEOUT_MINUTES
            + " minutes; its stderr:\n" + Files.readString(err, StandardCharsets.UTF_8));
      }
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts {@code scripts/dptext args…} as the first run of a build: no class-data archive in {@code cdsDir} yet,
   * so the launcher takes its path that saves one (the path {@link #run} turns off), with {@code properties} (each
   * {@code key=value}) as system properties; stdout and stderr to files. For the tests that kill it: the caller
   * ends it.
   */
  public static Process startFirstRun(Path cdsDir, Path stdout, Path stderr, List<String> properties,
      String... args) throws IOException {
    StringBuilder options = new StringBuilder();
    for (String property : properties) {
      options.append(" -D").append(property);
    }
    ProcessBuilder pb = builder(stdout, stderr, options.toString(), args);
    pb.environment().remove("DPTEXT_CDS");
    pb.environment().put("DPTEXT_CDS_DIR", cdsDir.toString());
    return pb.start();
  }

  private static ProcessBuilder builder(Path out, Path err, String moreOptions, String... args) {
    List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    // The test session's shuffle partitions (4), as a spark.* system property, which the job's SparkConf
    // reads: with Spark's default 200, the evaluation commands' many small MLlib jobs took ~10× longer on
    // two cores (evaluate utility on 200 rows: 185 s instead of 17 s).
    // With it, the test JVM's CPU settings (ChildJvm), through the user's own knob for JVM options.
    pb.environment().put("DPTEXT_JAVA_OPTS", "-Xmx1g -Dspark.sql.shuffle.partitions=4 " + ChildJvm.cpuSettings()
        + moreOptions);
    // The key comes from the test's key file, never from the developer's shell.
    pb.environment().remove("DPTEXT_KEY");
    pb.environment().remove("SPARK_REMOTE");
    return pb;
  }
}
