package dev.dptext.job;

import dev.dptext.errors.Catalogued;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.JobSession;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;

/**
 * The entry point of a Databricks JAR task ({@code spark_jar_task.main_class_name}; sample job
 * definition: {@code conf/databricks-job.json}). It runs the same commands, options and config files
 * as {@link DpTextJob} ({@code sanitize --config /Volumes/.../nightly.properties}), with the two
 * differences Databricks requires of a JAR task:
 *
 * <ul>
 *   <li>It works in the cluster's existing SparkSession ({@code SparkSession.builder().getOrCreate()})
 *       and never stops it: the cluster owns the session. It never starts a local one either: without
 *       a running Spark it fails, where {@link DpTextJob} would start {@code local[*]}.
 *   <li>It never calls {@code System.exit}, which would take down the shared driver JVM and lose the
 *       run's status. A Databricks run fails when {@code main} throws, so a non-zero exit code becomes
 *       a {@link Failure} carrying the code (see {@link ExitCode}) and the error message, which the
 *       run page shows. Success returns normally; the run summary is on the driver's stdout.
 * </ul>
 *
 * The RNG key comes from the cluster, like every other source of configuration: an environment
 * variable ({@code spark_env_vars: {"DPTEXT_KEY": "{{secrets/dptext/rng-key}}"}}) or the Spark conf
 * {@code spark.dptext.secretKey {{secrets/dptext/rng-key}}}. Databricks resolves the secret reference
 * when the cluster starts, so the key is in neither the job definition nor its parameters. On Spark
 * Connect (serverless, standard access mode) the key is resolved by the server, never by this program:
 * name it with {@code --databricks-secret SCOPE/KEY} or {@code --key-file /Volumes/...}; the environment
 * of this program ({@code --key-env}) is refused there, as it would have to travel to the server.
 */
public final class DatabricksTask {
  /** What the failure names as the command when the task was given none. */
  private static final String NO_COMMAND = "(no command)";

  /** How much of the error output goes into the exception message. */
  private static final int MAX_MESSAGE = 4_000;

  private DatabricksTask() {}

  public static void main(String[] args) {
    run(args);
  }

  /**
   * Runs one dptext command in the running SparkSession: the cluster's (classic), or a Spark Connect
   * session where the launch asks for one ({@code spark.api.mode=connect}, {@code spark.remote},
   * {@code SPARK_REMOTE}) or where the classpath has nothing else (Databricks Connect in a serverless JAR
   * task).
   *
   * @throws Failure when the command's exit code is not 0
   */
  static void run(String... args) {
    SparkSession spark = JobSession.connect(System.getProperties(), System.getenv())
        ? JobSession.builder(System.getProperties(), System.getenv(), false).getOrCreate()
        : SparkSession.builder().getOrCreate();
    run(spark, args);
  }

  /**
   * Runs one dptext command in {@code spark}, a classic session or a Spark Connect client (the shape of
   * a Databricks serverless JAR task, whose code is handed a Connect session only); the session is left
   * running.
   *
   * @throws Failure when the command's exit code is not 0
   */
  public static void run(SparkSession spark, String... args) {
    StringWriter errors = new StringWriter();
    PrintWriter err = new PrintWriter(new TeeWriter(new PrintWriter(System.err, true), errors), true);
    CommandLine cli = DpTextJob.commandLine(args);
    cli.setErr(err);
    JobOutcome outcome = JobSession.using(spark, () -> DpTextJob.run(cli, args));
    err.flush();
    if (!outcome.succeeded()) {
      throw new Failure(outcome, args.length > 0 ? args[0] : NO_COMMAND, errorMessage(errors.toString()));
    }
  }

  /**
   * The error text, without the job's {@code dptext: } line prefix (the exception names dptext) and
   * without picocli's usage help, which follows the message and only repeats {@code --help}.
   */
  private static String errorMessage(String errorOutput) {
    int usage = errorOutput.indexOf("\nUsage: ");
    String message = (usage >= 0 ? errorOutput.substring(0, usage) : errorOutput)
        .replaceAll("(?m)^dptext: ", "").strip();
    return message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + " …" : message;
  }

  /**
   * A dptext command that ended with a non-zero exit code; its message says what to do. A refusal from the error
   * catalogue carries its name and parameters ({@link #errorClass()}, docs/errors.md), for code that acts on it.
   */
  public static final class Failure extends RuntimeException implements Catalogued {
    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final String errorClass;
    private final Map<String, String> parameters;

    Failure(JobOutcome outcome, String command, String message) {
      super("dptext " + command + " failed with exit code " + outcome.exit().code + " (" + outcome.exit().meaning
          + ")" + (message.isEmpty() ? "" : ": " + message));
      this.exitCode = outcome.exit().code;
      this.errorClass = outcome.errorClass();
      this.parameters = outcome.parameters();
    }

    /** The exit code {@link DpTextJob} would have exited with. */
    public int exitCode() {
      return exitCode;
    }

    /** The catalogue entry's name, or null for a failure the catalogue does not name (exit 1, a bug). */
    @Override
    public String errorClass() {
      return errorClass;
    }

    @Override
    public Map<String, String> parameters() {
      return parameters;
    }
  }

  /** Writes to the driver's stderr (the run's log) and keeps a copy for the exception message. */
  private static final class TeeWriter extends Writer {
    private final Writer log;
    private final Writer copy;

    TeeWriter(Writer log, Writer copy) {
      this.log = log;
      this.copy = copy;
    }

    @Override
    public void write(char[] buffer, int offset, int length) throws java.io.IOException {
      log.write(buffer, offset, length);
      copy.write(buffer, offset, length);
    }

    @Override
    public void flush() throws java.io.IOException {
      log.flush();
      copy.flush();
    }

    @Override
    public void close() throws java.io.IOException {
      flush();
    }
  }
}
