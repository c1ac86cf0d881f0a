package dev.dptext.job.inplace;

import dev.dptext.job.ExitCode;
import dev.dptext.job.JobException;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * {@code --in-place purge-history}: replaces a raw Delta table by a new table at the same path that
 * holds only the sanitized rows, so that no version, file or log entry with raw text remains.
 *
 * <p>Why not overwrite and VACUUM: an overwrite's commit lists the raw files it removes together
 * with their statistics, which hold the first characters of the text column's smallest and largest
 * values, so raw text would stay in the Delta log (and a VACUUM below the retention period needs a
 * safety check turned off). A new table has no such history.
 *
 * <p>The protocol, each step safe to crash in (a re-run of the same command finishes or restarts it):
 *
 * <ol>
 *   <li>the sanitized rows are written to a new table in the hidden sibling {@code .<name>.dptext-staging}
 *       and, once the rows-in = rows-out check passed, marked ready ({@value #READY});
 *   <li>the raw table is renamed to {@code .<name>.dptext-raw}, the staging table to the path, each
 *       step checked against other writers ({@link #swap});
 *   <li>the raw table is deleted.
 * </ol>
 *
 * A crash before the mark leaves the raw table untouched (the re-run discards the staging table and
 * starts again); a crash after it leaves a complete sanitized table, which the re-run swaps in
 * without sanitizing again. At no point are both the raw and the sanitized rows gone. The renames are
 * atomic on HDFS and local file systems; on object stores (S3, ABFS, GCS) a rename is a copy, and an
 * interrupted copy is completed by the re-run from the ready staging table in the same way.
 */
final class InPlaceSwap {
  /** Written into the staging table once its rows were checked; Delta ignores files named {@code _…}. */
  static final String READY = "_dptext_swap_ready";

  private final SparkSession spark;
  private final FileSystem fs;
  private final Path table;
  private final Path staging;
  private final Path raw;

  InPlaceSwap(SparkSession spark, String path) {
    this.spark = spark;
    try {
      // The real table: through a symbolic link (to the table or to a directory above it) the swap
      // renames and deletes the table the link points to, and the link stays, leading to the new table.
      Path p = new Path(OutputLocation.resolved(spark, path));
      this.fs = p.getFileSystem(dev.dptext.runtime.HadoopConf.of(spark));
      this.table = fs.makeQualified(p);
    } catch (IOException e) {
      throw new JobException(ExitCode.INPUT, "Cannot access " + path + ": " + JobException.firstLine(e.getMessage()));
    }
    if (table.getParent() == null) {
      throw new JobException(ExitCode.USAGE, "--in-place purge-history needs a table below a directory, not " + path);
    }
    this.staging = new Path(table.getParent(), "." + table.getName() + ".dptext-staging");
    this.raw = new Path(table.getParent(), "." + table.getName() + ".dptext-raw");
  }

  /** Where the sanitized rows are written before the swap. */
  String stagingPath() {
    return staging.toString();
  }

  /**
   * Finishes or discards what an interrupted earlier run left: a message when that run's swap was
   * completed now (this run then has nothing to do), empty when the raw table is in place and the run
   * should go on.
   */
  Optional<String> recover() {
    try {
      boolean ready = fs.exists(new Path(staging, READY));
      if (ready) {
        // The earlier run wrote and checked every sanitized row: whatever is left at the path (the raw
        // table, or part of it after an interrupted copy) is replaced.
        moveIn();
        return Optional.of("Completed the interrupted in-place run: " + table + " now holds only the sanitized "
            + "rows written by it, and the raw table and its history are deleted; nothing was sanitized again");
      }
      if (fs.exists(raw)) {
        // The staging table was already moved in: only the raw copy's deletion was interrupted.
        delete(raw);
        fs.delete(new Path(table, READY), false);
        return Optional.of("Completed the interrupted in-place run: deleted the raw table it left at " + raw);
      }
      if (fs.exists(staging)) {
        delete(staging); // an incomplete earlier attempt; the raw table is intact
      }
      return Optional.empty();
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /** Marks the staging table complete: from here on a crash is finished by swapping it in. */
  void markReady() {
    OutputFormat.writeText(spark, new Path(staging, READY).toString(), "ready\n");
  }

  /** Deletes the staging table (after a failed check): the raw table stays as it was. */
  void discardStaging() {
    try {
      delete(staging);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /** Table property the raw table carries during a swap (its commit stops writers already under way). */
  static final String SWAPPING = "dptext.purgeSwapping";

  /** The version of this swap's {@link #SWAPPING} commit in the raw table, once made. */
  private long mark = -1;

  /** Test seam: called with the name of each step of {@link #swap} once it is done. */
  static volatile java.util.function.Consumer<String> afterStep = step -> { };

  /**
   * Swaps the ready staging table in, unless another writer committed to the table since
   * {@code readVersion} (the version the run read): its rows would be lost, so that is a conflict and
   * the raw table stays as it is, with that writer's commit.
   *
   * <p>Checking for other writers and renaming are separate steps of the file system, so the swap
   * closes the gaps one by one:
   *
   * <ol>
   *   <li>a commit to the raw table ({@link #SWAPPING}) must directly follow {@code readVersion}; being a
   *       metadata change, it also makes every writer whose transaction is already under way fail
   *       instead of committing later (Delta's conflict check);
   *   <li>after the raw table is renamed away its newest commit must still be that one, else a writer
   *       committed in between: the raw table goes back;
   *   <li>if another writer wrote to the path while it was free, the raw table goes back, with that
   *       writer's commit when it continues the raw table's log, else with its files moved aside (to a
   *       directory the message names);
   *   <li>after the sanitized table is renamed in, any file in it that it did not hold before is another
   *       writer's: a commit that directly follows the sanitized table's own is an append to the new
   *       table and stays; anything else (a commit made against the raw table, or data files of a
   *       commit not yet made) is returned to the raw table or moved aside, as in step 3, and the raw
   *       table goes back.
   * </ol>
   *
   * Only then is the raw table deleted. Every way back ends as a conflict (exit 5) with every row of
   * every writer in a table or, for a writer's uncommitted files, in the directory named. A writer
   * that reads the raw table in the instant between steps 1 and 2 and commits after step 4 is not
   * caught: stop other writers before a purge.
   */
  void swap(long readVersion) {
    try {
      spark.sql("ALTER TABLE " + DeltaTables.ident(spark, table.toString()) + " SET TBLPROPERTIES ("
          + OutputFormat.sqlString(SWAPPING) + " = 'true')");
      long marked = latestCommit(table);
      this.mark = marked;
      afterStep.accept("marked");
      if (marked != readVersion + 1 || !isSwappingMark(marked)) {
        discardStaging();
        throw conflict("Another writer committed to " + table + " while this run sanitized version " + readVersion
            + "; the raw table was left as it is, with that commit");
      }
      Set<String> ours = files(staging);
      long ourLatest = latestCommit(staging);
      if (!fs.rename(table, raw)) {
        throw new IOException("could not rename " + table + " to " + raw);
      }
      afterStep.accept("raw-renamed");
      long rawNow = latestCommit(raw);
      if (rawNow != marked) {
        String where = putRawBack(Set.of()); // anything at the path now is another writer's
        throw conflict("Another writer committed to " + table + " (version " + rawNow + ") while this run swapped "
            + "it; the raw table was put back with that commit" + where);
      }
      // A rename onto an existing directory moves the source INTO it (Hadoop's semantics), so the path
      // must be free before, and the staging table must have become the path after.
      boolean renamed = !fs.exists(table) && fs.rename(staging, table);
      Path nested = new Path(table, staging.getName());
      if (renamed && fs.exists(nested)) {
        if (!fs.rename(nested, staging)) {
          throw new IOException("could not move " + nested + " back to " + staging);
        }
        renamed = false;
      }
      if (!renamed) {
        if (!fs.exists(table)) {
          throw new IOException("could not rename " + staging + " to " + table);
        }
        // Another writer wrote to the path while it was free: a new table of its own, or the next
        // commit of the raw table it had read. Everything there is its (the staging table is still
        // beside it).
        String where = putRawBack(Set.of());
        throw conflict("Another writer wrote to " + table + " while this run swapped it; the raw table was put "
            + "back" + where);
      }
      afterStep.accept("staging-renamed");
      Set<String> foreign = files(table);
      foreign.removeAll(ours);
      foreign.remove(READY);
      Set<String> appended = appendedCommits(foreign, ourLatest);
      if (!foreign.isEmpty() && !foreign.equals(appended)) {
        String where = putRawBack(ours);
        throw conflict("Another writer wrote " + foreign.size() + " file(s) to " + table + " while this run swapped "
            + "it; the raw table was put back" + where);
      }
      if (!appended.isEmpty()) {
        org.slf4j.LoggerFactory.getLogger(InPlaceSwap.class).warn("Another writer committed to {} right after the "
            + "swap (versions {}): its rows were added to the sanitized table as written", table, appended);
      }
      fs.delete(new Path(table, READY), false);
      delete(raw);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /** Whether version {@code v} of the table is this swap's {@link #SWAPPING} mark. */
  private boolean isSwappingMark(long v) {
    org.apache.spark.sql.Row c = DeltaTables.commit(spark, table.toString(), v);
    return "SET TBLPROPERTIES".equals(c.getAs("operation"))
        && String.valueOf(c.<Object>getAs("operationParameters")).contains(SWAPPING);
  }

  /**
   * Of the {@code foreign} files, the commits (log entries) that directly follow the sanitized table's
   * newest version {@code ourLatest}, one after the other, with every data file they add: another
   * writer's appends to the new table. Returned only when that accounts for every foreign file.
   */
  private Set<String> appendedCommits(Set<String> foreign, long ourLatest) throws IOException {
    Set<String> commits = new HashSet<>();
    long next = ourLatest + 1;
    while (foreign.contains(String.format("_delta_log/%020d.json", next))) {
      commits.add(String.format("_delta_log/%020d.json", next));
      next++;
    }
    if (commits.isEmpty()) {
      return Set.of();
    }
    Set<String> accounted = new HashSet<>(commits);
    for (String f : foreign) {
      // Delta's own companions of a commit (its checksum, a checkpoint) and the data files it added.
      if (f.startsWith("_delta_log/")) {
        java.util.regex.Matcher m = Pattern.compile("_delta_log/(\\d{20})\\..*").matcher(f);
        if (m.matches() && Long.parseLong(m.group(1)) > ourLatest && Long.parseLong(m.group(1)) < next) {
          accounted.add(f);
        }
      } else if (!f.startsWith("_")) {
        accounted.add(f);
      }
    }
    return accounted.equals(foreign) ? foreign : Set.of();
  }

  /**
   * Moves another writer's {@code files} (relative to the path) out of the way before the raw table
   * goes back: to the raw table when they are its next commits (that writer read the raw table; its
   * log entries continue the raw table's, so they are returned where they belong) or data files of a
   * commit not yet made (which will be made at the path), else to a new hidden sibling directory.
   * Says where they went, for the message.
   */
  private String returnForeign(Set<String> files) throws IOException {
    java.util.TreeSet<Long> commits = new java.util.TreeSet<>();
    for (String f : files) {
      Matcher m = COMMIT.matcher(f.startsWith("_delta_log/") ? f.substring("_delta_log/".length()) : "");
      if (m.matches()) {
        commits.add(Long.parseLong(m.group(1)));
      }
    }
    long next = latestCommit(raw) + 1;
    if (!commits.isEmpty() && commits.first() == mark && next == mark + 1) {
      // The writer read the raw table before this swap's mark and committed the mark's version at the
      // path: its commit, not the mark (a lock device of this run only), is the raw table's next one.
      fs.delete(new Path(raw, String.format("_delta_log/%020d.json", mark)), false);
      fs.delete(new Path(raw, String.format("_delta_log/%020d.crc", mark)), false);
      next = mark;
    }
    // Data files without a commit belong to a commit still to come, which will be made at the path:
    // they go where the path's table (the raw one, once back) is.
    boolean continuesRaw = commits.isEmpty()
        || (commits.first() == next && commits.last() == next + commits.size() - 1);
    Path to = continuesRaw ? raw : new Path(table.getParent(), "." + table.getName() + ".dptext-foreign-"
        + System.currentTimeMillis());
    for (String f : files) {
      Path target = new Path(to, f);
      fs.mkdirs(target.getParent());
      if (!fs.rename(new Path(table, f), target)) {
        throw new IOException("could not move another writer's file " + f + " to " + to);
      }
    }
    return continuesRaw ? "its files (" + files.size() + ") continue the raw table and were returned to it"
        : "its files were moved to " + to;
  }

  /**
   * Puts the raw table back at the path and deletes the sanitized copy. Another writer's files found at
   * the path (anything but {@code ours}, the sanitized table's) are moved out first
   * ({@link #returnForeign}); says where they went, for the message ("" when there were none).
   */
  private String putRawBack(Set<String> ours) throws IOException {
    String where = "";
    if (fs.exists(table)) {
      Set<String> foreign = files(table);
      foreign.removeAll(ours);
      foreign.remove(READY);
      if (!foreign.isEmpty()) {
        where = "; " + returnForeign(foreign);
      }
      delete(table); // the sanitized copy (or empty directories): this run's own
    }
    if (!fs.rename(raw, table)) {
      throw new IOException("could not rename the raw table " + raw + " back to " + table);
    }
    delete(staging);
    return where;
  }

  private static JobException conflict(String what) {
    return new JobException(ExitCode.CONFLICT, what + "; nothing was lost. Run again when no other writer is active "
        + "(pause the jobs that write to this table during a purge)");
  }

  /** Delta log entries of a committed version. */
  private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");

  /** The newest committed version in the table's log, from its file names (no Delta reader's cache). */
  private long latestCommit(Path tablePath) throws IOException {
    long latest = -1;
    for (FileStatus f : fs.listStatus(new Path(tablePath, "_delta_log"))) {
      Matcher m = COMMIT.matcher(f.getPath().getName());
      if (m.matches()) {
        latest = Math.max(latest, Long.parseLong(m.group(1)));
      }
    }
    return latest;
  }

  /** Every file under {@code dir}, relative to it. */
  private Set<String> files(Path dir) throws IOException {
    Set<String> out = new HashSet<>();
    String root = fs.makeQualified(dir).toUri().getPath();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, true);
    while (it.hasNext()) {
      String p = it.next().getPath().toUri().getPath();
      out.add(p.substring(root.length() + 1));
    }
    return out;
  }

  private void moveIn() throws IOException {
    if (fs.exists(table)) {
      if (fs.exists(raw)) {
        delete(table); // a partial copy from an interrupted rename on an object store
      } else if (!fs.rename(table, raw)) {
        throw new IOException("could not rename " + table + " to " + raw);
      }
    }
    if (!fs.rename(staging, table)) {
      throw new IOException("could not rename " + staging + " to " + table);
    }
    fs.delete(new Path(table, READY), false);
    delete(raw);
  }

  private void delete(Path p) throws IOException {
    if (fs.exists(p) && !fs.delete(p, true)) {
      throw new IOException("could not delete " + p);
    }
  }

  private JobException failure(IOException e) {
    return new JobException(ExitCode.FAILURE, "In-place swap of " + table + " failed: "
        + JobException.firstLine(e.getMessage()) + ". Run the same command again: it completes or restarts the "
        + "swap, and never loses the raw and the sanitized rows both");
  }
}
