package dev.dptext.job.command;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE}, mixed into every command, so that each one takes its options from a file in the same
 * format and by the same rules ({@link ConfigFile}: keys are the long option names; the command line wins; an
 * unknown key is an error). Picocli only declares the option: {@link Commands#applyConfigFile} reads the file
 * before the command line is parsed, because its values are the defaults the parse falls back on.
 */
final class ConfigOptions {
  /** The option's names, which {@link Commands#applyConfigFile} looks for among the arguments. */
  static final String LONG = "--config";
  static final String SHORT = "-c";

  @Option(names = {SHORT, LONG}, paramLabel = "FILE",
      description = "Properties file of option defaults: keys are the long option names without dashes "
          + "(epsilon = 3); options given on the command line override it; an unknown key is an error.")
  Path file;
}
