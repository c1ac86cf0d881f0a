package dev.dptext.job.testing;

import dev.dptext.job.DpTextJob;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The job as a process of its own, as a scheduler runs it: this JVM's classpath and its flags ({@link
 * ChildJvm}), the job's log configuration, {@code spark.*} system properties for its session (a local master,
 * or a Spark Connect remote), stdout and stderr to files. For the tests that kill it.
 */
public final class JobProcess {
  private JobProcess() {}

  /**
   * Starts the job with {@code session} (each a {@code key=value} system property) and {@code args}; the
   * variable DPTEXT_KEY of this JVM's environment is not passed on (keys are named by the tests).
   */
  public static Process start(Path stdout, Path stderr, String heap, List<String> session, String... args) throws IOException {
    return start(stdout, stderr, heap, session, System.getProperty("java.class.path"), args);
  }

  /** {@link #start(Path, Path, String, List, String...)} with the classpath {@code classpath} instead of this JVM's. */
  public static Process start(Path stdout, Path stderr, String heap, List<String> session, String classpath,
      String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    cmd.addAll(ChildJvm.flags());
    cmd.add("-Dlog4j2.configurationFile=" + Path.of("..", "conf", "log4j2.properties").toAbsolutePath().normalize());
    for (String property : session) {
      cmd.add("-D" + property);
    }
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(DpTextJob.class.getName());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    pb.environment().remove("DPTEXT_KEY");
    return pb.start();
  }
}
