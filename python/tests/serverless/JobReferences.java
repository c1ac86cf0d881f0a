import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The serverless test's references: the job's {@code sanitize} runs, one per file of arguments (one argument
 * per line), one after another in this one JVM through the job's own entry, {@code DpTextJob.execute} (what its
 * {@code main} runs, less the {@code System.exit}). One JVM rather than one per run: each run's JVM and Spark
 * start cost ~20 CPU-seconds, most of what a reference cost on two cores.
 *
 * <p>{@code java -cp <dptext's jars and Spark's> JobReferences.java RUN.args…}; exits with the first run's
 * non-zero exit code, naming its file.
 */
public final class JobReferences {
  public static void main(String[] files) throws Exception {
    for (String file : files) {
      String[] args = Files.readAllLines(Path.of(file)).toArray(String[]::new);
      int code = dev.dptext.job.DpTextJob.execute(args);
      if (code != 0) {
        System.err.println("JobReferences: " + file + " exited " + code);
        System.exit(code);
      }
    }
    System.exit(0);
  }
}
