package dev.dptext.job.inplace;

import dev.dptext.job.base.JobException;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
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
 *   <li>the run takes the purge lock ({@code .<name>.dptext-purge.lock}, {@link #lock}): one purge of a
 *       table at a time;
 *   <li>the sanitized rows are written to a new table in the hidden sibling {@code .<name>.dptext-staging};
 *       its log is <em>fenced</em> ({@link #fence}) to run past the raw table's, and it is marked ready
 *       ({@value #READY}) once the rows-in = rows-out check passed;
 *   <li>the raw table is renamed to {@code .<name>.dptext-raw}, the staging table to the path, each
 *       step checked against other writers, and the table left at the path verified ({@link #swap});
 *   <li>the raw table is deleted.
 * </ol>
 *
 * A crash before the mark leaves the raw table untouched (the re-run discards the staging table and
 * starts again); a crash after it leaves a complete sanitized table, which the re-run swaps in
 * without sanitizing again (unless another writer committed to the raw table since: then it starts
 * again). At no point are both the raw and the sanitized rows gone. The renames are atomic on HDFS and
 * local file systems; on object stores (S3, ABFS, GCS) a rename is a copy, and an interrupted copy is
 * completed by the re-run from the ready staging table in the same way.
 *
 * <p><b>Why a writer prepared against the raw table cannot commit into the new one.</b> A Delta
 * writer reads the table's latest version {@code v} when its transaction starts and commits by
 * creating {@code _delta_log/<v+1>.json}, a create that fails if the file exists. When it exists,
 * Delta checks the commits made since {@code v} and retries at the next free version only if none
 * conflicts; a commit that changes the table's metadata conflicts with every transaction
 * ({@code MetadataChangedException}). The raw table's last version is the swap's mark {@code M}, so
 * every writer that read the raw table commits at a version {@code <= M + 1}. The new table's log is
 * therefore extended, by property commits ({@value #FENCE}; each one a metadata change), until its
 * newest version is at least {@code M + 1}: each version such a writer can try exists and changes the
 * metadata, and its commit fails instead of landing as the next free version of the new log. Only
 * public API is used: {@code ALTER TABLE … SET TBLPROPERTIES} through SQL and Hadoop's
 * {@link FileSystem}. The same fence, the other way round, protects the raw table when it has to go
 * back after the new table was visible ({@link #withdraw}).
 */
final class InPlaceSwap {
  /** Written into the staging table once its rows were checked; Delta ignores files named {@code _…}. */
  static final String READY = "_dptext_swap_ready";

  /** Table property the raw table carries during a swap (its commit stops writers already under way). */
  static final String SWAPPING = "dptext.purgeSwapping";

  /** Table property of the fence commits: each sets it to its own version. */
  static final String FENCE = "dptext.purgeFence";

  /** How often a running purge refreshes its lock, and after how long without a refresh a lock is abandoned. */
  static final long LOCK_REFRESH_MS = 15_000;
  static final long LOCK_STALE_MS = 120_000;

  /**
   * Test seam: called with the name of each step once it is done: {@code staged} (the staging table
   * written and fenced), {@code ready}, {@code marked}, {@code raw-renamed}, {@code staging-renamed},
   * {@code verified}, {@code raw-deleted}.
   */
  static volatile Consumer<String> afterStep = step -> { };

  private final SparkSession spark;
  private final FileSystem fs;
  /** The path as the user gave it (--output), for messages. */
  private final String output;
  private final Path table;
  private final Path staging;
  private final Path raw;
  private final Path lock;

  /** The version of this swap's {@link #SWAPPING} commit in the raw table, once made. */
  private long mark = -1;

  InPlaceSwap(SparkSession spark, String path) {
    this.spark = spark;
    this.output = path;
    try {
      // The real table: through a symbolic link (to the table or to a directory above it) the swap
      // renames and deletes the table the link points to, and the link stays, leading to the new table.
      Path p = new Path(OutputLocation.resolved(spark, path));
      this.fs = p.getFileSystem(dev.dptext.runtime.HadoopConf.of(spark));
      this.table = fs.makeQualified(p);
    } catch (IOException e) {
      throw JobException.of(e, "PATH_NOT_ACCESSIBLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
    if (table.getParent() == null) {
      throw JobException.of("IN_PLACE_PURGE_NEEDS_PARENT", "path", path);
    }
    this.staging = sibling("staging");
    this.raw = sibling("raw");
    this.lock = sibling("purge.lock");
  }

  private Path sibling(String what) {
    return new Path(table.getParent(), "." + table.getName() + ".dptext-" + what);
  }

  /** Where the sanitized rows are written before the swap. */
  String stagingPath() {
    return staging.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // The purge lock

  private static final ScheduledExecutorService REFRESHER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "dptext-purge-lock");
    t.setDaemon(true);
    return t;
  });

  /** The locks each thread's runs hold, released by {@link #releaseHeld} when the run ends. */
  private static final Map<Thread, List<InPlaceSwap>> HELD = new ConcurrentHashMap<>();

  private String runId;
  private ScheduledFuture<?> refresh;

  /**
   * Takes the purge lock of this table, or ends the run as a conflict (exit 5) that names the
   * {@code --output} when another purge of it holds the lock. The lock is a file created only if
   * absent (exclusive on HDFS; read back to tell two creators apart where it is not), refreshed by
   * the running purge every {@value #LOCK_REFRESH_MS} ms; one not refreshed for {@value #LOCK_STALE_MS}
   * ms was left by a killed run and is taken over (the re-run then completes or restarts that run's swap).
   */
  void lock() {
    runId = UUID.randomUUID().toString();
    String content = "runId=" + runId + "\noutput=" + output + "\nstarted=" + Instant.now() + "\n";
    try {
      for (int attempt = 0; attempt < 3; attempt++) {
        if (tryCreateLock(content)) {
          HELD.computeIfAbsent(Thread.currentThread(), t -> new ArrayList<>()).add(this);
          refresh = REFRESHER.scheduleWithFixedDelay(this::refreshLock, LOCK_REFRESH_MS, LOCK_REFRESH_MS,
              TimeUnit.MILLISECONDS);
          return;
        }
        FileStatus st;
        try {
          st = fs.getFileStatus(lock);
        } catch (FileNotFoundException gone) {
          continue; // released in the meantime
        }
        if (System.currentTimeMillis() - st.getModificationTime() < LOCK_STALE_MS) {
          throw busy(readText(lock));
        }
        // Abandoned by a run that was killed: moved to a name of this run's own, so that of two runs
        // taking it over only one succeeds.
        Path abandoned = new Path(lock.getParent(), lock.getName() + ".abandoned-" + runId);
        if (fs.rename(lock, abandoned)) {
          fs.delete(abandoned, false);
        }
      }
      throw busy(readText(lock));
    } catch (IOException e) {
      throw failure(e);
    }
  }

  private boolean tryCreateLock(String content) throws IOException {
    try (FSDataOutputStream out = fs.create(lock, false)) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      if (fs.exists(lock)) {
        return false; // some file systems report an existing file as a plain IOException
      }
      throw e;
    }
    return readText(lock).contains("runId=" + runId + "\n");
  }

  private void refreshLock() {
    try {
      if (readText(lock).contains("runId=" + runId + "\n")) {
        fs.setTimes(lock, System.currentTimeMillis(), -1);
      }
    } catch (IOException | RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(InPlaceSwap.class).warn("Could not refresh the purge lock {}: {}", lock,
          e.toString());
    }
  }

  /** Releases the purge locks the current thread's run holds (called when the run ends, however it ends). */
  static void releaseHeld() {
    List<InPlaceSwap> held = HELD.remove(Thread.currentThread());
    if (held == null) {
      return;
    }
    for (InPlaceSwap s : held) {
      s.refresh.cancel(false);
      try {
        if (s.fs.exists(s.lock) && readText(s.fs, s.lock).contains("runId=" + s.runId + "\n")) {
          s.fs.delete(s.lock, false);
        }
      } catch (IOException e) {
        org.slf4j.LoggerFactory.getLogger(InPlaceSwap.class).warn("Could not delete the purge lock {}: {} (a purge "
            + "run after {} ms takes it over)", s.lock, e.toString(), LOCK_STALE_MS);
      }
    }
  }

  private JobException busy(String holder) {
    String since = holder.lines().filter(l -> l.startsWith("started=")).map(l -> l.substring(8)).findFirst()
        .orElse("?");
    return JobException.of("IN_PLACE_PURGE_BUSY", "output", output, "since", since,
        "staleSeconds", LOCK_STALE_MS / 1000);
  }

  private String readText(Path p) throws IOException {
    return readText(fs, p);
  }

  private static String readText(FileSystem fs, Path p) throws IOException {
    try (java.io.InputStream in = fs.open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (FileNotFoundException e) {
      return "";
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Recovery of an interrupted run

  /**
   * Finishes or discards what an interrupted earlier run left: a message when that run's swap was
   * completed now (this run then has nothing to do), empty when the raw table is in place and the run
   * should go on. Called with the lock held, so what it finds is no running purge's.
   */
  Optional<String> recover() {
    try {
      Path readyFile = new Path(staging, READY);
      if (fs.exists(readyFile)) {
        // The earlier run wrote and checked every sanitized row. Swapped in, unless another writer
        // committed to the raw table after the version that run read: its rows would be lost.
        Path rawNow = fs.exists(raw) ? raw : table;
        Optional<Long> read = readVersionIn(readText(readyFile));
        if (read.isPresent() && fs.exists(new Path(rawNow, "_delta_log"))) {
          long latest = latestCommit(rawNow);
          boolean moved = latest > read.get() + 1 || (latest == read.get() + 1 && !isSwappingMark(rawNow, latest));
          if (moved && rawNow.equals(table)) {
            delete(staging);
            return Optional.empty(); // sanitize again, from the raw table as it is now
          }
        }
        moveIn();
        return Optional.of("Completed the interrupted in-place run: " + output + " now holds only the sanitized "
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

  private static Optional<Long> readVersionIn(String ready) {
    Matcher m = Pattern.compile("readVersion=(\\d+)").matcher(ready);
    return m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
  }

  private void moveIn() throws IOException {
    if (fs.exists(table)) {
      if (fs.exists(raw)) {
        delete(table); // a partial copy from an interrupted rename on an object store
      } else {
        rename(table, raw);
      }
    }
    if (fs.exists(new Path(raw, "_delta_log"))) {
      fence(staging, latestCommit(raw) + 1);
    }
    rename(staging, table);
    fs.delete(new Path(table, READY), false);
    delete(raw);
  }

  // ---------------------------------------------------------------------------------------------
  // The swap

  /** Deletes the staging table (after a failed check): the raw table stays as it was. */
  void discardStaging() {
    try {
      delete(staging);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /**
   * After the staging table was written and checked: fences it past the version the swap's mark will
   * take ({@code readVersion + 1}), marks it ready and swaps it in ({@link #swap}).
   */
  void complete(long readVersion) {
    try {
      fence(staging, readVersion + 2);
      afterStep.accept("staged");
      try (FSDataOutputStream out = fs.create(new Path(staging, READY), true)) {
        out.write(("ready\nreadVersion=" + readVersion + "\n").getBytes(StandardCharsets.UTF_8));
      }
      afterStep.accept("ready");
    } catch (IOException e) {
      throw failure(e);
    }
    swap(readVersion);
  }

  /**
   * Extends the log of the table at {@code dir} by property commits ({@value #FENCE}) until its newest
   * version is at least {@code through}: a commit prepared from a snapshot older than {@code through}
   * then finds its version taken by a metadata change and fails (see the class comment).
   */
  private void fence(Path dir, long through) throws IOException {
    long latest = latestCommit(dir);
    long from = latest;
    long start = System.nanoTime();
    while (latest < through) {
      spark.sql("ALTER TABLE " + DeltaTables.ident(spark, dir.toString()) + " SET TBLPROPERTIES ("
          + OutputFormat.sqlString(FENCE) + " = '" + (latest + 1) + "')");
      long now = latestCommit(dir);
      if (now <= latest) {
        throw JobException.of("IN_PLACE_PURGE_FENCE_FAILED", "output", output, "table", dir);
      }
      latest = now;
    }
    if (latest > from) {
      org.slf4j.LoggerFactory.getLogger(InPlaceSwap.class).info("fenced {} from version {} to {} in {} ms", dir, from,
          latest, (System.nanoTime() - start) / 1_000_000);
    }
  }

  /**
   * Swaps the ready staging table in, unless another writer committed to the table since
   * {@code readVersion} (the version the run read): its rows would be lost, so that is a conflict and
   * the raw table stays as it is, with that writer's commit.
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
   *   <li>the sanitized table is renamed in. Its log runs past the mark ({@link #fence}), so no writer
   *       that read the raw table can commit into it. It is then verified: readable, every file in it
   *       its own or part of a commit that directly follows its own (another writer's append to the
   *       new table, which stays), and no log file naming a raw data file or the raw table's id (raw
   *       statistics). If not, it is withdrawn and the raw table goes back ({@link #withdraw}).
   * </ol>
   *
   * Only then is the raw table deleted. Every way back ends as a conflict (exit 5) with every row of
   * every committed write in a table.
   */
  void swap(long readVersion) {
    try {
      String rawId = DeltaTables.detail(spark, table.toString()).id();
      spark.sql("ALTER TABLE " + DeltaTables.ident(spark, table.toString()) + " SET TBLPROPERTIES ("
          + OutputFormat.sqlString(SWAPPING) + " = 'true')");
      long marked = latestCommit(table);
      this.mark = marked;
      afterStep.accept("marked");
      if (marked != readVersion + 1 || !isSwappingMark(table, marked)) {
        discardStaging();
        throw conflict("Another writer committed to " + output + " while this run sanitized version " + readVersion
            + "; the raw table was left as it is, with that commit");
      }
      fence(staging, marked + 1); // already so (complete), unless the staging table was made otherwise
      Set<String> ours = files(staging);
      long ourLatest = latestCommit(staging);
      rename(table, raw);
      afterStep.accept("raw-renamed");
      long rawNow = latestCommit(raw);
      if (rawNow != marked) {
        String where = putRawBack(Set.of()); // anything at the path now is another writer's
        throw conflict("Another writer committed to " + output + " (version " + rawNow + ") while this run swapped "
            + "it; the raw table was put back with that commit" + where);
      }
      // A rename onto an existing directory moves the source INTO it (Hadoop's semantics), so the path
      // must be free before, and the staging table must have become the path after.
      boolean renamed = !fs.exists(table) && fs.rename(staging, table);
      Path nested = new Path(table, staging.getName());
      if (renamed && fs.exists(nested)) {
        rename(nested, staging);
        renamed = false;
      }
      if (!renamed) {
        if (!fs.exists(table)) {
          throw renameFailed(staging, table);
        }
        // Another writer wrote to the path while it was free: a new table of its own, or the next
        // commit of the raw table it had read. Everything there is its (the staging table is still
        // beside it).
        String where = putRawBack(Set.of());
        throw conflict("Another writer wrote to " + output + " while this run swapped it; the raw table was put "
            + "back" + where);
      }
      afterStep.accept("staging-renamed");
      Optional<String> problem = verify(ours, ourLatest, rawId);
      if (problem.isPresent()) {
        String where = withdraw(ourLatest);
        throw conflict(problem.get() + "; the sanitized table was withdrawn and the raw table put back" + where);
      }
      fs.delete(new Path(table, READY), false);
      afterStep.accept("verified");
      delete(raw);
      afterStep.accept("raw-deleted");
    } catch (IOException e) {
      throw failure(e);
    }
  }

  /**
   * What is wrong with the table now at the path, if anything: a file that is neither the sanitized
   * table's nor part of a commit directly following its own; a log file (commit or checksum) naming
   * one of the raw table's data files or its id (a commit prepared from the raw table, whose checksum
   * would carry the raw files' statistics); a table Delta cannot read.
   */
  private Optional<String> verify(Set<String> ours, long ourLatest, String rawId) throws IOException {
    Set<String> foreign = files(table);
    foreign.removeAll(ours);
    foreign.remove(READY);
    Set<String> appended = appendedCommits(foreign, ourLatest);
    if (!foreign.isEmpty() && !foreign.equals(appended)) {
      return Optional.of("Another writer wrote " + foreign.size() + " file(s) to " + output + " that are not part of "
          + "a commit to the sanitized table while this run swapped it");
    }
    if (!appended.isEmpty()) {
      Set<String> rawNames = new HashSet<>();
      for (String f : files(raw)) {
        if (!f.startsWith("_")) {
          rawNames.add(f.substring(f.lastIndexOf('/') + 1));
        }
      }
      rawNames.add(rawId);
      for (String f : appended) {
        if (f.startsWith("_delta_log/") && (f.endsWith(".json") || f.endsWith(".crc"))) {
          String text = readText(new Path(table, f));
          if (rawNames.stream().anyMatch(text::contains)) {
            return Optional.of("A commit to " + output + " made while this run swapped it (" + f + ") refers to the "
                + "raw table");
          }
        }
      }
      org.slf4j.LoggerFactory.getLogger(InPlaceSwap.class).warn("Another writer committed to {} right after the "
          + "swap ({}): its rows were added to the sanitized table as written", output, appended);
    }
    try {
      spark.read().format("delta").load(table.toString()).count();
    } catch (RuntimeException e) {
      return Optional.of("The sanitized table at " + output + " could not be read after the swap ("
          + JobException.firstLine(e.getMessage()) + ")");
    }
    return Optional.empty();
  }

  /**
   * Withdraws the sanitized table after it was visible at the path and puts the raw table back: the
   * new table is renamed aside first (so that nothing committed to it is deleted unseen), the raw
   * table's log is fenced past the new one's newest version (a writer that read the new table cannot
   * commit into the raw one), and the raw table renamed back. The withdrawn table is deleted unless
   * another writer committed to it (rows it was told were committed): then it is kept, and the message
   * names it. Says what happened to other writers' files, for the message.
   */
  private String withdraw(long ourLatest) throws IOException {
    Path withdrawn = sibling("withdrawn-" + System.currentTimeMillis());
    rename(table, withdrawn);
    long newLatest = latestCommit(withdrawn);
    fence(raw, newLatest + 1);
    String where = "";
    if (fs.exists(table)) {
      // Written at the free path in the instant since: moved aside with the rest.
      Path aside = sibling("foreign-" + System.currentTimeMillis());
      rename(table, aside);
      where += "; files written to the path meanwhile were moved to " + aside;
    }
    rename(raw, table);
    if (newLatest > ourLatest) {
      where += "; another writer's commits to the sanitized table (versions " + (ourLatest + 1) + "-" + newLatest
          + ") are kept with it in " + withdrawn;
    } else {
      delete(withdrawn); // this run's own table and uncommitted files of writers whose commits now fail
    }
    return where;
  }

  /** Whether version {@code v} of the table at {@code at} is a {@link #SWAPPING} mark. */
  private boolean isSwappingMark(Path at, long v) {
    org.apache.spark.sql.Row c = DeltaTables.commit(spark, at.toString(), v);
    return c != null && "SET TBLPROPERTIES".equals(c.getAs("operation"))
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
        Matcher m = Pattern.compile("_delta_log/(\\d{20})\\..*").matcher(f);
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
    Path to = continuesRaw ? raw : sibling("foreign-" + System.currentTimeMillis());
    for (String f : files) {
      Path target = new Path(to, f);
      fs.mkdirs(target.getParent());
      rename(new Path(table, f), target);
    }
    return continuesRaw ? "; its files (" + files.size() + ") continue the raw table and were returned to it"
        : "; its files were moved to " + to;
  }

  /**
   * Puts the raw table back at the path (before the sanitized table was ever there) and deletes the
   * staging table. Another writer's files found at the path are moved out first ({@link #returnForeign});
   * says where they went, for the message ("" when there were none).
   */
  private String putRawBack(Set<String> ours) throws IOException {
    String where = "";
    if (fs.exists(table)) {
      Set<String> foreign = files(table);
      foreign.removeAll(ours);
      foreign.remove(READY);
      if (!foreign.isEmpty()) {
        where = returnForeign(foreign);
      }
      delete(table); // empty directories left by the moves
    }
    rename(raw, table);
    delete(staging);
    return where;
  }

  private JobException conflict(String what) {
    return JobException.of("IN_PLACE_PURGE_CONFLICT", "what", what, "output", output);
  }

  /**
   * Renames {@code from} to {@code to}; a refused rename (Hadoop's {@code false}, no reason given) ends the run
   * as {@code IN_PLACE_PURGE_RENAME_FAILED}, which a re-run completes or restarts like any failed step.
   */
  private void rename(Path from, Path to) throws IOException {
    if (!fs.rename(from, to)) {
      throw renameFailed(from, to);
    }
  }

  private JobException renameFailed(Path from, Path to) {
    return JobException.of("IN_PLACE_PURGE_RENAME_FAILED", "output", output, "from", from, "to", to);
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

  private void delete(Path p) throws IOException {
    if (fs.exists(p) && !fs.delete(p, true)) {
      throw JobException.of("IN_PLACE_PURGE_DELETE_FAILED", "output", output, "path", p);
    }
  }

  private JobException failure(IOException e) {
    return JobException.of(e, "IN_PLACE_PURGE_FAILED", "output", output, "reason",
        JobException.firstLine(e.getMessage()));
  }
}
