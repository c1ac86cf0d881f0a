package dev.dptext.job.command;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code evaluate}: the papers' yardsticks on the user's own data. */
@Command(name = "evaluate", mixinStandardHelpOptions = true, subcommands = {EvaluateUtilityCommand.class, EvaluateMiaCommand.class},
    description = "Evaluate mechanisms on your data: which mechanism and ε keep an analysis useful.")
final class EvaluateCommand implements Runnable {
  @Override
  public void run() {
    CommandLine cli = new CommandLine(this);
    throw new CommandLine.ParameterException(cli, "Name what to evaluate: "
        + String.join(", ", cli.getSubcommands().keySet()));
  }
}
