package dev.dptext.job;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The dptext job: {@code sanitize}, {@code build-model}, {@code privacy-stats}, {@code calibrate},
 * {@code evaluate} and {@code tune}. Run it with spark-submit (the shaded jar)
 * or locally with {@code scripts/dptext}. Exit codes: see {@link ExitCode}.
 */
@Command(name = "dptext", mixinStandardHelpOptions = true, versionProvider = Version.class,
    description = "Differentially private text sanitization on Spark.")
public final class DpTextJob implements Runnable {

  /**
   * The commands, in the order the help lists them. Not in the annotation's {@code subcommands}: picocli
   * builds every listed command's model (and each one's options from the settings table) when the
   * command line is made, which is start-up time of every run; {@link #commandLine(String...)} builds
   * only the command that runs.
   */
  static final List<Class<?>> COMMANDS = List.of(SanitizeCommand.class, BuildModelCommand.class,
      PrivacyStatsCommand.class, CalibrateCommand.class, EvaluateCommand.class, TuneCommand.class);

  @Override
  public void run() {
    CommandLine cli = new CommandLine(this);
    throw new CommandLine.ParameterException(cli, "Name a command: " + String.join(", ", cli.getSubcommands().keySet()));
  }

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

  /**
   * The job's command line: every command of {@link #COMMANDS}, plus, for each command that takes
   * settings, one option per setting of the table ({@link SettingOptions}).
   */
  static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command line for these arguments: when the first names a command, only that command (parsing
   * and running it need no other; ~0.1 s less start-up), else every command (for the help, the version
   * and the error that names the commands).
   */
  static CommandLine commandLine(String... args) {
    CommandLine cli = new CommandLine(new DpTextJob());
    String first = args.length > 0 ? args[0] : null;
    boolean named = COMMANDS.stream().anyMatch(c -> name(c).equals(first));
    for (Class<?> c : COMMANDS) {
      if (!named || name(c).equals(first)) {
        cli.addSubcommand(name(c), c);
      }
    }
    addSettingOptions(cli);
    return cli;
  }

  private static String name(Class<?> command) {
    return command.getAnnotation(Command.class).name();
  }

  private static void addSettingOptions(CommandLine command) {
    for (CommandLine sub : command.getSubcommands().values()) {
      if (sub.getCommand() instanceof SettingOptions.Command c) {
        SettingOptions.addTo(sub.getCommandSpec(), c.settings());
      }
      addSettingOptions(sub);
    }
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
      cmd.getErr().println("dptext: failed: " + e.getClass().getName() + ": "
          + JobException.firstLine(e.getMessage()));
      throw e;
    });
    cli.setExitCodeExceptionMapper(e -> e instanceof JobException je ? je.exitCode.code
        : e instanceof CommandLine.ParameterException ? ExitCode.USAGE.code : ExitCode.FAILURE.code);
    try {
      applyConfigFile(cli, args);
    } catch (JobException e) {
      cli.getErr().println("dptext: " + e.getMessage());
      return e.exitCode.code;
    }
    return cli.execute(args);
  }

  /** Finds the subcommand and its --config file in the arguments and installs it as defaults. */
  private static void applyConfigFile(CommandLine cli, String[] args) {
    List<String> a = List.of(args);
    if (a.isEmpty() || !cli.getSubcommands().containsKey(a.get(0))) {
      return;
    }
    CommandLine sub = cli.getSubcommands().get(a.get(0));
    for (int i = 1; i < a.size(); i++) {
      String arg = a.get(i);
      String value = null;
      if ((arg.equals("-c") || arg.equals("--config")) && i + 1 < a.size()) {
        value = a.get(i + 1);
      } else if (arg.startsWith("--config=")) {
        value = arg.substring("--config=".length());
      }
      if (value != null) {
        ConfigFile file = ConfigFile.load(Path.of(value));
        file.validateAgainst(sub.getCommandSpec());
        sub.setDefaultValueProvider(file);
      }
    }
  }
}
