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
import org.apache.spark.sql.delta.Snapshot;

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

  /**
   * What a Delta commit carries besides the rows: the run's audit (the commit's userMetadata and the
   * table's properties), properties a new table inherits (an in-place swap keeps the raw table's own
   * settings), the partition columns of a new table, and the snapshot the run read when its input is
   * its output (so a writer that committed in between is a conflict, not a silent loss).
   */
  record Commit(Map<String, String> audit, Map<String, String> inherited, List<String> partitionColumns,
      Snapshot readSnapshot) {
    static Commit of(Map<String, String> audit) {
      return new Commit(audit, Map.of(), List.of(), null);
    }
  }

  /** This run's transaction is already in the table (found while committing): nothing was written. */
  static final class AlreadyCommitted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AlreadyCommitted(String message) {
      super(message, null, false, false);
    }
  }

  private TableWriter() {}

  /**
   * A message when this run's {@code (txnAppId, txnVersion)} is already committed to the output, so
   * the run has nothing to do; empty otherwise.
   *
   * @throws JobException (usage) when the table holds a HIGHER version for the app id: Delta would skip
   *     this write silently
   */
  static Optional<String> alreadyCommitted(SparkSession spark, Target t) {
    if (t.txnAppId() == null || OutputLocation.inspect(spark, t.path()).kind != OutputLocation.Kind.DELTA_TABLE) {
      return Optional.empty();
    }
    scala.Option<Object> recorded = DeltaLog.forTable(spark, t.path())
        .update(false, scala.Option.empty(), scala.Option.empty()).transactions().get(t.txnAppId());
    if (recorded.isEmpty()) {
      return Optional.empty();
    }
    long v = (Long) recorded.get();
    if (v == t.txnVersion()) {
      return Optional.of(nothingToDo(t, v));
    }
    if (v > t.txnVersion()) {
      throw new JobException(ExitCode.USAGE, t.path() + " already holds --txn-version " + v + " of --txn-app-id "
          + t.txnAppId() + "; Delta would silently skip the lower version " + t.txnVersion() + ". To backfill an "
          + "earlier date or partition use --mode replace-where --where PREDICATE, or --mode merge (README, "
          + "'Scheduled runs')");
    }
    return Optional.empty();
  }

  /** The latest committed version of the Delta table at {@code path}. */
  static long currentVersion(SparkSession spark, String path) {
    return DeltaLog.forTable(spark, path).update(false, scala.Option.empty(), scala.Option.empty()).version();
  }

  private static String nothingToDo(Target t, long v) {
    return "Nothing to do: " + t.path() + " already holds the commit of --txn-app-id " + t.txnAppId()
        + " --txn-version " + v + " (an earlier run of this job); nothing was written";
  }

  /**
   * Writes {@code df}. For Delta, the rows, the audit (as the commit's userMetadata) and the table
   * properties land in ONE commit, so no crash can leave rows without the properties that state their
   * guarantee (MERGE, which Delta commits itself, is the exception: when the properties change it
   * takes a second commit right after the data's).
   *
   * @throws AlreadyCommitted when a concurrent run committed this run's transaction first
   * @throws JobException ({@link ExitCode#CONFLICT}) when another writer's commit conflicts with this one
   */
  static Result write(Dataset<Row> df, Target t, Commit commit) {
    SparkSession spark = df.sparkSession();
    if (!t.delta()) {
      // Parquet keeps no per-write record: count what is there before and after (an append adds to
      // earlier rows; a concurrent writer would make the check fail loudly, not pass wrongly).
      boolean holdsData = OutputLocation.inspect(spark, t.path()).holdsData();
      long earlier = t.mode() == WriteMode.APPEND && holdsData ? OutputFormat.parquetRows(spark, t.path()) : 0;
      // An existing directory without data (a crashed write's _temporary) is replaced, not refused.
      String mode = t.mode() == WriteMode.ERROR_IF_EXISTS && !holdsData ? "overwrite" : t.mode().label;
      df.write().format("parquet").mode(mode).save(t.path());
      return new Result(OutputFormat.parquetRows(spark, t.path()) - earlier, -1);
    }
    String userMetadata = OutputFormat.toJson(commit.audit());
    long version;
    try {
      if (t.mode() == WriteMode.MERGE && OutputLocation.inspect(spark, t.path()).kind == OutputLocation.Kind.DELTA_TABLE) {
        long before = currentVersion(spark, t.path());
        merge(df, t, userMetadata);
        version = DeltaTable.forPath(spark, t.path()).history().where("version > " + before)
            .orderBy("version").first().<Long>getAs("version");
        setPropertiesIfChanged(spark, t.path(), commit.audit());
      } else {
        version = DeltaCommit.write(df, t, commit, userMetadata);
      }
    } catch (org.apache.spark.sql.delta.DeltaConcurrentModificationException e) {
      // Re-check: a concurrent run of the SAME transaction may have won; then this run is done.
      Optional<String> done = alreadyCommitted(spark, t);
      if (done.isPresent()) {
        throw new AlreadyCommitted(done.get());
      }
      throw new JobException(ExitCode.CONFLICT, "Another writer committed to " + t.path() + " at the same time ("
          + e.getClass().getSimpleName() + "); nothing of this run was committed. Run it again"
          + (t.txnAppId() == null ? " (with --txn-app-id/--txn-version a retry can never write twice)" : ""));
    } catch (RuntimeException e) {
      if (!(e instanceof org.apache.spark.SparkThrowable st) || !"DELTA_PATH_EXISTS".equals(st.getCondition())) {
        throw e;
      }
      throw new JobException(ExitCode.USAGE, "--output " + t.path() + " was created by another writer while this run "
          + "worked (--mode errorifexists); nothing of this run was committed. Choose another --output or --mode");
    }
    if (version == DeltaCommit.ALREADY_COMMITTED) {
      throw new AlreadyCommitted(nothingToDo(t, t.txnVersion()));
    }
    Row c = DeltaTable.forPath(spark, t.path()).history().where("version = " + version).first();
    Map<String, String> metrics = scala.jdk.javaapi.CollectionConverters.asJava(
        c.<String, String>getMap(c.fieldIndex("operationMetrics")));
    long rows;
    if (c.getString(c.fieldIndex("operation")).equals("MERGE")) {
      rows = metric(metrics, "numTargetRowsInserted") + metric(metrics, "numTargetRowsUpdated");
    } else if (t.mode() == WriteMode.REPLACE_WHERE && version > 0) {
      // numOutputRows also counts the other rows of rewritten files: count the replaced rows in the
      // committed version instead.
      rows = spark.read().format("delta").option("versionAsOf", version).load(t.path()).where(t.where()).count();
    } else {
      rows = metric(metrics, "numOutputRows");
    }
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
    spark.sql("ALTER TABLE delta.`" + OutputLocation.qualified(spark, path).replace("`", "``") + "` SET TBLPROPERTIES (" + props + ")");
  }
}
