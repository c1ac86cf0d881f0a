package dev.dptext.job.evaluate;

import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.job.base.JobException;
import dev.dptext.job.read.DataFormat;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The labelled table an evaluation reads: path, format, columns and how many rows
 * ({@code evaluate utility} and {@code evaluate mia} take it from their options).
 *
 * @param input the table's path
 * @param inputFormat its format, or null to guess it from the extension
 * @param textColumn the text
 * @param labelColumn the label: a column with exactly two distinct values
 * @param positiveLabel which of them is the positive class, or null for {@link #POSITIVE_RULE}
 * @param idColumn a stable unique id (keys the split and each row's noise)
 * @param rows how many rows to use; 0 = all
 */
public record LabelledTable(String input, String inputFormat, String textColumn, String labelColumn,
    String positiveLabel, String idColumn, long rows) {
  /** How the positive class is chosen without --positive-label. */
  public static final String POSITIVE_RULE = "1 or true when the values are 0/1 or false/true, else the larger value "
      + "(numerically when both are numbers, else alphabetically: spam of ham/spam, positive of negative/positive)";

  public DownstreamUtility.Columns columns() {
    return new DownstreamUtility.Columns(textColumn, labelColumn, idColumn);
  }

  /**
   * The id, text and label columns of the rows with a text and a label, at most {@link #rows} of them; the
   * label column holds 1.0 for the positive class and 0.0 for the other.
   */
  public Dataset<Row> read(SparkSession spark, long seed) {
    DataFormat format = inputFormat != null ? DataFormat.parse(inputFormat) : DataFormat.guess(input);
    if (format == null) {
      throw JobException.of("LABELLED_FORMAT_UNKNOWN", "input", input);
    }
    Dataset<Row> data = spark.read().format(format.sparkName()).option("header", "true").load(input);
    for (String c : List.of(textColumn, labelColumn, idColumn)) {
      if (!List.of(data.columns()).contains(c)) {
        throw JobException.of("LABELLED_COLUMN_MISSING", "column", c, "input", input, "columns", List.of(data.columns()));
      }
    }
    data = data.select(idColumn, textColumn, labelColumn).where(functions.col(textColumn).isNotNull()
        .and(functions.col(labelColumn).isNotNull()));
    data = binaryLabel(data);
    if (rows > 0) {
      data = data.orderBy(functions.sha2(functions.concat_ws("/", functions.lit("rows/" + seed),
          functions.col(idColumn).cast("string")), 256)).limit((int) Math.min(Integer.MAX_VALUE, rows));
    }
    return data;
  }

  /** The label column as 1.0 (the positive value) and 0.0, or a usage error unless it has exactly two values. */
  private Dataset<Row> binaryLabel(Dataset<Row> data) {
    List<String> values = data.select(functions.col(labelColumn).cast("string")).distinct().limit(3)
        .collectAsList().stream().map(r -> r.getString(0)).sorted().toList();
    if (values.size() != 2) {
      long distinct = values.size() < 3 ? values.size()
          : data.select(functions.col(labelColumn)).distinct().count();
      throw JobException.of("LABEL_NOT_BINARY", "column", labelColumn, "input", input, "distinct", distinct
          + " distinct value" + (distinct == 1 ? "" : "s") + (values.isEmpty() ? "" : " (" + String.join(", ",
              values.subList(0, Math.min(3, values.size()))) + (distinct > 3 ? ", …" : "") + ")"));
    }
    String positive = positiveLabel != null ? positiveLabel : positive(values.get(0), values.get(1));
    if (!values.contains(positive)) {
      throw JobException.of("POSITIVE_LABEL_UNKNOWN", "label", positive, "column", labelColumn, "first", values.get(0),
          "second", values.get(1));
    }
    return data.withColumn(labelColumn, functions.when(functions.col(labelColumn).cast("string")
        .equalTo(functions.lit(positive)), 1.0).otherwise(0.0));
  }

  /** The default positive value of two ({@link #POSITIVE_RULE}). */
  static String positive(String a, String b) {
    String la = a.strip().toLowerCase(java.util.Locale.ROOT);
    String lb = b.strip().toLowerCase(java.util.Locale.ROOT);
    if (List.of(la, lb).containsAll(List.of("false", "true"))) {
      return la.equals("true") ? a : b;
    }
    try {
      return Double.parseDouble(a) >= Double.parseDouble(b) ? a : b;
    } catch (NumberFormatException e) {
      return a.compareTo(b) >= 0 ? a : b;
    }
  }
}
