package dev.dptext.job.stream;

import dev.dptext.classic.Classic;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.run.ProgressReporter;
import dev.dptext.job.run.RunSummary;
import dev.dptext.job.sanitize.RunPaths;
import dev.dptext.job.sanitize.SanitizeRequest;
import dev.dptext.job.sanitize.Sanitizers;
import dev.dptext.job.sanitize.Spread;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.spark.DpText;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.spark.TokenAccumulators;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sanitize --stream}: the input as a Structured Streaming query (file or Delta source), each
 * micro-batch sanitized and committed to a Delta table exactly once ({@link StreamBatchWriter}), the
 * query's progress in its checkpoint ({@link StreamCheckpoint}).
 *
 * <p>Why {@code foreachBatch} and not Delta's streaming sink, which is idempotent per micro-batch too:
 * the sink commits the rows alone, so the audit (table properties stating the guarantee) would need a
 * second commit, and a micro-batch's malformed records could not stop the stream before its rows were
 * committed. Through {@code foreachBatch} every micro-batch takes the batch job's write path: the same
 * checks, rows and audit in one commit, the Delta transaction (query id, batch id) that Delta's sink
 * also uses.
 *
 * <p>The model and mechanism are built and broadcast once, before the query starts; each micro-batch
 * reuses the broadcast. On Spark Connect the server builds them ({@code dp_sanitize}, prepared before the
 * query starts) and runs the micro-batch function itself; the run's figures are read back from the
 * output's history. Refused in stream mode: fresh randomness (a replayed micro-batch would differ
 * from the attempt a crash interrupted), corpus word counts (a stream has no whole corpus), output
 * other than Delta, in-place, and modes other than errorifexists and append.
 */
public final class SanitizeStream {
  private static final Logger LOG = LoggerFactory.getLogger(SanitizeStream.class);
  /** The name of the stream's observed metrics in its progress. */
  static final String OBSERVED = "dptext";

  private SanitizeStream() {}

  /**
   * Runs {@code r} ({@link SanitizeRequest#in checked for this session}) as a stream in {@code spark};
   * {@code start} is when the run started ({@link System#nanoTime}).
   *
   * @return the exit code: 0 once the query stopped by itself
   * @throws JobException for every failure the job reports with its own exit code
   */
  public static int run(SanitizeRequest r, StreamSettings stream, SparkSession spark, long start) {
    WriteMode mode = WriteMode.parse(r.mode());
    RunPhases.enter(spark, "check the output and the checkpoint");
    refuseUnsupported(r, mode);
    refuseInPlace(spark, r.input(), r.output());
    // An output inside the input (or the reverse) is refused before the query starts.
    RunPaths.checkNesting(spark, r.input(), r.output());
    // What is at the output (a file, a non-Delta directory) is refused as in a batch run; whether an
    // existing table may take this stream's rows is the checkpoint's question.
    TableWriter.Target target = new TableWriter.Target(r.output(), "delta", mode, null, List.of(), null, null);
    OutputLocation outputAt = OutputLocation.inspect(spark, r.output());
    outputAt.checkWritable(new TableWriter.Target(r.output(), "delta", WriteMode.APPEND, null, List.of(), null,
        null));
    // One read of the output's history answers the checkpoint's check, the first micro-batch's replay
    // check and (on Connect) the version this run starts from.
    DeltaTables.Transactions history = outputAt.kind == OutputLocation.Kind.DELTA_TABLE
        ? DeltaTables.transactions(spark, r.output()) : DeltaTables.Transactions.NONE;
    StreamCheckpoint checkpoint = StreamCheckpoint.check(spark, stream.checkpoint(), r.input(), r.output());
    checkpoint.checkOutput(r.output(), outputAt, history, mode == WriteMode.ERROR_IF_EXISTS);
    if (r.rejects() != null) {
      RunPaths.checkRejects(spark, r.rejects(), r.input(), r.output(), r.outputFormat());
    }
    RunPaths.checkLedger(spark, r.ledger() == null ? null : r.ledger().ledger(), r.input(), r.output(), r.rejects());
    DpTextOptions options = r.settings().get();
    IdMode ids = Sanitizers.idMode(options.idMode(), r.idColumn());
    if (ids == IdMode.FRESH) {
      throw new JobException(ExitCode.USAGE, "--stream refuses --id-mode fresh: a micro-batch that a crash "
          + "interrupted is run again after the restart, and with fresh randomness its rows would get other text "
          + "than the lost attempt's. Use --id-column (recommended) or --id-mode content-hash");
    }
    boolean connect = !Classic.is(spark);
    // On Spark Connect the server resolves the key; classic, it is resolved here, before any reading.
    Sanitizers.OnServer onServer = connect ? Sanitizers.onServer(spark, r, options, ids) : null;
    DpText.Builder builder = connect ? onServer.builder() : Sanitizers.classic(spark, options);
    DataFormat format = r.resolvedInputFormat();
    Map<String, String> readOptions = new LinkedHashMap<>(r.inputOptions());
    readOptions.putAll(stream.sourceOptions());
    String text = r.textColumn();
    InputTable input = InputTable.readStream(spark, r.input(), format, readOptions, r.inputSchema(), r.where(),
        ids == IdMode.COLUMN ? r.idColumn() : null, text);
    if (format == DataFormat.TEXT && text.equals("text") && !List.of(input.all().columns()).contains("text")) {
      text = "value";
      input = InputTable.readStream(spark, r.input(), format, readOptions, r.inputSchema(), r.where(), null, text);
    }
    String out = r.outputColumn() == null ? text : r.outputColumn();
    try {
      if (ids == IdMode.COLUMN) {
        builder.idColumn(r.idColumn());
      } else {
        builder.seedByContent();
      }
      builder.validate(input.schema(), text);
      if (connect) {
        Sanitizers.prepareOnServer(spark, onServer.server()); // the server's model and key, before the query starts
      } else {
        builder.prepare(spark); // the model and the broadcast, once for the whole query
      }
    } catch (IllegalArgumentException | dev.dptext.embedding.EmbeddingFormatException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    }
    String hash = ModelOptions.hash(spark, options);
    String layout = dev.dptext.runtime.ModelLoader.layout(spark, options);
    Map<String, String> audit = RunSummary.audit(builder.options(), builder.guarantee(), hash,
        Sanitizers.PUBLIC_FREQUENCIES, layout);
    // A classic run counts tokens with accumulators; a Connect client has none (the micro-batches run on
    // the server, whose log has each one's figures).
    TokenAccumulators counters = connect ? null : new TokenAccumulators(spark);
    StreamBatchWriter.Sanitize sanitize;
    String textColumn = text;
    if (connect) {
      dev.dptext.runtime.ServerSanitizer server = onServer.server(); // serializable: settings and the key's source only
      sanitize = rows -> server.transform(rows, textColumn, out);
    } else {
      builder.countTokens(counters);
      sanitize = rows -> builder.transform(rows, textColumn, out); // classic: never serialized
    }
    CompletableFuture<String> queryId = connect ? null : new CompletableFuture<>();
    InputTable in = input;
    String inputPath = r.input();
    int partitions = r.partitions();
    dev.dptext.job.ledger.ReleasePlan ledgerPlan = r.ledger() == null || r.ledger().ledger() == null ? null
        : dev.dptext.job.ledger.ReleasePlan.of(r.ledger().ledger(), r.ledger().budget(),
            dev.dptext.job.ledger.SourceSnapshot.of(spark, r.input(), format, readOptions).source(),
            ids == IdMode.COLUMN ? r.idColumn() : null, builder.options(), ids,
            Sanitizers.keyFingerprint(connect, builder), builder.guarantee(),
            List.of("model=" + hash, "text=" + text, "output=" + out, "frequencies=embeddings"),
            OutputLocation.qualified(spark, r.output()));
    StreamBatchWriter writer = new StreamBatchWriter(input.rules(), sanitize, text, out, r.output(), r.rejects(),
        counts -> InputTable.failure(counts, inputPath, format, readOptions), audit, counters,
        batch -> Spread.spread(partitions, batch.sparkSession(), batch), queryId, ledgerPlan, history);
    checkpoint.bind();
    // A Connect client reads what the run committed from the history afterwards, after these versions.
    long outputVersion = history.latestVersion();
    long rejectsVersion = connect && r.rejects() != null ? versionOf(spark, r.rejects()) : -1;
    StreamingQuery query;
    RunPhases.enter(spark, "stream");
    long workStart = System.nanoTime();
    try {
      query = in.observed(OBSERVED).writeStream()
          .option("checkpointLocation", checkpoint.path())
          .trigger(stream.sparkTrigger())
          .foreachBatch(writer)
          .start();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new JobException(ExitCode.FAILURE, "The stream did not start: " + JobException.firstLine(e.getMessage()));
    }
    if (queryId != null) {
      queryId.complete(query.id().toString());
    }
    LOG.info("stream: query {} (run {}) started; checkpoint {}, trigger {}", query.id(), query.runId(),
        checkpoint.path(), stream.trigger());
    // On Spark Connect the query runs on the server and outlives this program unless stopped: a stopped
    // job (SIGTERM, Ctrl-C, a cancelled task) stops it, so a restart does not meet it on the checkpoint.
    // A SIGKILL cannot be caught: the server stops the query when the session expires.
    Thread stopOnExit = connect ? new Thread(() -> stopQuietly(query), "dptext-stop-stream") : null;
    if (stopOnExit != null) {
      Runtime.getRuntime().addShutdownHook(stopOnExit);
    }
    try (ProgressReporter progress = ProgressReporter.start(spark, counters, r.progressInterval())) {
      query.awaitTermination();
    } catch (StreamingQueryException e) {
      throw failure(e, checkpoint.path());
    } catch (RuntimeException e) {
      throw connect ? failure(e, checkpoint.path()) : e; // a Connect client's errors are not StreamingQueryExceptions
    } finally {
      if (stopOnExit != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
          // The JVM is exiting: the hook runs.
        }
      }
    }
    long end = System.nanoTime();
    Committed done = connect ? Committed.fromHistory(spark, r, query.id().toString(), outputVersion, rejectsVersion)
        : new Committed(writer.batches(), writer.rowsIn(), writer.rowsOut(), writer.rowsRejected(), writer.lastVersion());
    LOG.info("stream: query {} finished: {} micro-batch(es) committed by this run", query.id(), done.batches());
    long version = done.lastVersion() >= 0 ? done.lastVersion()
        : OutputLocation.inspect(spark, r.output()).kind == OutputLocation.Kind.DELTA_TABLE
            ? TableWriter.currentVersion(spark, r.output()) : -1;
    RunSummary summary = new RunSummary(builder.options(), done.rowsIn(), done.rowsOut(), done.rowsRejected(),
        counters, (end - start) / 1e9, (end - workStart) / 1e9, hash, Sanitizers.PUBLIC_FREQUENCIES, target,
        version, null, layout);
    System.out.println(summary.render().replace("dptext sanitize summary",
        "dptext sanitize summary (stream: " + done.batches() + " micro-batch(es) this run)"));
    RunSummary.markSanitized();
    String summaryPath = r.summaryJson() != null ? r.summaryJson()
        : r.output().replaceAll("/+$", "") + "/" + OutputLocation.SUMMARY_FILE;
    Map<String, Object> json = summary.toMap(r.output());
    json.put("stream", Map.of("queryId", query.id().toString(), "microBatches", done.batches()));
    OutputFormat.writeText(spark, summaryPath, OutputFormat.toJson(json) + "\n");
    return 0;
  }

  /** What this run committed: micro-batches, rows, the output's last version (or -1). */
  private record Committed(int batches, long rowsIn, long rowsOut, long rowsRejected, long lastVersion) {
    /**
     * On Spark Connect the micro-batches were written on the server: what this run committed is read
     * from the output's (and the rejects table's) history, the commits of this query's transaction made
     * after the versions the run started from. Exact, since each micro-batch is one commit whose
     * operation metrics count its rows.
     */
    static Committed fromHistory(SparkSession spark, SanitizeRequest r, String queryId, long outputVersion,
        long rejectsVersion) {
      String app = StreamCheckpoint.appId(queryId);
      DeltaTables.AppCommits out = versionOf(spark, r.output()) < 0 ? new DeltaTables.AppCommits(0, 0, -1)
          : DeltaTables.commitsOf(spark, r.output(), app, outputVersion);
      long rejected = r.rejects() == null || versionOf(spark, r.rejects()) < 0 ? 0
          : DeltaTables.commitsOf(spark, r.rejects(), app, rejectsVersion).rows();
      return new Committed(out.commits(), out.rows() + rejected, out.rows(), rejected, out.lastVersion());
    }
  }

  private static void stopQuietly(StreamingQuery query) {
    try {
      query.stop();
    } catch (Exception e) {
      LOG.warn("stream: could not stop query {} on the server: {}", query.id(), JobException.firstLine(e.getMessage()));
    }
  }

  /** The Delta table's current version at {@code path}, or -1 when there is none yet. */
  private static long versionOf(SparkSession spark, String path) {
    return OutputLocation.inspect(spark, path).kind == OutputLocation.Kind.DELTA_TABLE
        ? TableWriter.currentVersion(spark, path) : -1;
  }

  /** The options a stream cannot honour, each refused with its reason. */
  private static void refuseUnsupported(SanitizeRequest r, WriteMode mode) {
    if (!OutputFormat.checkFormat(r.outputFormat()).equals("delta")) {
      throw new JobException(ExitCode.USAGE, "--stream writes Delta only (--output-format delta): each micro-batch "
          + "is one Delta commit that records its batch id, which is what makes a restart write it exactly once; "
          + "Parquet has no such record");
    }
    if (mode != WriteMode.ERROR_IF_EXISTS && mode != WriteMode.APPEND) {
      throw new JobException(ExitCode.USAGE, "--stream appends each micro-batch: use --mode errorifexists (default: "
          + "a new table, or this stream's own on a restart) or --mode append (an existing table), not --mode "
          + mode.label);
    }
    if (r.ledger() != null && r.ledger().dryRun()) {
      throw new JobException(ExitCode.USAGE, "--dry-run applies to a batch run: a stream's micro-batches are not known "
          + "before they arrive. Each micro-batch is checked against --epsilon-budget before it is written");
    }
    if (r.txnAppId() != null || r.txnVersion() != null) {
      throw new JobException(ExitCode.USAGE, "--stream keys its commits itself (query id and batch id, kept in the "
          + "checkpoint): drop --txn-app-id/--txn-version");
    }
    if (!r.inPlace().strip().equalsIgnoreCase("refuse")) {
      throw new JobException(ExitCode.USAGE, "--stream never sanitizes in place: write to another --output and "
          + "drop --in-place");
    }
    if (!r.publicFrequencies()) {
      throw new JobException(ExitCode.USAGE, "--stream uses the embedding file's public word ranks: "
          + "--frequency-source private-corpus counts the whole input first, which a stream does not have");
    }
    if (r.show() > 0) {
      throw new JobException(ExitCode.USAGE, "--show is for batch runs; read the output table instead");
    }
  }

  /** A stream that writes into its own input would read its own rows again: refused. */
  private static void refuseInPlace(SparkSession spark, String input, String output) {
    boolean same = OutputLocation.qualified(spark, input).equals(OutputLocation.qualified(spark, output));
    // The input's id first: an input that is no Delta table (the usual files) needs no look at the output's.
    java.util.Optional<String> inId = same ? java.util.Optional.empty() : OutputLocation.deltaTableId(spark, input);
    if (same || (inId.isPresent() && inId.equals(OutputLocation.deltaTableId(spark, output)))) {
      throw new JobException(ExitCode.USAGE, "--output " + output + " is the input: a stream never sanitizes in "
          + "place (it would read its own output as new input, and the raw rows would stay). Write to another "
          + "--output");
    }
  }

  /**
   * The exit code of a failed query: the {@link JobException} a micro-batch threw (as a batch run would
   * end), else an unexpected failure (exit 1; a restart resumes from the checkpoint).
   */
  private static RuntimeException failure(Exception e, String checkpoint) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JobException je) {
        return je;
      }
      java.util.Optional<JobException> remote = JobException.fromServer(t);
      if (remote.isPresent()) {
        return remote.get();
      }
      // Spark's checkpoint log creates each micro-batch's entry exclusively: a second run of the same
      // stream finds the entry the first one wrote.
      if (t instanceof java.util.ConcurrentModificationException
          || t.getClass().getName().equals("org.apache.spark.SparkConcurrentModificationException")) {
        return new JobException(ExitCode.CONFLICT, "Another run of this stream is using --checkpoint " + checkpoint
            + " at the same time; the output holds each micro-batch once, whichever run wrote it. Let the other run "
            + "finish (or stop it), then run again");
      }
    }
    return new JobException(ExitCode.FAILURE, "The stream failed: " + JobException.firstLine(
        e.getCause() != null ? e.getCause().getClass().getName() + ": " + e.getCause().getMessage() : e.getMessage())
        + ". Committed micro-batches stay; a restart with the same --checkpoint resumes after the last one");
  }
}
