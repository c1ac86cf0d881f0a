package dev.dptext.job.write;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import java.util.Locale;
import dev.dptext.runtime.Storage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Output formats (Delta or Parquet): reading, existence, and small files next to the output. */
public final class OutputFormat {
  private OutputFormat() {}

  public static String sqlString(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  public static String toJson(Object value) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code text} to a file wherever the driver program reaches it ({@link Storage}), replacing it. */
  public static void writeText(SparkSession spark, String path, String text) {
    try {
      try (java.io.OutputStream out = Storage.of(spark, path).create(path, true)) {
        out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    } catch (java.io.IOException e) {
      throw JobException.of(e, "OUTPUT_NOT_WRITABLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
  }

  public static Dataset<Row> read(SparkSession spark, String path, String format) {
    if (TableName.is(spark, path)) {
      return spark.read().table(path);
    }
    return spark.read().format(checkFormat(format)).load(path);
  }

  /** Above this many data files {@link #parquetRows} leaves the count to Spark, which reads footers in parallel. */
  static final int FOOTER_COUNT_LIMIT = 32;

  /**
   * The rows of the Parquet table (a directory) at {@code path}: what Spark's {@code count()} of it
   * returns. For a directory of at most {@link #FOOTER_COUNT_LIMIT} data files and no subdirectories (a
   * run's own output) the sum of the row counts in the files' footers, read here: the same files
   * Spark would read (names starting with {@code _} or {@code .} are not data), without the two Spark
   * jobs of a count (half a second of a small run). Otherwise, or when a footer cannot be read,
   * Spark's count, which then fails or counts as it always did.
   */
  static long parquetRows(SparkSession spark, String path) {
    java.util.OptionalLong footers = footerRows(spark, path);
    return footers.isPresent() ? footers.getAsLong() : read(spark, path, "parquet").count();
  }

  private static java.util.OptionalLong footerRows(SparkSession spark, String path) {
    // The footers are read with Hadoop's Parquet reader: only where Hadoop is (a classic session, or a client
    // that has it); elsewhere Spark counts.
    if (dev.dptext.classic.Classic.is(spark) || Storage.HADOOP_ON_CLASSPATH) {
      return dev.dptext.job.hadoop.ParquetFooters.rows(spark, path, FOOTER_COUNT_LIMIT);
    }
    return java.util.OptionalLong.empty();
  }

  public static boolean isDeltaTable(SparkSession spark, String path) {
    return exists(spark, path.replaceAll("/+$", "") + "/_delta_log");
  }

  static boolean exists(SparkSession spark, String path) {
    try {
      return Storage.of(spark, path).exists(path);
    } catch (java.io.IOException e) {
      throw JobException.of(e, "PATH_NOT_ACCESSIBLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
  }

  public static String checkFormat(String format) {
    String f = format.toLowerCase(Locale.ROOT);
    if (!f.equals("delta") && !f.equals("parquet")) {
      throw JobException.of("OUTPUT_FORMAT_UNKNOWN", "format", format);
    }
    return f;
  }
}
