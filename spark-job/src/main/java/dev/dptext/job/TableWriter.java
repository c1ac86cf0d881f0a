package dev.dptext.job;

import io.delta.tables.DeltaTable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;

/**
 * Writes a run's rows to the output table in a {@link WriteMode} and reports what landed, from the
 * Delta commit's own metrics (so the rows-in = rows-out check compares against what was committed,
 * not against a re-read that a concurrent writer could change).
 *
 * <p>Idempotence: Delta records {@code (txnAppId, txnVersion)} in the commit; a later write with the
 * same pair is skipped by Delta itself. {@link #alreadyCommitted} checks this before any work, and
 * refuses a LOWER version (Delta would skip it silently, so a backfill would vanish) with a pointer to
 * {@code replace-where} and {@code merge}, the modes meant for backfills.
 */
final class TableWriter {
  /** Delta's session conf for a commit's userMetadata; MERGE has no writer option for it. */
  private static final String USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata";

  /** Where and how to write; validated before any data is read. */
  record Target(String path, String format, WriteMode mode, String where, List<String> mergeKeys,
      String txnAppId, Long txnVersion) {

    Target {
      format = OutputFormat.checkFormat(format);
      boolean delta = format.equals("delta");
      if (mode.needsDelta() && !delta) {
        throw new JobException(ExitCode.USAGE, "--mode " + mode.label + " needs --output-format delta");
      }
      if (mode == WriteMode.REPLACE_WHERE && (where == null || where.isBlank())) {
        throw new JobException(ExitCode.USAGE, "--mode replace-where needs --where PREDICATE naming the "
            + "rows to replace, e.g. --where \"event_date = '2026-11-21'\"");
      }
      if (mode == WriteMode.MERGE && mergeKeys.isEmpty()) {
        throw new JobException(ExitCode.USAGE, "--mode merge needs a key: --merge-key COLUMN[,COLUMN] or --id-column");
      }
      if ((txnAppId == null) != (txnVersion == null)) {
        throw new JobException(ExitCode.USAGE, "--txn-app-id and --txn-version go together; give both or neither");
      }
      if (txnAppId != null) {
        if (!delta) {
          throw new JobException(ExitCode.USAGE, "--txn-app-id/--txn-version need --output-format delta");
        }
        if (mode == WriteMode.MERGE || mode == WriteMode.ERROR_IF_EXISTS) {
          throw new JobException(ExitCode.USAGE, "--txn-app-id/--txn-version apply to --mode append, overwrite "
              + "or replace-where (merge is idempotent by key already)");
        }
        if (txnVersion < 0) {
          throw new JobException(ExitCode.USAGE, "--txn-version must be ≥ 0, got " + txnVersion);
        }
      }
    }

    boolean delta() {
      return format.equals("delta");
    }
  }

  /** What a write did: rows committed (for MERGE: inserted + updated), and the table version. */
  record Result(long rowsWritten, long version) {}

  private TableWriter() {}

  /**
   * A message when this run's {@code (txnAppId, txnVersion)} is already committed to the output, so
   * the run has nothing to do; empty otherwise.
   *
   * @throws JobException (usage) when the table holds a HIGHER version for the app id: Delta would skip
   *     this write silently
   */
  static Optional<String> alreadyCommitted(SparkSession spark, Target t) {
    if (t.txnAppId() == null || !DeltaTable.isDeltaTable(spark, t.path())) {
      return Optional.empty();
    }
    scala.Option<Object> recorded = DeltaLog.forTable(spark, t.path())
        .update(false, scala.Option.empty(), scala.Option.empty()).transactions().get(t.txnAppId());
    if (recorded.isEmpty()) {
      return Optional.empty();
    }
    long v = (Long) recorded.get();
    if (v == t.txnVersion()) {
      return Optional.of("Nothing to do: " + t.path() + " already holds the commit of --txn-app-id " + t.txnAppId()
          + " --txn-version " + v + " (an earlier run of this job); nothing was read or written");
    }
    if (v > t.txnVersion()) {
      throw new JobException(ExitCode.USAGE, t.path() + " already holds --txn-version " + v + " of --txn-app-id "
          + t.txnAppId() + "; Delta would silently skip the lower version " + t.txnVersion() + ". To backfill an "
          + "earlier date or partition use --mode replace-where --where PREDICATE, or --mode merge (README, "
          + "'Scheduled runs')");
    }
    return Optional.empty();
  }

  /** Writes {@code df}; for Delta records {@code audit} in the commit and the table properties. */
  static Result write(Dataset<Row> df, Target t, Map<String, String> audit) {
    SparkSession spark = df.sparkSession();
    boolean exists = t.delta() ? DeltaTable.isDeltaTable(spark, t.path()) : OutputFormat.exists(spark, t.path());
    if (t.mode() == WriteMode.ERROR_IF_EXISTS && (exists || OutputFormat.exists(spark, t.path()))) {
      throw new JobException(ExitCode.USAGE, "Output " + t.path() + " already exists; choose --mode overwrite, "
          + "append, replace-where or merge, or another --output");
    }
    if (!t.delta()) {
      // Parquet keeps no per-write record: count what is there before and after (an append adds to
      // earlier rows; a concurrent writer would make the check fail loudly, not pass wrongly).
      long earlier = t.mode() == WriteMode.APPEND && exists ? OutputFormat.read(spark, t.path(), "parquet").count() : 0;
      df.write().format("parquet").mode(t.mode().label).save(t.path());
      return new Result(OutputFormat.read(spark, t.path(), "parquet").count() - earlier, -1);
    }
    long before = exists ? latestVersion(spark, t.path()) : -1;
    String userMetadata = OutputFormat.toJson(audit);
    if (t.mode() == WriteMode.MERGE && exists) {
      merge(df, t, userMetadata);
    } else {
      // MERGE into a table that does not exist yet creates it.
      String mode = switch (t.mode()) {
        case APPEND -> "append";
        case OVERWRITE, REPLACE_WHERE -> "overwrite";
        default -> "errorifexists";
      };
      org.apache.spark.sql.DataFrameWriter<Row> w = df.write().format("delta").mode(mode)
          .option("userMetadata", userMetadata);
      if (t.mode() == WriteMode.REPLACE_WHERE) {
        w = w.option("replaceWhere", t.where());
      }
      if (t.txnAppId() != null) {
        w = w.option("txnAppId", t.txnAppId()).option("txnVersion", t.txnVersion());
      }
      w.save(t.path());
    }
    Row commit = DeltaTable.forPath(spark, t.path()).history()
        .where("version > " + before).orderBy("version").first();
    long version = commit.getLong(commit.fieldIndex("version"));
    Map<String, String> metrics = scala.jdk.javaapi.CollectionConverters.asJava(
        commit.<String, String>getMap(commit.fieldIndex("operationMetrics")));
    long rows;
    if (commit.getString(commit.fieldIndex("operation")).equals("MERGE")) {
      rows = metric(metrics, "numTargetRowsInserted") + metric(metrics, "numTargetRowsUpdated");
    } else if (t.mode() == WriteMode.REPLACE_WHERE && exists) {
      // numOutputRows also counts the other rows of rewritten files: count the replaced rows in the
      // committed version instead.
      rows = spark.read().format("delta").option("versionAsOf", version).load(t.path()).where(t.where()).count();
    } else {
      rows = metric(metrics, "numOutputRows");
    }
    setPropertiesIfChanged(spark, t.path(), audit);
    return new Result(rows, version);
  }

  private static void merge(Dataset<Row> df, Target t, String userMetadata) {
    SparkSession spark = df.sparkSession();
    for (String key : t.mergeKeys()) {
      if (!List.of(df.columns()).contains(key)) {
        throw new JobException(ExitCode.INPUT, "--merge-key column '" + key + "' is not in the input; it has "
            + String.join(", ", df.columns()));
      }
    }
    String condition = t.mergeKeys().stream().map(k -> "t.`" + k.replace("`", "``") + "` = s.`" + k.replace("`", "``") + "`")
        .collect(Collectors.joining(" AND "));
    spark.conf().set(USER_METADATA_CONF, userMetadata);
    try {
      DeltaTable.forPath(spark, t.path()).as("t").merge(df.as("s"), condition)
          .whenMatched().updateAll().whenNotMatched().insertAll().execute();
    } catch (RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("multiple source rows matched")
          || String.valueOf(e.getMessage()).contains("MULTIPLE_SOURCE_ROW")) {
        throw new JobException(ExitCode.INPUT, "--merge-key " + String.join(",", t.mergeKeys()) + " is not unique "
            + "in the input: several input rows have the same key, so MERGE cannot tell which one to keep; "
            + "deduplicate the input or choose a unique key");
      }
      throw e;
    } finally {
      spark.conf().unset(USER_METADATA_CONF);
    }
  }

  private static long latestVersion(SparkSession spark, String path) {
    return DeltaTable.forPath(spark, path).history(1).first().<Long>getAs("version");
  }

  private static long metric(Map<String, String> metrics, String name) {
    String v = metrics.get(name);
    if (v == null) {
      throw new IllegalStateException("Delta commit has no metric " + name + " (metrics: " + metrics.keySet() + ")");
    }
    return Long.parseLong(v);
  }

  /**
   * Records the audit map as table properties, unless they already say exactly this: a nightly run
   * with unchanged settings then adds one commit (its data), not two.
   */
  private static void setPropertiesIfChanged(SparkSession spark, String path, Map<String, String> audit) {
    if (audit.isEmpty()) {
      return;
    }
    // The snapshot's metadata, not DESCRIBE DETAIL: DETAIL also counts files and bytes, which rebuilds
    // the table's whole state (a 50-partition shuffle, seconds even for a one-commit table).
    Map<String, String> current = scala.jdk.javaapi.CollectionConverters.asJava(DeltaLog.forTable(spark, path)
        .update(false, scala.Option.empty(), scala.Option.empty()).metadata().configuration());
    if (audit.entrySet().stream().allMatch(e -> e.getValue().equals(current.get(e.getKey())))) {
      return;
    }
    String props = audit.entrySet().stream()
        .map(e -> OutputFormat.sqlString(e.getKey()) + " = " + OutputFormat.sqlString(e.getValue()))
        .collect(Collectors.joining(", "));
    spark.sql("ALTER TABLE delta.`" + qualified(spark, path).replace("`", "``") + "` SET TBLPROPERTIES (" + props + ")");
  }

  /**
   * The path with scheme and made absolute: SQL reads {@code delta.`x`} as a path only when x is
   * absolute, so a relative {@code --output} such as {@code target/out} would be looked up as a table.
   */
  private static String qualified(SparkSession spark, String path) {
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
      return p.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(p).toString();
    } catch (java.io.IOException e) {
      throw new JobException(ExitCode.INPUT, "Cannot access " + path + ": " + e.getMessage());
    }
  }
}
