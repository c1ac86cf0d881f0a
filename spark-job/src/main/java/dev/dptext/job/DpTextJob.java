package dev.dptext.job;

import dev.dptext.errors.Catalogued;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.MissingClass;
import dev.dptext.job.command.Commands;
import java.util.concurrent.atomic.AtomicReference;
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
   * error writer ({@link DatabricksTask} keeps the error message for its exception), and returns its exit code.
   */
  static int execute(CommandLine cli, String... args) {
    return run(cli, args).exit().code;
  }

  /**
   * Runs the job on {@code cli} ({@link #execute(CommandLine, String...)}) and returns how it ended: a refusal
   * (an error of the catalogue, the job's or the library's) is one {@code dptext:} line on the
   * error writer and its category's exit code; anything else is an unexpected failure, exit 1.
   */
  static JobOutcome run(CommandLine cli, String... args) {
    AtomicReference<JobOutcome> refused = new AtomicReference<>();
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof Catalogued) {
        cmd.getErr().println("dptext: " + e.getMessage());
        refused.set(JobOutcome.of(e));
        return refused.get().exit().code;
      }
      cmd.getErr().println("dptext: failed: " + e.getClass().getName() + ": "
          + JobException.firstLine(e.getMessage()));
      throw e;
    });
    cli.setExitCodeExceptionMapper(e -> e instanceof CommandLine.ParameterException ? ExitCode.USAGE.code
        : JobOutcome.of(e).exit().code);
    try {
      Commands.applyConfigFile(cli, args);
    } catch (JobException e) {
      cli.getErr().println("dptext: " + e.getMessage());
      return JobOutcome.of(e);
    }
    int code;
    try {
      code = cli.execute(args);
    } catch (NoClassDefFoundError e) {
      JobException missing = MissingClass.command(e);
      cli.getErr().println("dptext: " + missing.getMessage());
      return JobOutcome.of(missing);
    }
    JobOutcome outcome = refused.get();
    return outcome != null && outcome.exit().code == code ? outcome : JobOutcome.ofCode(code);
  }
}
