package dev.dptext.job;

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
 *   <li>the raw table is renamed to {@code .<name>.dptext-raw}, the staging table to the path;
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
      Path p = new Path(path);
      this.fs = p.getFileSystem(dev.dptext.spark.HadoopConf.of(spark));
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

  /**
   * Swaps the ready staging table in, unless another writer committed to the table since
   * {@code readVersion} (the version the run read): its rows would be lost, so that is a conflict and
   * the raw table stays as it is, with that writer's commit.
   *
   * <p>Checking for other writers and renaming are separate steps of the file system, so each step is
   * checked again after it: a commit that reached the raw table between the check and its rename
   * puts the raw table back; files another writer put into the new table between the renames and the
   * final check (its data, its commit) are moved to the raw table, where they belong (that writer read
   * the raw table), and the raw table is put back. Only after that check is the raw table deleted. A
   * writer whose transaction spans the whole swap can still commit to the new table afterwards (its
   * rows then land there, as an append after the swap would); stop other writers before a purge.
   */
  void swap(long readVersion) {
    try {
      long now = latestCommit(table);
      if (now != readVersion) {
        discardStaging();
        throw conflict("Another writer committed to " + table + " (version " + now + ") while this run sanitized "
            + "version " + readVersion + "; nothing was changed");
      }
      Set<String> ours = files(staging);
      if (!fs.rename(table, raw)) {
        throw new IOException("could not rename " + table + " to " + raw);
      }
      long rawNow = latestCommit(raw);
      if (rawNow != readVersion) {
        putRawBack(Set.of());
        throw conflict("Another writer committed to " + table + " (version " + rawNow + ") while this run swapped "
            + "it; the raw table was put back with that commit and nothing else changed");
      }
      if (!fs.rename(staging, table)) {
        throw new IOException("could not rename " + staging + " to " + table + (fs.exists(table) ? " (another "
            + "writer created a table there during the swap; the raw table is at " + raw + ")" : ""));
      }
      Set<String> foreign = files(table);
      foreign.removeAll(ours);
      if (!foreign.isEmpty()) {
        putRawBack(foreign);
        throw conflict("Another writer wrote " + foreign.size() + " file(s) to " + table + " while this run swapped "
            + "it; they were moved to the raw table, which was put back with them, and the sanitized table was "
            + "discarded");
      }
      fs.delete(new Path(table, READY), false);
      delete(raw);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /**
   * Puts the raw table back at the path after a swap found another writer: {@code foreign} (files,
   * relative to the table, that writer put into the new table) move to the raw table first, then the
   * new table is deleted and the raw table renamed back.
   */
  private void putRawBack(Set<String> foreign) throws IOException {
    for (String f : foreign) {
      Path to = new Path(raw, f);
      fs.mkdirs(to.getParent());
      if (!fs.rename(new Path(table, f), to)) {
        throw new IOException("could not move " + f + " back to the raw table " + raw);
      }
    }
    if (fs.exists(table)) {
      delete(table);
    }
    delete(staging);
    if (!fs.rename(raw, table)) {
      throw new IOException("could not rename the raw table " + raw + " back to " + table);
    }
  }

  private static JobException conflict(String what) {
    return new JobException(ExitCode.CONFLICT, what + ". Run again when no other writer is active (pause the jobs "
        + "that write to this table during a purge)");
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
