package dev.dptext.job;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.command.Commands;
import picocli.CommandLine;

/**
 * The dptext job's {@code main}: {@code sanitize}, {@code build-model}, {@code privacy-stats},
 * {@code calibrate}, {@code evaluate}, {@code tune} and {@code ledger}. Run it with spark-submit (the
 * shaded jar) or locally with {@code scripts/dptext}. Exit codes: see {@link ExitCode}. The commands, and
 * how the command line is built: {@link Commands}.
 */
public final class DpTextJob {
  private DpTextJob() {}

  public static void main(String[] args) {
    int code = execute(args);
    System.exit(code);
  }

  /** Runs the job and returns its exit code (the Spark session is left for the caller). */
  public static int execute(String... args) {
    return execute(commandLine(args), args);
  }

  /**
   * Runs the job in {@code spark} (classic, or a Spark Connect client) instead of the session the job
   * would build, and returns its exit code; the session is left for the caller.
   */
  public static int execute(org.apache.spark.sql.SparkSession spark, String... args) {
    return JobSession.using(spark, () -> execute(args));
  }

  /** The job's command line for these arguments ({@link Commands#commandLine(String...)}). */
  static CommandLine commandLine(String... args) {
    return Commands.commandLine(args);
  }

  /**
   * Runs the job on {@code cli}, a command line of this class that the caller may have given its own
   * error writer ({@link DatabricksTask} keeps the error message for its exception).
   */
  static int execute(CommandLine cli, String... args) {
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof JobException je) {
        cmd.getErr().println("dptext: " + je.getMessage());
        return je.exitCode.code;
      }
      if (e instanceof dev.dptext.errors.DpTextException d) { // the library's catalogued refusal: its category's code
        cmd.getErr().println("dptext: " + d.getMessage());
        return d.exit().code;
      }
      if (e instanceof dev.dptext.runtime.Storage.Unreachable u) {
        cmd.getErr().println("dptext: " + u.getMessage()); // a path this deployment cannot reach: usage
        return ExitCode.USAGE.code;
      }
      cmd.getErr().println("dptext: failed: " + e.getClass().getName() + ": "
          + JobException.firstLine(e.getMessage()));
      throw e;
    });
    cli.setExitCodeExceptionMapper(e -> e instanceof JobException je ? je.exitCode.code
        : e instanceof dev.dptext.errors.DpTextException d ? d.exit().code
        : e instanceof CommandLine.ParameterException ? ExitCode.USAGE.code : ExitCode.FAILURE.code);
    try {
      Commands.applyConfigFile(cli, args);
    } catch (JobException e) {
      cli.getErr().println("dptext: " + e.getMessage());
      return e.exitCode.code;
    }
    try {
      return cli.execute(args);
    } catch (NoClassDefFoundError e) {
      cli.getErr().println("dptext: " + missingClass(e));
      return ExitCode.USAGE.code;
    }
  }

  /**
   * A class this program's classpath lacks, found while a command ran (picocli lets errors through): a deployment
   * whose classpath is not what the code needs here, e.g. a Spark Connect client's alone (a Databricks serverless
   * JAR task's: no Hadoop, no netlib BLAS or LAPACK). One line naming the class and where dptext needed it, and
   * exit 2 (a configuration: retrying does not help), instead of a stack trace.
   */
  static String missingClass(NoClassDefFoundError e) {
    String where = "";
    for (StackTraceElement f : e.getStackTrace()) {
      if (f.getClassName().startsWith("dev.dptext.")) {
        where = " in " + f.getClassName() + "." + f.getMethodName();
        break;
      }
    }
    return "this program's classpath lacks the class " + String.valueOf(e.getMessage()).replace('/', '.')
        + " (NoClassDefFoundError" + where + "), which this command needs here. A Spark Connect client's classpath "
        + "alone (a Databricks serverless JAR task's) holds only the client's libraries and dptext's jar: run this "
        + "command with a classic Spark session";
  }
}
