package dev.dptext.job;

import java.util.Locale;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Output formats (Delta or Parquet): reading, existence, and small files next to the output. */
final class OutputFormat {
  private OutputFormat() {}

  static String sqlString(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  static String toJson(Object value) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code text} to a file on any Hadoop file system, replacing it. */
  static void writeText(SparkSession spark, String path, String text) {
    try {
      Path p = new Path(path);
      try (java.io.OutputStream out = p.getFileSystem(spark.sparkContext().hadoopConfiguration()).create(p, true)) {
        out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    } catch (java.io.IOException e) {
      throw new JobException(ExitCode.FAILURE, "Cannot write " + path + ": " + e.getMessage());
    }
  }

  static Dataset<Row> read(SparkSession spark, String path, String format) {
    return spark.read().format(checkFormat(format)).load(path);
  }

  static boolean isDeltaTable(SparkSession spark, String path) {
    return exists(spark, path.replaceAll("/+$", "") + "/_delta_log");
  }

  static boolean exists(SparkSession spark, String path) {
    try {
      Path p = new Path(path);
      return p.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(p);
    } catch (java.io.IOException e) {
      throw new JobException(ExitCode.INPUT, "Cannot access " + path + ": " + e.getMessage());
    }
  }

  static String checkFormat(String format) {
    String f = format.toLowerCase(Locale.ROOT);
    if (!f.equals("delta") && !f.equals("parquet")) {
      throw new JobException(ExitCode.USAGE, "Unknown --output-format '" + format + "'; use delta or parquet");
    }
    return f;
  }
}
