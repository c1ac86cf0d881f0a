package dev.dptext.job.command;

import picocli.CommandLine.Option;

/** The columns {@code sanitize} reads and writes: the text, where its sanitized form goes, the row id. */
final class ColumnOptions {
  @Option(names = "--text-column", paramLabel = "NAME", defaultValue = "text",
      description = "The string column to sanitize. Default: ${DEFAULT-VALUE} ('value' for text input).")
  String textColumn;

  @Option(names = "--output-column", paramLabel = "NAME",
      description = "Where the sanitized text goes. Default: replace the text column.")
  String outputColumn;

  @Option(names = "--id-column", paramLabel = "NAME",
      description = "A stable, unique row id that keys each row's randomness (recommended; with --id-mode column, "
          + "the default).")
  String idColumn;
}
