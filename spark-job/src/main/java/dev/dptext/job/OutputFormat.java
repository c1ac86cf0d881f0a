package dev.dptext.job;

import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Writing the sanitized table (Delta or Parquet) and counting what was written. */
final class OutputFormat {
  private static final Set<String> MODES = Set.of("errorifexists", "overwrite", "append");

  private OutputFormat() {}

  static void write(Dataset<Row> df, String path, String format, String mode) {
    write(df, path, format, mode, java.util.Map.of());
  }

  /**
   * Writes the output; for Delta, {@code audit} goes into the commit's userMetadata (so the table
   * history says which guarantee each version's rows carry) and into the table properties.
   */
  static void write(Dataset<Row> df, String path, String format, String mode, java.util.Map<String, String> audit) {
    String f = checkFormat(format);
    String m = mode.toLowerCase(Locale.ROOT);
    if (!MODES.contains(m)) {
      throw new JobException(ExitCode.USAGE, "Unknown --mode '" + mode + "'; use errorifexists, overwrite or append");
    }
    if (m.equals("errorifexists") && exists(df.sparkSession(), path)) {
      throw new JobException(ExitCode.USAGE,
          "Output " + path + " already exists; pass --mode overwrite or append, or another --output");
    }
    org.apache.spark.sql.DataFrameWriter<Row> writer = df.write().format(f).mode(m);
    if (f.equals("delta") && !audit.isEmpty()) {
      writer = writer.option("userMetadata", toJson(audit));
    }
    writer.save(path);
    if (f.equals("delta") && !audit.isEmpty()) {
      StringBuilder props = new StringBuilder();
      for (java.util.Map.Entry<String, String> e : audit.entrySet()) {
        props.append(props.length() == 0 ? "" : ", ").append(sqlString(e.getKey())).append(" = ")
            .append(sqlString(e.getValue()));
      }
      df.sparkSession().sql("ALTER TABLE " + deltaPathIdentifier(df.sparkSession(), path) + " SET TBLPROPERTIES (" + props + ")");
    }
  }

  /**
   * {@code delta.`<path>`} for SQL. The path is qualified first (scheme, absolute): Delta reads
   * {@code delta.`x`} as a path only when x is absolute, so a relative {@code --output} such as
   * {@code target/out} would otherwise be looked up as a table and not found.
   */
  private static String deltaPathIdentifier(SparkSession spark, String path) {
    try {
      Path p = new Path(path);
      String q = p.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(p).toString();
      return "delta.`" + q.replace("`", "``") + "`";
    } catch (java.io.IOException e) {
      throw new JobException(ExitCode.INPUT, "Cannot access " + path + ": " + e.getMessage());
    }
  }

  private static String sqlString(String s) {
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

  /** Rows now in the output that this run wrote: the whole output unless appending. */
  static long countWritten(SparkSession spark, String path, String format, String mode, long rowsIn) {
    String f = checkFormat(format);
    if (mode.equalsIgnoreCase("append")) {
      if (f.equals("delta")) {
        // The last WRITE commit's metrics say how many rows this append added (the very last
        // commit is the ALTER TABLE that records the audit properties, which has no row count).
        Row last = spark.sql("DESCRIBE HISTORY " + deltaPathIdentifier(spark, path))
            .where("operation = 'WRITE'").orderBy(org.apache.spark.sql.functions.desc("version"))
            .select("operationMetrics").first();
        scala.collection.Map<String, String> metrics = last.getMap(0);
        return Long.parseLong(metrics.get("numOutputRows").getOrElse(() -> "-1"));
      }
      return rowsIn; // Parquet appends leave no per-run record to check against
    }
    return read(spark, path, format).count();
  }

  static Dataset<Row> read(SparkSession spark, String path, String format) {
    return spark.read().format(checkFormat(format)).load(path);
  }

  static boolean isDeltaTable(SparkSession spark, String path) {
    return exists(spark, path.replaceAll("/+$", "") + "/_delta_log");
  }

  private static boolean exists(SparkSession spark, String path) {
    try {
      Path p = new Path(path);
      return p.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(p);
    } catch (java.io.IOException e) {
      throw new JobException(ExitCode.INPUT, "Cannot access " + path + ": " + e.getMessage());
    }
  }

  private static String checkFormat(String format) {
    String f = format.toLowerCase(Locale.ROOT);
    if (!f.equals("delta") && !f.equals("parquet")) {
      throw new JobException(ExitCode.USAGE, "Unknown --output-format '" + format + "'; use delta or parquet");
    }
    return f;
  }
}
