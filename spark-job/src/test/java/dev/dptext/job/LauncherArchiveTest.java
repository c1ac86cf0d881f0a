package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.LauncherSandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/dptext's class-data archive: saved only from a {@code sanitize} run that sanitized.
 * {@code sanitize --help} used to save an archive of help's classes that every later run then mapped.
 * A stand-in {@code java} plays the JVM: it writes the archive it is asked to dump and, like the job
 * after its summary ({@link dev.dptext.job.run.RunSummary#markSanitized}), the marker file when it "sanitizes".
 */
@Tag("integration")
class LauncherArchiveTest {
  @TempDir Path root;

  @Test
  void onlyARunThatSanitizedLeavesTheArchive() throws Exception {
    Path target = root.resolve("spark-job/target");
    // Dumps the archive when asked; "sanitizes" (writes the marker) unless told it has nothing to do.
    Path bin = LauncherSandbox.prepare(root, ""
        + "for a in \"$@\"; do\n"
        + "  case \"$a\" in\n"
        + "    -XX:ArchiveClassesAtExit=*) archive=${a#*=} ;;\n"
        + "    -Ddptext.sanitizedMarker=*) marker=${a#*=} ;;\n"
        + "    --help|nothing-to-do) quiet=1 ;;\n"
        + "  esac\n"
        + "done\n"
        + "[[ -n \"$archive\" ]] && echo classes > \"$archive\"\n"
        + "[[ -z \"$quiet\" && -n \"$marker\" ]] && echo sanitized > \"$marker\"\n"
        + "exit 0\n");

    assertEquals(0, run(bin, "sanitize", "--help"));
    assertEquals(List.of(), archives(target), "help leaves no archive");
    assertEquals(0, run(bin, "sanitize", "--input", "x", "nothing-to-do"));
    assertEquals(List.of(), archives(target), "a run with nothing to do leaves no archive");
    assertEquals(0, run(bin, "sanitize", "--input", "x"));
    assertEquals(1, archives(target).size(), "a run that sanitized saves it");
    try (Stream<Path> left = Files.list(target.resolve("cds"))) {
      assertFalse(left.anyMatch(f -> f.toString().endsWith(".tmp") || f.toString().endsWith(".sanitized")),
          "no temporary file left");
    }
  }

  @Test
  void aRunKilledWhileDumpingLeavesNoArchiveAndNoProcess() throws Exception {
    Path target = root.resolve("spark-job/target");
    Path pid = root.resolve("java.pid");
    // Sanitizes (the marker), then is killed while it dumps: the archive's header, which the JVM writes last,
    // is still zeros. It stays the launcher's process (exec), holding what the launcher gave it.
    Path bin = LauncherSandbox.prepare(root, ""
        + "for a in \"$@\"; do\n"
        + "  case \"$a\" in\n"
        + "    -XX:ArchiveClassesAtExit=*) archive=${a#*=} ;;\n"
        + "    -Ddptext.sanitizedMarker=*) marker=${a#*=} ;;\n"
        + "  esac\n"
        + "done\n"
        + "echo sanitized > \"$marker\"\n"
        + "printf '\\0\\0\\0\\0classes' > \"$archive\"\n"
        + "echo $$ > " + pid + "\n"
        + "exec sleep 300\n");
    ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("scripts/dptext").toString(), "sanitize", "--input", "x")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("DPTEXT_CDS");
    pb.environment().remove("DPTEXT_CDS_DIR");
    Process p = pb.start();
    List<ProcessHandle> launched = new java.util.ArrayList<>();
    try {
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (!(Files.exists(pid) && Files.readString(pid).endsWith("\n")) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      launched.add(p.toHandle());
      p.descendants().forEach(launched::add);
      ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(launched::add);
      assertEquals(0, new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor());
      long gone = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (launched.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < gone) {
        Thread.sleep(20);
      }
      assertEquals(List.of(), launched.stream().filter(ProcessHandle::isAlive)
          .map(h -> h.pid() + " " + h.info().command().orElse("?")).toList(), "left running after kill -9");
      try (Stream<Path> left = Files.list(target.resolve("cds"))) {
        assertEquals(List.of(), left.toList(), "no archive cut short, no temporary file");
      }
    } finally {
      launched.forEach(ProcessHandle::destroyForcibly);
    }
  }

  private int run(Path bin, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("bash", root.resolve("scripts/dptext").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("DPTEXT_CDS");
    pb.environment().remove("DPTEXT_CDS_DIR");
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    p.getInputStream().readAllBytes();
    int code = p.waitFor();
    assertTrue(code == 0, err);
    // The launcher's PID is the JVM's (exec); the archive is kept or dropped by its helper once the JVM has
    // exited, the helper's last act removing the run's marker. Its end of stderr should come after that, but
    // CI once saw the check run first: wait (bounded) for the helper's files to be gone.
    Path cds = root.resolve("spark-job/target/cds");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (Files.isDirectory(cds) && System.nanoTime() < deadline) {
      try (Stream<Path> files = Files.list(cds)) {
        if (files.noneMatch(f -> f.toString().endsWith(".tmp") || f.toString().endsWith(".sanitized"))) {
          break;
        }
      }
      Thread.sleep(20);
    }
    return code;
  }

  private static List<Path> archives(Path target) throws Exception {
    Path cds = target.resolve("cds");
    if (!Files.isDirectory(cds)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cds)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".jsa")).toList();
    }
  }
}
