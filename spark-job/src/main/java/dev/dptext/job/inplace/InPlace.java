package dev.dptext.job.inplace;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * A run whose output is its input: found before anything is read (same qualified path, or the same
 * Delta table id behind two spellings of a path), refused by default, and otherwise carried out by
 * its {@link InPlacePolicy} so that no supported path leaves raw text readable unless the user asked
 * for exactly that.
 *
 * <p>Only Delta tables are sanitized in place: Parquet, CSV, JSON and text have no transaction, so a
 * crash mid-way could lose the raw and the sanitized rows both; those are refused with the way out
 * (write to another path). The input is read at one pinned version; a commit by another writer after
 * it makes the run a conflict (a keep-history commit is undone by {@code RESTORE}, a purge does not
 * swap), so a concurrent writer's rows are never overwritten unseen.
 */
public final class InPlace {
  /** The table property (and audit entry) that records how an in-place run treated the history. */
  public static final String PROPERTY = "dptext.inPlace";

  private final InPlacePolicy policy;
  /** The version of the table this run reads (and, in place, replaces); null when not in place. */
  private final Long read;
  /** For a purge: the raw table's own settings and partitioning, which the new table keeps. */
  private final Map<String, String> inherited;
  private final List<String> partitionColumns;
  private final InPlaceSwap swap;
  private final String finished;

  private InPlace(InPlacePolicy policy, Long read, Map<String, String> inherited, List<String> partitionColumns,
      InPlaceSwap swap, String finished) {
    this.policy = policy;
    this.read = read;
    this.inherited = inherited;
    this.partitionColumns = partitionColumns;
    this.swap = swap;
    this.finished = finished;
  }

  private static InPlace finished(InPlacePolicy policy, String message) {
    return new InPlace(policy, null, Map.of(), List.of(), null, message);
  }

  /** An ordinary run: the output is not the input. */
  private static final InPlace NONE = new InPlace(null, null, Map.of(), List.of(), null, null);

  /**
   * Decides whether {@code input} and the output of {@code target} are one table and, if so, whether
   * and how the run may go on.
   *
   * @throws JobException (usage) for an in-place run the policy or the formats do not allow
   */
  public static InPlace check(SparkSession spark, String input, TableWriter.Target target, InPlacePolicy policy) {
    // Links, file: prefixes, ./, .., trailing and duplicate slashes resolved: two spellings of one place
    // are the same path, and a purge works on the real table (InPlaceSwap resolves it too). A catalog
    // table resolves to its full name.
    boolean samePath = OutputLocation.resolved(spark, input).equals(OutputLocation.resolved(spark, target.path()));
    boolean named = TableName.is(spark, input) || TableName.is(spark, target.path());
    if (samePath && policy == InPlacePolicy.PURGE_HISTORY && named) {
      throw JobException.of("IN_PLACE_PURGE_BY_NAME", "table", target.path());
    }
    if (samePath && policy == InPlacePolicy.PURGE_HISTORY && !dev.dptext.classic.Classic.is(spark)
        && !dev.dptext.runtime.Storage.HADOOP_ON_CLASSPATH) {
      throw JobException.of("IN_PLACE_PURGE_NEEDS_HADOOP");
    }
    InPlaceSwap purge = null;
    if (samePath && policy == InPlacePolicy.PURGE_HISTORY) {
      // One purge of a table at a time (another one ends here, exit 5); then a crashed earlier purge may
      // have left the table half-swapped (even absent): finish that first.
      purge = new InPlaceSwap(spark, target.path());
      purge.lock();
      LOCKED.add(Thread.currentThread());
      Optional<String> recovered = purge.recover();
      if (recovered.isPresent()) {
        return finished(policy, recovered.get());
      }
    }
    boolean inputIsDelta = OutputLocation.inspect(spark, input).kind == OutputLocation.Kind.DELTA_TABLE;
    Optional<String> inputId = inputIsDelta ? OutputLocation.deltaTableId(spark, input) : Optional.empty();
    boolean same = samePath || (inputId.isPresent() && inputId.equals(OutputLocation.deltaTableId(spark, target.path())));
    if (!same) {
      return NONE;
    }
    refuseUnsupported(target, policy, inputIsDelta, named);
    long version = DeltaTables.latestVersion(spark, input);
    if (target.mode() == WriteMode.OVERWRITE) {
      Optional<String> done = alreadyDone(policy, target.path(), SanitizedHistory.judge(spark, input, version));
      if (done.isPresent()) {
        return finished(policy, done.get());
      }
    }
    if (policy != InPlacePolicy.PURGE_HISTORY) {
      return new InPlace(policy, version, Map.of(), List.of(), null, null);
    }
    DeltaTables.Detail detail = DeltaTables.detail(spark, input);
    Map<String, String> inherited = new LinkedHashMap<>(detail.properties());
    // dptext's own record is written anew; the protocol versions follow from the features.
    inherited.keySet().removeIf(k -> k.startsWith("dptext.") || k.equals("delta.minReaderVersion")
        || k.equals("delta.minWriterVersion"));
    return new InPlace(policy, version, inherited, detail.partitionColumns(),
        purge != null ? purge : new InPlaceSwap(spark, target.path()), null);
  }

  /** What an in-place run cannot do with this output, format, mode and policy, each refused with the way out. */
  private static void refuseUnsupported(TableWriter.Target target, InPlacePolicy policy, boolean inputIsDelta,
      boolean named) {
    if (!inputIsDelta || !target.delta()) {
      throw JobException.of("IN_PLACE_NEEDS_DELTA", "path", target.path());
    }
    if (policy == InPlacePolicy.PURGE_HISTORY && named) {
      throw JobException.of("IN_PLACE_PURGE_BY_NAME", "table", target.path());
    }
    if (policy == InPlacePolicy.REFUSE) {
      throw JobException.of("IN_PLACE_REFUSED", "path", target.path());
    }
    WriteMode mode = target.mode();
    if (mode == WriteMode.APPEND || mode == WriteMode.ERROR_IF_EXISTS) {
      throw JobException.of("IN_PLACE_MODE", "mode", mode.label, "others",
          policy == InPlacePolicy.KEEP_HISTORY ? ", replace-where or merge" : "");
    }
    if (mode == WriteMode.OVERWRITE && target.where() != null) {
      throw JobException.of("IN_PLACE_OVERWRITE_WHERE");
    }
    if (policy == InPlacePolicy.PURGE_HISTORY && mode != WriteMode.OVERWRITE) {
      throw JobException.of("IN_PLACE_PURGE_MODE", "mode", mode.label);
    }
    if (policy == InPlacePolicy.PURGE_HISTORY && target.txnAppId() != null) {
      throw JobException.of("IN_PLACE_PURGE_TXN");
    }
  }

  /**
   * The "Nothing to do" message when an in-place overwrite has nothing left to do, judged by what the
   * table holds ({@link SanitizedHistory}), not by who wrote its newest commit: for {@code purge-history}
   * no version of the table holds a row dptext did not sanitize; for {@code keep-history} every live row
   * was written by dptext's sanitizing commits. Otherwise empty (the run goes on), and when a purge is
   * about to sanitize rows that are already sanitized, the run says why.
   */
  private static Optional<String> alreadyDone(InPlacePolicy policy, String output, SanitizedHistory.Judgement j) {
    String again = "; sanitizing it again would only lose utility. Nothing was read or written";
    if (policy == InPlacePolicy.PURGE_HISTORY && j.noRawVersion()) {
      return Optional.of("Nothing to do: no version of " + output + " holds a raw row: " + j.createdBy() + " created "
          + "the table, and each commit since, up to version " + j.latest() + ", added only rows dptext sanitized, or "
          + "none (table properties, OPTIMIZE, VACUUM)" + again);
    }
    if (policy == InPlacePolicy.KEEP_HISTORY && j.liveRowsSanitized()) {
      SanitizedHistory.Commit since = j.wholeTable().get();
      String earlier = j.unsanitized().map(u -> ". Versions before " + since.version() + " still hold rows dptext "
          + "did not sanitize (" + u + ": RAW text, by time travel) until VACUUM removes their files; --in-place "
          + "purge-history deletes them now").orElse("");
      return Optional.of("Nothing to do: every row of " + output + " at version " + j.latest() + " was written by "
          + "dptext: " + since + (since.version() == 0 ? " created the table" : " replaced the whole table")
          + ", and each commit since added only rows dptext sanitized, or none" + again + earlier);
    }
    if (policy == InPlacePolicy.PURGE_HISTORY && j.liveRowsSanitized()) {
      // Not a silent "nothing to do" (raw versions stay readable), nor a silent second sanitization.
      String why = j.unsanitized().map(u -> "an earlier version holds rows dptext did not sanitize (" + u + ")")
          .orElse("its history no longer reaches version 0 (the log was cleaned up), so no earlier version can be "
              + "shown free of raw rows");
      System.out.println("dptext: every live row of " + output + " was written by dptext (since "
          + j.wholeTable().get() + "), but " + why + ": purge-history sanitizes the current rows again (less utility) "
          + "and replaces the table without its history");
    }
    return Optional.empty();
  }

  /**
   * Ends what the current thread's run holds for an in-place purge (its lock), however the run ended:
   * called by the command once the run returns or throws.
   */
  public static void release() {
    // Only a thread that took a lock goes near InPlaceSwap: it names Hadoop's types, which a Spark Connect
    // client's classpath lacks (ConnectClientClasspathTest), and a run that purged nothing must not load it.
    if (LOCKED.remove(Thread.currentThread())) {
      InPlaceSwap.releaseHeld();
    }
  }

  /** The threads whose run took a purge lock ({@link #release} gives it back). */
  private static final java.util.Set<Thread> LOCKED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Whether the output is the input. */
  public boolean active() {
    return policy != null;
  }

  /** Set when an earlier run's work was completed now, or there is nothing to do: the message. */
  public Optional<String> finished() {
    return Optional.ofNullable(finished);
  }

  /** Reader options pinning the input to the version this run sanitizes. */
  public Map<String, String> readOptions() {
    return read == null ? Map.of() : Map.of("versionAsOf", Long.toString(read));
  }

  /** What the summary and the table properties say about the history, for an in-place run. */
  public Optional<String> note() {
    if (policy == InPlacePolicy.PURGE_HISTORY) {
      return Optional.of("purge-history: sanitized in place; the raw table and its whole history were deleted "
          + "(no earlier version exists)");
    }
    if (policy == InPlacePolicy.KEEP_HISTORY) {
      return Optional.of("keep-history: sanitized in place; WARNING: versions before " + (read + 1)
          + " still hold the RAW text (time travel) until VACUUM removes their files and the Delta log is cleaned up");
    }
    return Optional.empty();
  }

  /** Where the rows go: the staging table for a purge, else the target itself. */
  public TableWriter.Target target(TableWriter.Target t) {
    if (swap == null) {
      return t;
    }
    return TableWriter.Target.delta(swap.stagingPath(), WriteMode.ERROR_IF_EXISTS);
  }

  /** The commit: a purge's new table keeps the raw table's own settings and partitioning. */
  public TableWriter.Commit commit(Map<String, String> audit) {
    if (read == null) {
      return TableWriter.Commit.of(audit);
    }
    if (swap == null) {
      return new TableWriter.Commit(audit, Map.of(), List.of(), read);
    }
    return new TableWriter.Commit(audit, inherited, partitionColumns, null);
  }

  /**
   * After the write: a purge swaps the sanitized table in when every row is there ({@code intact}),
   * else discards it and leaves the raw table as it was.
   */
  public void finish(boolean intact) {
    if (swap == null) {
      return;
    }
    if (!intact) {
      swap.discardStaging();
      return;
    }
    swap.complete(read);
  }
}
