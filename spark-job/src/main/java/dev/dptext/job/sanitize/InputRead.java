package dev.dptext.job.sanitize;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import java.util.Arrays;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The input of a {@code sanitize} run as read, batch or stream, with the columns the run sanitizes.
 *
 * @param table the input table (accepted and rejected rows)
 * @param format its format
 * @param readOptions the reader's options, as the run read it (the user's, the in-place or stream source's,
 *     the ledger's snapshot)
 * @param text the text column: {@code --text-column}, or {@code value} for a text file when the default
 *     {@code text} is not a column
 * @param out the sanitized column: {@code --output-column}, else the text column
 */
public record InputRead(InputTable table, DataFormat format, Map<String, String> readOptions, String text,
    String out) {

  /** Reads the input of {@code r}, as a batch ({@code stream} false) or as a stream. */
  public static InputRead of(SparkSession spark, SanitizeRequest r, RunSettings settings, DataFormat format,
      Map<String, String> readOptions, boolean stream) {
    String text = r.columns().text();
    InputTable table = read(spark, r, format, readOptions, settings.idColumn(), text, stream);
    // A text file has one column, "value": the default --text-column names it by Spark's name.
    if (format == DataFormat.TEXT && text.equals("text") && !Arrays.asList(table.all().columns()).contains("text")) {
      text = "value";
      table = read(spark, r, format, readOptions, null, text, stream);
    }
    return new InputRead(table, format, readOptions, text, r.columns().output() == null ? text : r.columns().output());
  }

  private static InputTable read(SparkSession spark, SanitizeRequest r, DataFormat format,
      Map<String, String> readOptions, String idColumn, String text, boolean stream) {
    SanitizeRequest.Source s = r.source();
    return stream
        ? InputTable.readStream(spark, s.path(), format, readOptions, s.schema(), r.sink().where(), idColumn, text)
        : InputTable.read(spark, s.path(), format, readOptions, s.schema(), r.sink().where(), idColumn, text);
  }

  /** Checks that the input has the text column (and the id column), as the sanitizer needs them. */
  public void validate(RunSettings settings) {
    try {
      settings.builder().validate(table.schema(), text);
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    }
  }

  /** The failure for an input with rejected records, naming how it was read. */
  public JobException failure(InputTable.Counts counts, SanitizeRequest r) {
    return InputTable.failure(counts, r.input(), format, readOptions);
  }
}
