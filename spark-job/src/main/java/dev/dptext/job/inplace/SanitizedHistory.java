package dev.dptext.job.inplace;

import dev.dptext.job.write.DeltaTables;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Whether a Delta table's rows, and its readable versions, hold only rows dptext sanitized: what decides
 * that an in-place run has nothing to do. Judged from the table's history ({@code DESCRIBE HISTORY},
 * public on every Delta, classic or Spark Connect), commit by commit, by what each commit can have added:
 *
 * <ul>
 *   <li>a <b>sanitizing commit</b>: its userMetadata is dptext's audit ({@code dptext.version} and
 *       {@code dptext.mechanism}; {@code RunSummary.audit}), written atomically with the rows of a sanitize
 *       run, in any mode (overwrite, append from another input, replace-where, merge, a stream's batch). A
 *       dptext rejects table's commits carry no audit (their rows are raw records) and do not count;
 *   <li>a commit that adds <b>no row of its own</b> ({@link #NO_NEW_ROWS}): table properties (the audit's
 *       mirror, a purge's fence and mark, anyone's), {@code OPTIMIZE} (rewrites the live rows as they are),
 *       {@code VACUUM}, an empty {@code CREATE TABLE};
 *   <li>anything else (another writer's append, {@code UPDATE}, {@code MERGE}, {@code DELETE}, {@code RESTORE},
 *       a schema change) may have added rows dptext did not sanitize: <b>unsanitized</b>.
 * </ul>
 *
 * A commit <b>replaces the whole table</b> when it is version 0 (the table held nothing before) or a
 * sanitizing whole-table overwrite ({@code WRITE} in mode {@code Overwrite} without a predicate, or a
 * catalog table's {@code … TABLE AS SELECT}). Then:
 *
 * <ul>
 *   <li>every <b>live row</b> was sanitized by dptext when, since the newest commit that replaced the whole
 *       table, no commit is unsanitized (the rows that commit left, and every row added after it, are
 *       dptext's): {@code keep-history} has nothing to do;
 *   <li><b>no version holds a raw row</b> when, in the whole history from version 0, no commit is
 *       unsanitized: {@code purge-history} has nothing to do. A history that no longer reaches version 0
 *       (its log cleaned up past {@code delta.logRetentionDuration}) proves nothing about the versions
 *       before it, so the purge runs.
 * </ul>
 *
 * Only the newest commit's author (what dptext looked at before) is not enough: a dptext append from
 * another input into a raw table writes sanitized rows, and the raw table's rows and files stay.
 */
final class SanitizedHistory {
  /** Operations ({@code DESCRIBE HISTORY}'s names) that add no row of their own. */
  static final Set<String> NO_NEW_ROWS = Set.of("SET TBLPROPERTIES", "UNSET TBLPROPERTIES", "OPTIMIZE",
      "VACUUM START", "VACUUM END", "CREATE TABLE");

  /** Operations of dptext's own writes that replace a catalog table whole. */
  private static final Set<String> REPLACING = Set.of("CREATE TABLE AS SELECT", "REPLACE TABLE AS SELECT",
      "CREATE OR REPLACE TABLE AS SELECT");

  /** One commit, as the messages name it. */
  record Commit(long version, String operation, String author) {
    @Override
    public String toString() {
      return "version " + version + " (" + operation + " " + author + ")";
    }
  }

  /**
   * What the history says, up to the version judged.
   *
   * @param latest the version judged
   * @param oldest the oldest version the history still shows
   * @param unsanitized the newest commit that may have added rows dptext did not sanitize; empty when none
   * @param wholeTable the newest commit that replaced the whole table and has no unsanitized commit after it;
   *     empty when there is none
   * @param createdBy the version 0 commit, as the messages name it (null when the history no longer shows it)
   */
  record Judgement(long latest, long oldest, Optional<Commit> unsanitized, Optional<Commit> wholeTable,
      Commit createdBy) {
    /** Every live row was written by a sanitizing commit: {@code keep-history} has nothing to do. */
    boolean liveRowsSanitized() {
      return wholeTable.isPresent();
    }

    /** No version of the table holds a row dptext did not sanitize: {@code purge-history} has nothing to do. */
    boolean noRawVersion() {
      return unsanitized.isEmpty() && oldest == 0;
    }
  }

  private SanitizedHistory() {}

  /** One row of {@code DESCRIBE HISTORY}: what the judgement reads of a commit. */
  record Entry(long version, String operation, Map<String, String> parameters, String userMetadata) {}

  /** Judges the table at {@code path} at {@code version} (its history up to it, in one read). */
  static Judgement judge(SparkSession spark, String path, long version) {
    List<Entry> entries = new ArrayList<>();
    for (Row c : spark.sql("DESCRIBE HISTORY " + DeltaTables.ident(spark, path))
        .where(functions.col("version").leq(version))
        .select("version", "operation", "operationParameters", "userMetadata").collectAsList()) {
      Map<String, String> params = c.isNullAt(2) ? Map.of() : c.getJavaMap(2);
      entries.add(new Entry(c.getLong(0), c.getString(1), params, c.isNullAt(3) ? null : c.getString(3)));
    }
    return judge(entries, version);
  }

  /** Judges a history ({@code entries}, in any order) up to {@code version}. */
  static Judgement judge(List<Entry> entries, long version) {
    List<Entry> newestFirst = new ArrayList<>(entries);
    newestFirst.removeIf(e -> e.version() > version);
    newestFirst.sort(Comparator.comparingLong(Entry::version).reversed());
    long oldest = version;
    Commit unsanitized = null;
    Commit wholeTable = null;
    Commit createdBy = null;
    for (Entry c : newestFirst) {
      long v = c.version();
      String op = c.operation();
      Map<String, String> audit = DeltaTables.metadata(c.userMetadata());
      boolean sanitizing = audit.containsKey("dptext.version") && audit.containsKey("dptext.mechanism");
      Commit commit = new Commit(v, op, author(audit, sanitizing));
      oldest = v;
      if (v == 0) {
        createdBy = commit;
      }
      if (!sanitizing && !NO_NEW_ROWS.contains(op)) {
        if (unsanitized == null) {
          unsanitized = commit;
        }
        continue;
      }
      if (unsanitized == null && wholeTable == null && (v == 0 || sanitizing && replacesTable(op, c.parameters()))) {
        wholeTable = commit;
      }
    }
    return new Judgement(version, oldest, Optional.ofNullable(unsanitized), Optional.ofNullable(wholeTable),
        createdBy);
  }

  /** Whether a sanitizing commit replaced every row of the table (not a slice, not an addition). */
  private static boolean replacesTable(String op, Map<String, String> params) {
    if (REPLACING.contains(op)) {
      return true;
    }
    if (!"WRITE".equals(op) || params == null || !"Overwrite".equals(params.get("mode"))) {
      return false;
    }
    String predicate = params.get("predicate");
    return predicate == null || predicate.isBlank() || predicate.equals("[]");
  }

  private static String author(Map<String, String> audit, boolean sanitizing) {
    if (sanitizing) {
      String inPlace = audit.get(InPlace.PROPERTY);
      return inPlace == null ? "by a dptext run" : "by a dptext in-place run, " + inPlace.split(":")[0];
    }
    return audit.containsKey(DeltaTables.RUN) ? "by dptext without a sanitization audit (raw records)"
        : "by another writer";
  }
}
