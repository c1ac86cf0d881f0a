package dev.dptext.job.command;

import dev.dptext.job.base.Version;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The job's command line without a command: {@code dptext --help}, {@code --version}, and the error
 * that names the commands ({@link Commands} adds them as subcommands).
 */
@Command(name = "dptext", mixinStandardHelpOptions = true, versionProvider = Version.class,
    description = "Differentially private text sanitization on Spark.")
final class RootCommand implements Runnable {

  /** The command line this object was run by, with its subcommands (a new CommandLine of it would have none). */
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Name a command: "
        + String.join(", ", spec.subcommands().keySet()));
  }
}
