package dev.dptext.job.command;

import dev.dptext.job.evaluate.LabelledTable;
import picocli.CommandLine.Option;

/** The labelled table an evaluation reads: path, format, columns and how many rows. */
final class LabelledTableOptions {
  @Option(names = "--input", required = true, paramLabel = "PATH", description = "A labelled table.")
  String input;

  @Option(names = "--input-format", paramLabel = "FORMAT",
      description = "csv, json, parquet or delta. Default: guessed from the extension.")
  String inputFormat;

  @Option(names = "--text-column", paramLabel = "NAME", defaultValue = "text", description = "Default: ${DEFAULT-VALUE}.")
  String textColumn;

  @Option(names = "--label-column", paramLabel = "NAME", defaultValue = "label",
      description = "The label: a column with exactly two distinct values (0/1, true/false, ham/spam, …; rows "
          + "without a label are left out). Default: ${DEFAULT-VALUE}.")
  String labelColumn;

  @Option(names = "--positive-label", paramLabel = "VALUE",
      description = "Which of the label's two values is the positive class (for the AUC). Default: "
          + LabelledTable.POSITIVE_RULE + ".")
  String positiveLabel;

  @Option(names = "--id-column", paramLabel = "NAME", defaultValue = "id",
      description = "A stable unique id (keys the split and each row's noise). Default: ${DEFAULT-VALUE}.")
  String idColumn;

  @Option(names = "--rows", paramLabel = "N", defaultValue = "0",
      description = "Use N rows (chosen by a hash of the seed and the id, so reproducibly); 0 = all. Default: ${DEFAULT-VALUE}.")
  long rows;

  /** The table these options name. */
  LabelledTable table() {
    return new LabelledTable(input, inputFormat, textColumn, labelColumn, positiveLabel, idColumn, rows);
  }
}
