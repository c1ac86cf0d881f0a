package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.LauncherSandbox;
import java.nio.charset.StandardCharsets;
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
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(3, p.waitFor(), err);
    assertEquals("dptext: 12 rows sanitized\n", out);
    assertFalse(err.contains("jdk.incubator.vector"), err);
    assertTrue(err.contains("ERROR Executor: Exception in task 0.0"), err);
    assertTrue(err.contains("WARNING: Using incubator modules: something.else"), err);
  }
}
