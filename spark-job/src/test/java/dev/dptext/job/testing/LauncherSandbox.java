package dev.dptext.job.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A copy of scripts/dptext in a directory laid out like the repository after a build (empty jar and
 * classpath files), with a stand-in {@code java} first on the PATH: for testing what the launcher itself
 * does, as a user runs it, without a JVM.
 */
public final class LauncherSandbox {
  private LauncherSandbox() {}

  /**
   * Lays out {@code root} and writes {@code javaScript} (a bash script body) as the stand-in {@code java}.
   *
   * @return the directory to put first on the PATH
   */
  public static Path prepare(Path root, String javaScript) throws IOException {
    Path repo = Path.of("..");
    Files.createDirectories(root.resolve("scripts"));
    Files.copy(repo.resolve("scripts/dptext"), root.resolve("scripts/dptext"));
    Files.copy(repo.resolve("pom.xml"), root.resolve("pom.xml"));
    Path target = Files.createDirectories(root.resolve("spark-job/target"));
    Files.writeString(target.resolve("classpath.txt"), "");
    Files.writeString(target.resolve("classpath-provided.txt"), "");
    Files.writeString(target.resolve("dptext-spark-job-0-shaded.jar"), "");
    Path bin = Files.createDirectories(root.resolve("bin"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\n" + javaScript);
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }
}
