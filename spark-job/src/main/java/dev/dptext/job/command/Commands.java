package dev.dptext.job.command;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The job's commands and its command line: which commands there are, in help order, and what picocli
 * does not take from their annotations (each command's settings options, the grid defaults of the
 * evaluation commands, a {@code --config} file's defaults).
 */
public final class Commands {
  private Commands() {}

  /**
   * The commands, in the order the help lists them. Not in the root's {@code subcommands}: picocli
   * builds every listed command's model (and each one's options from the settings table) when the
   * command line is made, which is start-up time of every run; {@link #commandLine(String...)} builds
   * only the command that runs.
   */
  public static final List<Class<?>> ALL = List.of(SanitizeCommand.class, BuildModelCommand.class,
      PrivacyStatsCommand.class, CalibrateCommand.class, EvaluateCommand.class, TuneCommand.class,
      LedgerCommand.class);

  /**
   * The job's command line: every command of {@link #ALL}, plus, for each command that takes
   * settings, one option per setting of the table ({@link SettingOptions}).
   */
  public static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command line for these arguments: when the first names a command, only that command (parsing
   * and running it need no other; ~0.1 s less start-up), else every command (for the help, the version
   * and the error that names the commands).
   */
  public static CommandLine commandLine(String... args) {
    CommandLine cli = new CommandLine(new RootCommand());
    String first = args.length > 0 ? args[0] : null;
    boolean named = ALL.stream().anyMatch(c -> name(c).equals(first));
    for (Class<?> c : ALL) {
      if (!named || name(c).equals(first)) {
        cli.addSubcommand(name(c), c);
      }
    }
    complete(cli);
    return cli;
  }

  private static String name(Class<?> command) {
    return command.getAnnotation(Command.class).name();
  }

  /**
   * What the annotations leave to be added, for every command under {@code command}: the options of its
   * settings, and the defaults of its evaluation grid.
   */
  private static void complete(CommandLine command) {
    for (CommandLine sub : command.getSubcommands().values()) {
      if (sub.getCommand() instanceof SettingOptions.Command c) {
        SettingOptions.addTo(sub.getCommandSpec(), c.settings());
      }
      if (sub.getCommand() instanceof EvaluationGrid.Host h) {
        EvaluationGrid.addDefaults(sub.getCommandSpec(), h.gridDefaults());
      }
      complete(sub);
    }
  }

  /**
   * Installs the {@code --config} file of the command that runs as that command's defaults, checked against
   * its options; before the arguments are parsed, so that picocli falls back on the file's values for the
   * options not given (the command line wins) and counts a required option the file gives as given. The
   * command is found as picocli will: the leading arguments that name a command, then a subcommand
   * ({@code evaluate utility}). A command without the option (the {@link ConfigOptions} mixin) is left to
   * picocli, which refuses {@code --config} as an unknown option.
   */
  public static void applyConfigFile(CommandLine cli, String[] args) {
    CommandLine command = cli;
    int i = 0;
    while (i < args.length && command.getSubcommands().containsKey(args[i])) {
      command = command.getSubcommands().get(args[i++]);
    }
    if (command == cli || command.getCommandSpec().findOption(ConfigOptions.LONG) == null) {
      return;
    }
    for (; i < args.length; i++) {
      String value = null;
      if ((args[i].equals(ConfigOptions.SHORT) || args[i].equals(ConfigOptions.LONG)) && i + 1 < args.length) {
        value = args[++i];
      } else if (args[i].startsWith(ConfigOptions.LONG + "=")) {
        value = args[i].substring(ConfigOptions.LONG.length() + 1);
      }
      if (value != null) {
        ConfigFile file = ConfigFile.load(Path.of(value));
        file.validateAgainst(command.getCommandSpec());
        command.setDefaultValueProvider(file);
      }
    }
  }

  /** The command as typed, quoted so that it can be pasted back into a shell (for the reports). */
  static String asTyped(CommandSpec spec) {
    List<String> words = new ArrayList<>(List.of("dptext"));
    words.addAll(spec.root().commandLine().getParseResult().originalArgs());
    return dev.dptext.report.ReportPage.shellCommand(words);
  }
}
