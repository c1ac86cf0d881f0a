package dev.dptext.job.stream;

import dev.dptext.job.ledger.LedgerGate;
import dev.dptext.job.ledger.Release;
import dev.dptext.job.ledger.ReleasePlan;
import dev.dptext.job.ledger.ReleasedRows;
import dev.dptext.job.ledger.SourceSnapshot;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.sanitize.Sanitizers;
import dev.dptext.job.sanitize.Spread;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.spark.TokenAccumulators;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one micro-batch of a stream: the {@code foreachBatch} function of {@code sanitize --stream}.
 *
 * <p>Each micro-batch goes through the batch job's own write path: the rows counted (rows, malformed
 * records, null ids) in one pass, rejected records failing the stream or going to the rejects table,
 * the rest sanitized and written to the output in ONE Delta commit with the audit (userMetadata and
 * table properties, as a batch run) and the transaction {@code (dptext-stream-<query id>, batch id)};
 * rows written are checked against rows accepted (exit 4 when they differ).
 *
 * <p>Exactly once: Spark runs micro-batch N again after a restart when its checkpoint has N's offsets
 * but not N's commit mark, with the same input (the offsets name it). If N's Delta commit landed
 * before the crash, the transaction says so and the micro-batch is skipped here without reading
 * anything; if not, it is written, and since each row's noise is keyed by (key, row id), the replay
 * writes exactly the text the lost attempt would have.
 *
 * <p>The batch is persisted for the duration of the call: the count and the write then read the input
 * once, and the stream's observed metrics ({@link InputTable#observed}) are computed once.
 *
 * <p>Serializable: on a Spark Connect session {@code foreachBatch} sends this function to the server,
 * which runs it where the query runs. What it carries then is the input's rules, the server-side
 * sanitizer's settings ({@link dev.dptext.runtime.ServerSanitizer}: the key's source, never the key), the
 * target and the audit; the counts of what it committed stay on the server (its log), and the client
 * reads them from the output's history.
 */
final class StreamBatchWriter implements VoidFunction2<Dataset<Row>, Long> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(StreamBatchWriter.class);

  /** Sanitizes one micro-batch's accepted rows: text column in, output column out. */
  interface Sanitize extends java.io.Serializable {
    Dataset<Row> apply(Dataset<Row> rows);
  }

  /** Builds the error for a micro-batch's rejected records without a rejects table. */
  interface Failure extends java.io.Serializable {
    JobException apply(long batchId, InputTable.Counts counts);
  }

  /** Spreads a micro-batch over the cluster's cores. */
  interface Spread extends java.io.Serializable {
    Dataset<Row> apply(Dataset<Row> rows);
  }

  /** The query's input: the rules that tell accepted rows from rejected ones. */
  private final InputTable.Rules input;
  private final Sanitize sanitizer;
  private final String textColumn;
  private final String outputColumn;
  private final String output;
  /** The rejects table (raw records), or null when a rejected record stops the stream. */
  private final String rejects;
  /** The error for rejected records without a rejects table (counts only, never content). */
  private final Failure failure;
  private final Map<String, String> audit;
  /** Token counters of a classic run; null on Spark Connect (no accumulators there). */
  private final transient TokenAccumulators counters;
  /** Spreads a micro-batch over the cluster's cores (rows are independent; the output does not depend on it). */
  private final Spread spread;
  /**
   * The query id, known once the query started; keys the Delta transactions. On a Spark Connect server
   * (this function deserialized there) it is the query's own local property instead.
   */
  private final transient CompletableFuture<String> queryId;

  /**
   * Below this many rows a micro-batch is sanitized where it was read, without spreading it over the
   * cores: 1,000 IMDb reviews take about a second on one core (BENCHMARKS.md), about what the shuffle
   * that spreads them costs; a micro-batch of one small file would otherwise pay it for nothing.
   */
  static final long SPREAD_MIN_ROWS = 1_000;

  /** The privacy ledger's plan of this stream's releases (one per micro-batch), null without a ledger. */
  private final ReleasePlan ledger;

  /**
   * The output's transactions when the query started ({@link DeltaTables.Transactions#NONE} for a new
   * table): the first micro-batch's replay check reads them instead of the history. Exact for that
   * question: only a micro-batch of this query can be a replay, and another run of the same query at
   * the same time is refused by the checkpoint's log (and Delta skips its commit in any case).
   */
  private final DeltaTables.Transactions atStart;

  private boolean checkedReplay;

  /** What this run (this process) committed, for the end-of-run summary. */
  private long rowsIn;
  private long rowsOut;
  private long rowsRejected;
  private int batches;
  private long lastVersion = -1;

  StreamBatchWriter(InputTable.Rules input, Sanitize sanitizer, String textColumn, String outputColumn,
      String output, String rejects, Failure failure, Map<String, String> audit, TokenAccumulators counters,
      Spread spread, CompletableFuture<String> queryId, ReleasePlan ledger,
      DeltaTables.Transactions atStart) {
    this.input = input;
    this.sanitizer = sanitizer;
    this.textColumn = textColumn;
    this.outputColumn = outputColumn;
    this.output = output;
    this.rejects = rejects;
    this.failure = failure;
    this.audit = new java.util.LinkedHashMap<>(audit);
    this.counters = counters;
    this.spread = spread;
    this.queryId = queryId;
    this.ledger = ledger;
    this.atStart = atStart;
  }

  @Override
  public void call(Dataset<Row> batch, Long batchId) {
    // The micro-batch's jobs run on the stream's thread (on Spark Connect, on the server's): named here.
    try (RunPhases.Scope named = RunPhases.begin(batch.sparkSession(), "sanitize --stream", output)) {
      write(batch, batchId);
    } catch (JobException e) {
      // On a Spark Connect server (no query id handed over) only the message reaches the client: carry the code in it.
      throw queryId == null ? e.onServer() : e;
    }
  }

  private void write(Dataset<Row> batch, long batchId) {
    long start = System.nanoTime();
    String appId = StreamCheckpoint.appId(queryId(batch));
    TableWriter.Target target = TableWriter.Target.delta(output, WriteMode.APPEND).withTransaction(appId, batchId);
    // Only a run's first micro-batch can be one that a crash interrupted (within a run, a failed
    // micro-batch stops the query); checking later ones would cost a look at the table each time. The
    // commit itself checks the transaction again in any case.
    boolean mayBeReplay = !checkedReplay;
    checkedReplay = true;
    Optional<String> done = mayBeReplay ? TableWriter.alreadyCommitted(target, atStart.of(appId)) : Optional.empty();
    if (done.isPresent()) {
      LOG.info("stream: micro-batch {} is already in the output (committed before a restart): skipped, nothing "
          + "read or written", batchId);
      return;
    }
    TokenTally before = TokenTally.of(counters);
    Dataset<Row> cached = batch.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      InputTable rows = input.over(cached);
      InputTable.Counts counts = checkAndCount(batch, rows, appId, batchId);
      Dataset<Row> toSanitize = rows.accepted();
      Dataset<Row> clean = sanitizer.apply(counts.rows() >= SPREAD_MIN_ROWS ? spread.apply(toSanitize) : toSanitize);
      // The micro-batch's release is recorded before it is written; its snapshot is the batch itself, so a
      // replay after a restart repeats it (same key, settings, rows) and adds nothing.
      Release release = ledger == null ? null : LedgerGate.before(batch.sparkSession(), ledger,
          SourceSnapshot.microBatch(appId, batchId, batch, ledger.source()),
          ReleasedRows.of(toSanitize, ledger.idColumn()), counts.content(), false,
          line -> LOG.info("stream: micro-batch {}: {}", batchId, line));
      TableWriter.Result written = commit(batch, clean, target, release, counts, batchId);
      if (written != null) {
        tally(batchId, counts, written, before, start);
      }
    } finally {
      cached.unpersist(false);
    }
  }

  /** Checks and counts the micro-batch's rows; writes its rejected records, or refuses them. */
  private InputTable.Counts checkAndCount(Dataset<Row> batch, InputTable rows, String appId, long batchId) {
    RunPhases.enter(batch.sparkSession(), "micro-batch " + batchId + ": check and count");
    InputTable.Counts counts = rows.count(ledger != null); // with the rows' content for the ledger
    long rejected = counts.rejected();
    if (rejected > 0 && rejects == null) {
      throw failure.apply(batchId, counts);
    }
    if (rejected > 0) {
      writeRejects(rows, appId, batchId);
      LOG.warn("stream: micro-batch {}: {} rejected record(s) ({} malformed, {} with a null id) written, "
          + "unsanitized, to {}", batchId, rejected, counts.malformed(), counts.nullIds(), rejects);
    }
    return counts;
  }

  /**
   * Sanitizes and commits the micro-batch as Delta's transaction (appId, batchId); null when another run of
   * this query committed it meanwhile (its release then withdrawn). The written rows must be the accepted ones.
   */
  private TableWriter.Result commit(Dataset<Row> batch, Dataset<Row> clean, TableWriter.Target target,
      Release release, InputTable.Counts counts, long batchId) {
    TableWriter.Commit commit = release == null ? TableWriter.Commit.of(audit)
        : TableWriter.Commit.of(audit).withCommitOnly(LedgerGate.RELEASE_PROPERTY, release.releaseId());
    TableWriter.Result written;
    try {
      RunPhases.enter(batch.sparkSession(), "micro-batch " + batchId + ": sanitize and write");
      written = TableWriter.write(clean, target, commit);
    } catch (TableWriter.AlreadyCommitted e) {
      if (release != null) {
        LedgerGate.withdraw(batch.sparkSession(), ledger, release);
      }
      LOG.info("stream: micro-batch {} was committed by another run of this query meanwhile: nothing written",
          batchId);
      return null;
    } catch (Exception e) { // Spark's task failures are SparkExceptions, checked, thrown undeclared
      Optional<JobException> tooLarge = Sanitizers.outOfMemory(e, counts::longestText);
      if (tooLarge.isPresent()) {
        throw tooLarge.get();
      }
      throw e;
    }
    if (release != null) {
      LedgerGate.committed(batch.sparkSession(), ledger, release, written.version(), LOG::warn);
    }
    long accepted = counts.rows() - counts.rejected();
    if (written.rowsWritten() != accepted) {
      throw JobException.of("STREAM_BATCH_ROWS_DIFFER", "batch", batchId, "written", written.rowsWritten(), "accepted",
          accepted, "version", written.version(), "output", output);
    }
    return written;
  }

  /** The token counters as a micro-batch found them, so that its own share can be logged. */
  private record TokenTally(long tokens, long changed, long outOfVocabulary) {
    static TokenTally of(TokenAccumulators counters) {
      return counters == null ? new TokenTally(0, 0, 0)
          : new TokenTally(counters.tokens(), counters.changed(), counters.outOfVocabulary());
    }
  }

  /** Adds a committed micro-batch to the run's totals and logs it. */
  private void tally(long batchId, InputTable.Counts counts, TableWriter.Result written, TokenTally before,
      long start) {
    long rejected = counts.rejected();
    rowsIn += counts.rows();
    rowsOut += written.rowsWritten();
    rowsRejected += rejected;
    batches++;
    lastVersion = written.version();
    if (counters == null) {
      LOG.info(String.format(Locale.ROOT, "stream: micro-batch %d committed as table version %d: rows in %,d, "
          + "out %,d, rejected %,d; %.1f s", batchId, written.version(), counts.rows(), written.rowsWritten(),
          rejected, (System.nanoTime() - start) / 1e9));
      return;
    }
    long t = counters.tokens() - before.tokens();
    LOG.info(String.format(Locale.ROOT, "stream: micro-batch %d committed as table version %d: rows in %,d, "
        + "out %,d, rejected %,d; tokens %,d, changed %.1f%%, out of vocabulary %.1f%%; %.1f s", batchId,
        written.version(), counts.rows(), written.rowsWritten(), rejected, t,
        pct(counters.changed() - before.changed(), t), pct(counters.outOfVocabulary() - before.outOfVocabulary(), t),
        (System.nanoTime() - start) / 1e9));
  }

  /** The query's id: handed over by the program that started it, else the query's own (on a Connect server). */
  private String queryId(Dataset<Row> batch) {
    if (queryId != null) {
      return queryId.join();
    }
    return dev.dptext.classic.ClassicContext.streamingQueryId(batch.sparkSession()).orElseThrow(() ->
        new IllegalStateException("No streaming query id in this micro-batch's thread"));
  }

  /** Appends the micro-batch's rejected records (raw) to the rejects table, exactly once like the rows. */
  private void writeRejects(InputTable rows, String appId, long batchId) {
    try {
      TableWriter.write(rows.rejected(), TableWriter.Target.delta(rejects, WriteMode.APPEND)
          .withTransaction(appId, batchId), TableWriter.Commit.rawRecords());
    } catch (TableWriter.AlreadyCommitted e) {
      // Written before a restart: the replay has the same rejected records.
    }
  }

  private static double pct(long a, long b) {
    return b == 0 ? 0 : 100.0 * a / b;
  }

  long rowsIn() {
    return rowsIn;
  }

  long rowsOut() {
    return rowsOut;
  }

  long rowsRejected() {
    return rowsRejected;
  }

  int batches() {
    return batches;
  }

  long lastVersion() {
    return lastVersion;
  }
}
