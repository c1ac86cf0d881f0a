package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.LauncherSandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/dptext as a user runs it, with a stand-in {@code java} that writes what a JVM started with
 * {@code --add-modules=jdk.incubator.vector} writes first: every command printed the incubator-module
 * warning. The launcher drops that line and nothing else, and keeps the exit code.
 */
@Tag("integration")
class LauncherStderrTest {
  @TempDir Path root;

  @Test
  void theIncubatorWarningIsDroppedAndEverythingElseKept() throws Exception {
    Path bin = LauncherSandbox.prepare(root, ""
        + "echo 'WARNING: Using incubator modules: jdk.incubator.vector' >&2\n"
        + "echo 'dptext: 12 rows sanitized'\n"
        + "echo '13:02:43 ERROR Executor: Exception in task 0.0' >&2\n"
        + "echo 'WARNING: Using incubator modules: something.else' >&2\n"
        + "exit 3\n");
    ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("scripts/dptext").toString(), "sanitize");
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("DPTEXT_CDS", "0");
    // Standard error goes to a file, as a terminal would take it: the launcher's filter (a grep the script
    // started) may write its last lines after the launcher's process has exited, and the JDK closes a pipe
    // from a child that has exited once it has drained what was there, losing what comes later.
    Path errFile = root.resolve("stderr.txt");
    pb.redirectError(errFile.toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    String err = "";
    for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; Thread.sleep(20)) {
      err = Files.readString(errFile, StandardCharsets.UTF_8);
      if (err.contains("something.else")) { // the filter's last line: it has passed everything before it
        break;
      }
    }
    assertEquals(3, code, err);
    assertEquals("dptext: 12 rows sanitized\n", out);
    assertFalse(err.contains("jdk.incubator.vector"), err);
    assertTrue(err.contains("ERROR Executor: Exception in task 0.0"), err);
    assertTrue(err.contains("WARNING: Using incubator modules: something.else"), err);
  }
}
