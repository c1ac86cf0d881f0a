package dev.dptext.job;

import dev.dptext.evaluation.DownstreamUtility;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine.Option;

/** The labelled table an evaluation reads: path, format, columns and how many rows. */
final class LabelledTable {
  @Option(names = "--input", required = true, paramLabel = "PATH", description = "A labelled table.")
  String input;

  @Option(names = "--input-format", paramLabel = "FORMAT",
      description = "csv, json, parquet or delta. Default: guessed from the extension.")
  String inputFormat;

  @Option(names = "--text-column", paramLabel = "NAME", defaultValue = "text", description = "Default: ${DEFAULT-VALUE}.")
  String textColumn;

  @Option(names = "--label-column", paramLabel = "NAME", defaultValue = "label",
      description = "A binary label (0/1). Default: ${DEFAULT-VALUE}.")
  String labelColumn;

  @Option(names = "--id-column", paramLabel = "NAME", defaultValue = "id",
      description = "A stable unique id (keys the split and each row's noise). Default: ${DEFAULT-VALUE}.")
  String idColumn;

  @Option(names = "--rows", paramLabel = "N", defaultValue = "0",
      description = "Use N rows (chosen by a hash of the seed and the id, so reproducibly); 0 = all. Default: ${DEFAULT-VALUE}.")
  long rows;

  DownstreamUtility.Columns columns() {
    return new DownstreamUtility.Columns(textColumn, labelColumn, idColumn);
  }

  /** The id, text and label columns of the rows with a text, at most {@link #rows} of them. */
  Dataset<Row> read(SparkSession spark, long seed) {
    DataFormat format = inputFormat != null ? DataFormat.parse(inputFormat) : DataFormat.guess(input);
    if (format == null) {
      throw new JobException(ExitCode.USAGE, "Cannot tell the format of " + input + "; pass --input-format");
    }
    Dataset<Row> data = spark.read().format(format.sparkName()).option("header", "true").load(input);
    for (String c : List.of(textColumn, labelColumn, idColumn)) {
      if (!List.of(data.columns()).contains(c)) {
        throw new JobException(ExitCode.INPUT, "The column '" + c + "' is not in " + input + "; its columns are "
            + List.of(data.columns()));
      }
    }
    data = data.select(idColumn, textColumn, labelColumn).where(functions.col(textColumn).isNotNull());
    if (rows > 0) {
      data = data.orderBy(functions.sha2(functions.concat_ws("/", functions.lit("rows/" + seed),
          functions.col(idColumn).cast("string")), 256)).limit((int) Math.min(Integer.MAX_VALUE, rows));
    }
    return data;
  }
}
