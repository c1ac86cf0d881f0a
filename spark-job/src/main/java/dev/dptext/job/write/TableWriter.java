package dev.dptext.job.write;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.base.TableName;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes a run's rows to the output table in a {@link WriteMode} and reports what landed, from the
 * Delta commit's own metrics (so the rows-in = rows-out check compares against what was committed,
 * not against a re-read that a concurrent writer could change).
 *
 * <p>Idempotence: Delta records {@code (txnAppId, txnVersion)} in the commit; a later write with the
 * same pair is skipped by Delta itself. dptext also writes the pair into the commit's userMetadata, so
 * that {@link #alreadyCommitted} can find it in the table's history before any work (no public API
 * shows Delta's own record), and refuse a LOWER version (Delta would skip it silently, so a backfill
 * would vanish) with a pointer to {@code replace-where} and {@code merge}, the modes meant for backfills.
 *
 * <p>Only public Delta APIs are used (writer options and SQL), so the same code runs on open-source
 * Delta, on Databricks Runtime and through Spark Connect.
 */
public final class TableWriter {
  /** Delta's session conf for a commit's userMetadata; MERGE has no writer option for it. */
  private static final String USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata";

  /** Where and how to write; validated before any data is read. */
  public record Target(String path, String format, WriteMode mode, String where, List<String> mergeKeys,
      String txnAppId, Long txnVersion) implements java.io.Serializable {

    public Target {
      format = OutputFormat.checkFormat(format);
      boolean delta = format.equals("delta");
      if (mode.needsDelta() && !delta) {
        throw JobException.of("MODE_NEEDS_DELTA", "mode", mode.label);
      }
      if (mode == WriteMode.REPLACE_WHERE && (where == null || where.isBlank())) {
        throw JobException.of("REPLACE_WHERE_NEEDS_WHERE");
      }
      if (mode == WriteMode.MERGE && mergeKeys.isEmpty()) {
        throw JobException.of("MERGE_NEEDS_KEY");
      }
      if ((txnAppId == null) != (txnVersion == null)) {
        throw JobException.of("TXN_OPTIONS_GO_TOGETHER");
      }
      if (txnAppId != null) {
        if (!delta) {
          throw JobException.of("TXN_NEEDS_DELTA");
        }
        if (mode == WriteMode.MERGE || mode == WriteMode.ERROR_IF_EXISTS) {
          throw JobException.of("TXN_MODE_NOT_APPLICABLE");
        }
        if (txnVersion < 0) {
          throw JobException.of("TXN_VERSION_NEGATIVE", "version", txnVersion);
        }
      }
    }

    /** A plain write of {@code format} at {@code path}: no predicate, no merge key, no idempotent transaction. */
    public static Target of(String path, String format, WriteMode mode) {
      return to(path, format, mode).build();
    }

    /** {@link #of} in Delta. */
    public static Target delta(String path, WriteMode mode) {
      return of(path, "delta", mode);
    }

    /** A write with some of a predicate, merge keys and a transaction, named; checked once, at {@link Builder#build}. */
    public static Builder to(String path, String format, WriteMode mode) {
      return new Builder(path, format, mode);
    }

    /** This write as Delta's idempotent transaction {@code (appId, version)}; both null for none. */
    public Target withTransaction(String appId, Long version) {
      return new Target(path, format, mode, where, mergeKeys, appId, version);
    }

    /** The parts of a {@link Target} beyond where and how, by name. */
    public static final class Builder {
      private final String path;
      private final String format;
      private final WriteMode mode;
      private String where;
      private List<String> mergeKeys = List.of();
      private String txnAppId;
      private Long txnVersion;

      private Builder(String path, String format, WriteMode mode) {
        this.path = path;
        this.format = format;
        this.mode = mode;
      }

      /** The rows {@code --mode replace-where} replaces. */
      public Builder where(String predicate) {
        this.where = predicate;
        return this;
      }

      /** The key {@code --mode merge} matches on. */
      public Builder mergeKeys(List<String> keys) {
        this.mergeKeys = keys;
        return this;
      }

      /** Delta's idempotent transaction {@code (appId, version)}; both null for none. */
      public Builder transaction(String appId, Long version) {
        this.txnAppId = appId;
        this.txnVersion = version;
        return this;
      }

      public Target build() {
        return new Target(path, format, mode, where, mergeKeys, txnAppId, txnVersion);
      }
    }

    public boolean delta() {
      return format.equals("delta");
    }
  }

  /** What a write did: rows committed (for MERGE: inserted + updated), and the table version. */
  public record Result(long rowsWritten, long version) {}

  /**
   * What a Delta commit carries besides the rows: the run's audit (the commit's userMetadata and the
   * table's properties), entries for the userMetadata alone ({@link #withCommitOnly}), properties a new table inherits (an in-place purge keeps the raw table's own
   * settings), the partition columns of a new table, and the version the run read when its input is
   * its output ({@code readVersion}, else null), so that a writer that committed in between is a
   * conflict, not a silent loss.
   */
  public record Commit(Map<String, String> audit, Map<String, String> inherited, List<String> partitionColumns,
      Long readVersion, Map<String, String> commitOnly) implements java.io.Serializable {
    public Commit(Map<String, String> audit, Map<String, String> inherited, List<String> partitionColumns,
        Long readVersion) {
      this(audit, inherited, partitionColumns, readVersion, Map.of());
    }

    public static Commit of(Map<String, String> audit) {
      return new Commit(audit, Map.of(), List.of(), null);
    }

    /**
     * This commit with {@code key = value} in its userMetadata only, not mirrored into the table's properties:
     * for what differs run by run (the privacy ledger's release id), which would otherwise cost every run a
     * second commit to set a property.
     */
    public Commit withCommitOnly(String key, String value) {
      Map<String, String> m = new LinkedHashMap<>(commitOnly);
      m.put(key, value);
      return new Commit(audit, inherited, partitionColumns, readVersion, Map.copyOf(m));
    }

    /**
     * The commit of a rejects table, which holds raw records: created without column statistics. Delta
     * otherwise keeps each file's minimum and maximum text (a 32-character prefix of a raw record) in the
     * table's log, and prints them in its INFO logs (a Spark Connect server's or a Databricks driver's).
     */
    public static Commit rawRecords() {
      return new Commit(Map.of(), Map.of("delta.dataSkippingNumIndexedCols", "0"), List.of(), null);
    }
  }

  /**
   * This run's transaction is already in the table (found while committing): nothing was written. Not a refusal
   * (the run ends with 0): its message is the run's "Nothing to do" note.
   */
  public static final class AlreadyCommitted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AlreadyCommitted(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The write committed (version {@link #version}, readable by time travel whatever followed), and then
   * another writer's commit made the run fail ({@link #failure}): whoever accounts for what was written
   * must count it.
   */
  public static final class CommittedThenConflicted extends RuntimeException {
    private static final long serialVersionUID = 1L;
    public final long version;
    public final JobException failure;

    CommittedThenConflicted(long version, JobException failure) {
      super(failure.getMessage(), null, false, false);
      this.version = version;
      this.failure = failure;
    }
  }

  /**
   * Run just before a Delta write starts (after the version before it is read): tests set it to force a
   * concurrent writer's commit at exactly that point. Null outside tests.
   */
  public static volatile Runnable beforeDeltaWrite;

  private TableWriter() {}

  /**
   * A message when this run's {@code (txnAppId, txnVersion)} is already committed to the output, so
   * the run has nothing to do; empty otherwise.
   *
   * @throws JobException (usage) when the table holds a HIGHER version for the app id: Delta would skip
   *     this write silently
   */
  public static Optional<String> alreadyCommitted(SparkSession spark, Target t) {
    if (t.txnAppId() == null || OutputLocation.inspect(spark, t.path()).kind != OutputLocation.Kind.DELTA_TABLE) {
      return Optional.empty();
    }
    return alreadyCommitted(t, DeltaTables.transactionVersion(spark, t.path(), t.txnAppId()));
  }

  /**
   * {@link #alreadyCommitted(SparkSession, Target)} given the highest version the table records for
   * {@code t}'s app id (read earlier, e.g. with a stream's {@link DeltaTables.Transactions} at its start).
   */
  public static Optional<String> alreadyCommitted(Target t, java.util.OptionalLong recorded) {
    if (recorded.isEmpty()) {
      return Optional.empty();
    }
    long v = recorded.getAsLong();
    if (v == t.txnVersion()) {
      return Optional.of(nothingToDo(t, v));
    }
    if (v > t.txnVersion()) {
      throw JobException.of("TXN_VERSION_BEHIND", "path", t.path(), "held", v, "appId", t.txnAppId(), "version",
          t.txnVersion());
    }
    return Optional.empty();
  }

  /** The latest committed version of the Delta table at {@code path}. */
  public static long currentVersion(SparkSession spark, String path) {
    return DeltaTables.latestVersion(spark, path);
  }

  /** The note of a write Delta skipped: the table holds this transaction at its version or a later one. */
  private static String skipped(Target t) {
    return "Nothing to do: " + t.path() + " already holds --txn-app-id " + t.txnAppId() + " at --txn-version "
        + t.txnVersion() + " or later, and Delta skipped this write; nothing was written";
  }

  private static String nothingToDo(Target t, long v) {
    return "Nothing to do: " + t.path() + " already holds the commit of --txn-app-id " + t.txnAppId()
        + " --txn-version " + v + " (an earlier run of this job); nothing was written";
  }

  /**
   * Writes {@code df}. For Delta, the rows and the run's audit (the commit's userMetadata, with the
   * transaction id) land in ONE commit, through Delta's public writer options ({@code userMetadata},
   * {@code txnAppId}/{@code txnVersion}, {@code replaceWhere}) or {@code MERGE INTO}; the audit is
   * then mirrored into the table's properties by {@code ALTER TABLE … SET TBLPROPERTIES} when they
   * differ — a second commit, so a crash between the two leaves the latest rows' audit in their
   * commit's userMetadata and the properties of the run before.
   *
   * <p>The round trips of a Delta write are as few as its checks allow (each costs 0.05–0.8 s even on a
   * small table): the write itself; one read of the newest commits to find the run's own (its version and
   * row count); one {@code SHOW TBLPROPERTIES} to see whether the properties already say this audit. A run
   * with a transaction id reads the newest commits once more, before any work ({@link #alreadyCommitted}).
   *
   * @throws AlreadyCommitted when this run's transaction is already in the table (a concurrent or
   *     earlier run committed it)
   * @throws JobException ({@link ExitCode#CONFLICT}) when another writer's commit conflicts with this one
   */
  public static Result write(Dataset<Row> df, Target t, Commit commit) {
    SparkSession spark = df.sparkSession();
    if (!t.delta()) {
      // Parquet keeps no per-write record: count what is there before and after (an append adds to
      // earlier rows; a concurrent writer would make the check fail loudly, not pass wrongly).
      boolean holdsData = OutputLocation.inspect(spark, t.path()).holdsData();
      if (TableName.is(spark, t.path())) {
        long earlier = t.mode() == WriteMode.APPEND && holdsData ? spark.table(t.path()).count() : 0;
        df.write().format("parquet").mode(t.mode().label).saveAsTable(t.path());
        return new Result(spark.table(t.path()).count() - earlier, -1);
      }
      long earlier = t.mode() == WriteMode.APPEND && holdsData ? OutputFormat.parquetRows(spark, t.path()) : 0;
      // An existing directory without data (a crashed write's _temporary) is replaced, not refused.
      String mode = t.mode() == WriteMode.ERROR_IF_EXISTS && !holdsData ? "overwrite" : t.mode().label;
      df.write().format("parquet").mode(mode).save(t.path());
      return new Result(OutputFormat.parquetRows(spark, t.path()) - earlier, -1);
    }
    String runId = java.util.UUID.randomUUID().toString();
    Map<String, String> metadata = new LinkedHashMap<>(commit.audit());
    metadata.putAll(commit.commitOnly());
    metadata.put(DeltaTables.RUN, runId);
    if (t.txnAppId() != null) {
      metadata.put(DeltaTables.TXN_APP_ID, t.txnAppId());
      metadata.put(DeltaTables.TXN_VERSION, Long.toString(t.txnVersion()));
    }
    String userMetadata = OutputFormat.toJson(metadata);
    boolean existed = OutputLocation.inspect(spark, t.path()).kind == OutputLocation.Kind.DELTA_TABLE;
    // No read of the version before the write: the run's commit is found by its run id alone (a new UUID),
    // so the history is read once, after the commit.
    Runnable hook = beforeDeltaWrite;
    if (hook != null) {
      hook.run();
    }
    try {
      if (t.mode() == WriteMode.MERGE && existed) {
        merge(df, t, userMetadata);
      } else {
        save(df, t, commit, userMetadata, existed);
      }
    } catch (RuntimeException e) {
      throw failure(spark, t, e);
    }
    RunPhases.enter(spark, "find the commit");
    Optional<Row> ours = DeltaTables.commitOfRun(spark, t.path(), runId);
    if (ours.isEmpty() && t.txnAppId() == null) {
      throw new IllegalStateException("The write to " + t.path() + " ended without error but its commit (run "
          + runId + ") is not in the table's history");
    }
    if (ours.isEmpty()) {
      // Delta skipped the write: the table holds this transaction (or a later version of its app id)
      // from a run whose commit the history no longer shows, or one that committed meanwhile.
      throw new AlreadyCommitted(skipped(t));
    }
    long version = ours.get().<Long>getAs("version");
    if (commit.readVersion() != null) {
      checkNothingCommittedBetween(spark, t, commit.readVersion(), version);
    }
    RunPhases.enter(spark, "check the table properties");
    DeltaTables.setPropertiesIfChanged(spark, t.path(), existed ? Map.of() : commit.inherited(), commit.audit());
    return new Result(rowsOf(spark, t, ours.get(), version), version);
  }

  /** The DataFrameWriter's Delta write: rows, userMetadata and the transaction in one commit. */
  private static void save(Dataset<Row> df, Target t, Commit commit, String userMetadata, boolean existed) {
    boolean named = TableName.is(df.sparkSession(), t.path());
    org.apache.spark.sql.DataFrameWriter<Row> w = df.write().format("delta").option("userMetadata", userMetadata);
    if (t.txnAppId() != null) {
      w = w.option("txnAppId", t.txnAppId()).option("txnVersion", t.txnVersion());
    }
    if (t.mode() == WriteMode.REPLACE_WHERE) {
      w = w.option("replaceWhere", t.where());
    }
    if (!existed) {
      // A new table's Delta settings (delta.*) are writer options at creation; its partitioning too.
      for (Map.Entry<String, String> e : commit.inherited().entrySet()) {
        if (e.getKey().startsWith("delta.")) {
          w = w.option(e.getKey(), e.getValue());
        }
      }
      if (!commit.partitionColumns().isEmpty()) {
        w = w.partitionBy(commit.partitionColumns().toArray(new String[0]));
      }
    }
    String mode = switch (t.mode()) {
      case APPEND -> "append";
      case OVERWRITE, REPLACE_WHERE -> "overwrite";
      default -> "errorifexists"; // MERGE reaches here only to create its table
    };
    w = w.mode(mode);
    if (t.mode() == WriteMode.OVERWRITE) {
      // --mode overwrite replaces the whole table, whatever the session's spark.sql.sources.partitionOverwriteMode:
      // a dynamic overwrite would keep other partitions' rows while the history says "Overwrite" with no
      // predicate, which the in-place rule (SanitizedHistory) reads as a whole-table replacement.
      w = w.option("partitionOverwriteMode", "static");
    }
    if (named) {
      // A catalog table, managed or external, where the catalog keeps it. Creating one is a CREATE TABLE
      // AS SELECT, which takes the commit's userMetadata from Delta's session setting, not the option.
      SparkSession spark = df.sparkSession();
      spark.conf().set(USER_METADATA_CONF, userMetadata);
      try {
        w.saveAsTable(t.path());
      } finally {
        spark.conf().unset(USER_METADATA_CONF);
      }
    } else {
      w.save(t.path());
    }
  }

  /** What a failed Delta write means for the user: a conflict, a lost creation race, or as it is. */
  private static RuntimeException failure(SparkSession spark, Target t, RuntimeException e) {
    if (DeltaTables.hasCondition(e, "DELTA_PATH_EXISTS") || DeltaTables.hasCondition(e, "TABLE_OR_VIEW_ALREADY_EXISTS")
        || (t.mode() == WriteMode.ERROR_IF_EXISTS
        && DeltaTables.isConflict(e))) {
      return JobException.of("OUTPUT_CREATED_CONCURRENTLY", "path", t.path());
    }
    if (!DeltaTables.isConflict(e)) {
      return e;
    }
    // Re-check: a concurrent run of the SAME transaction may have won; then this run is done.
    Optional<String> done = alreadyCommitted(spark, t);
    if (done.isPresent()) {
      return new AlreadyCommitted(done.get());
    }
    return JobException.of("CONCURRENT_WRITE", "path", t.path(), "conflict", conflictName(e), "retry",
        t.txnAppId() == null ? " (with --txn-app-id/--txn-version a retry can never write twice)" : "");
  }

  private static String conflictName(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof org.apache.spark.SparkThrowable st && st.getCondition() != null) {
        return st.getCondition();
      }
    }
    return e.getClass().getSimpleName();
  }

  /**
   * A run whose input is its output read version {@code read}; its own commit is {@code version}. A
   * commit in between was made by another writer after the read: an overwrite replaced its rows
   * unseen. The run's commit is then undone ({@code RESTORE} to the version before it, which holds the
   * other writer's rows) and the run ends as a conflict. Every version stays readable in any case:
   * this applies only to {@code --in-place keep-history}, which keeps the table's history.
   *
   * @throws CommittedThenConflicted when another writer committed in between: the run's commit happened
   */
  private static void checkNothingCommittedBetween(SparkSession spark, Target t, long read, long version) {
    if (version == read + 1) {
      return;
    }
    List<Long> after = DeltaTables.versionsAfter(spark, t.path(), version);
    if (!after.isEmpty()) {
      throw new CommittedThenConflicted(version, JobException.of("IN_PLACE_LATER_COMMITS", "path", t.path(),
          "between", (read + 1) + "-" + (version - 1), "read", read, "after", after, "version", version,
          "previous", version - 1));
    }
    spark.sql("RESTORE TABLE " + DeltaTables.ident(spark, t.path()) + " TO VERSION AS OF " + (version - 1));
    String others = version - read > 2 ? "versions " + (read + 1) + "-" + (version - 1) : "version " + (read + 1);
    throw new CommittedThenConflicted(version, JobException.of("IN_PLACE_COMMIT_RESTORED", "path", t.path(),
        "versions", others, "read", read, "version", version));
  }

  /** Rows the commit wrote: for MERGE inserted + updated; for replace-where the rows it replaced. */
  private static long rowsOf(SparkSession spark, Target t, Row c, long version) {
    Map<String, String> metrics = scala.jdk.javaapi.CollectionConverters.asJava(
        c.<String, String>getMap(c.fieldIndex("operationMetrics")));
    if (c.getString(c.fieldIndex("operation")).equals("MERGE")) {
      return metric(metrics, "numTargetRowsInserted") + metric(metrics, "numTargetRowsUpdated");
    }
    if (t.mode() == WriteMode.REPLACE_WHERE && version > 0) {
      // numOutputRows also counts the other rows of rewritten files: count the replaced rows in the
      // committed version instead.
      return spark.sql("SELECT * FROM " + DeltaTables.ident(spark, t.path()) + " VERSION AS OF " + version)
          .where(t.where()).count();
    }
    return metric(metrics, "numOutputRows");
  }

  /**
   * {@code MERGE INTO} by the merge keys, in SQL (Delta's public {@code DeltaTable} API needs a classic
   * session); the commit's userMetadata comes from Delta's session setting, as MERGE has no writer option.
   */
  private static void merge(Dataset<Row> df, Target t, String userMetadata) {
    SparkSession spark = df.sparkSession();
    for (String key : t.mergeKeys()) {
      if (!List.of(df.columns()).contains(key)) {
        throw JobException.of("MERGE_KEY_NOT_IN_INPUT", "column", key, "columns", String.join(", ", df.columns()));
      }
    }
    String condition = t.mergeKeys().stream().map(k -> "t.`" + k.replace("`", "``") + "` = s.`" + k.replace("`", "``") + "`")
        .collect(Collectors.joining(" AND "));
    String source = "dptext_merge_source_" + java.util.UUID.randomUUID().toString().replace("-", "");
    df.createOrReplaceTempView(source);
    spark.conf().set(USER_METADATA_CONF, userMetadata);
    try {
      spark.sql("MERGE INTO " + DeltaTables.ident(spark, t.path()) + " t USING " + source + " s ON " + condition
          + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
    } catch (RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("multiple source rows matched")
          || String.valueOf(e.getMessage()).contains("MULTIPLE_SOURCE_ROW")) {
        throw JobException.of("MERGE_KEY_NOT_UNIQUE", "keys", String.join(",", t.mergeKeys()));
      }
      throw e;
    } finally {
      spark.conf().unset(USER_METADATA_CONF);
      spark.catalog().dropTempView(source);
    }
  }

  private static long metric(Map<String, String> metrics, String name) {
    String v = metrics.get(name);
    if (v == null) {
      throw new IllegalStateException("Delta commit has no metric " + name + " (metrics: " + metrics.keySet() + ")");
    }
    return Long.parseLong(v);
  }
}
