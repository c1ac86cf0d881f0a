package dev.dptext.job.stream;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.run.ProgressReporter;
import dev.dptext.job.run.RunSummary;
import dev.dptext.job.ledger.ReleasePlan;
import dev.dptext.job.ledger.SourceSnapshot;
import dev.dptext.job.sanitize.InputRead;
import dev.dptext.job.sanitize.RunPaths;
import dev.dptext.job.sanitize.RunSettings;
import dev.dptext.job.sanitize.SanitizeRequest;
import dev.dptext.job.sanitize.Sanitizers;
import dev.dptext.job.sanitize.Spread;
import dev.dptext.job.write.DeltaTables;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.spark.DpText;
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
   * {@code start} is when the run started ({@link System#nanoTime}). The phases: {@link #checkOutput} (the
   * options a stream cannot honour, the output and the checkpoint), the plan ({@link RunSettings}), the
   * input read as a stream and the sanitizer prepared ({@link #prepare}), each micro-batch's writer
   * ({@link #writer}), the query run to its end ({@link #runQuery}) and {@link #report}.
   *
   * @return the exit code: 0 once the query stopped by itself
   * @throws JobException for every failure the job reports with its own exit code
   */
  public static int run(SanitizeRequest r, StreamSettings stream, SparkSession spark, long start) {
    OutputCheck output = checkOutput(spark, r, stream);
    RunSettings settings = RunSettings.resolve(spark, r, SanitizeStream::refuseFresh);
    DataFormat format = r.resolvedInputFormat(spark);
    Map<String, String> readOptions = new LinkedHashMap<>(r.source().options());
    readOptions.putAll(stream.sourceOptions());
    InputRead input = InputRead.of(spark, r, settings, format, readOptions, true);
    prepare(spark, settings, input);
    Audit audit = Audit.of(spark, settings);
    // A classic run counts tokens with accumulators; a Connect client has none (the micro-batches run on
    // the server, whose log has each one's figures).
    TokenAccumulators counters = settings.connect() ? null : new TokenAccumulators(spark);
    CompletableFuture<String> queryId = settings.connect() ? null : new CompletableFuture<>();
    Plan plan = new Plan(settings, output, input, audit, counters, queryId);
    StreamBatchWriter writer = writer(spark, r, plan);
    output.checkpoint().bind();
    // A Connect client reads what the run committed from the history afterwards, after these versions.
    long outputVersion = output.history().latestVersion();
    long rejectsVersion = settings.connect() && r.rejects() != null ? versionOf(spark, r.rejects()) : -1;
    RunPhases.enter(spark, "stream");
    long workStart = System.nanoTime();
    StreamingQuery query = runQuery(spark, r, stream, plan, writer);
    long end = System.nanoTime();
    Committed done = settings.connect()
        ? Committed.fromHistory(spark, r, query.id().toString(), outputVersion, rejectsVersion)
        : new Committed(writer.batches(), writer.rowsIn(), writer.rowsOut(), writer.rowsRejected(),
            writer.lastVersion());
    return report(spark, r, plan, query, done, (end - start) / 1e9, (end - workStart) / 1e9);
  }

  /**
   * What the stream's later phases share, resolved before the query starts.
   *
   * @param counters the token counters (a classic run's; null on a Connect client, whose micro-batches run on
   *     the server)
   * @param queryId completed with the query's id once it starts (null on a Connect client)
   */
  private record Plan(RunSettings settings, OutputCheck output, InputRead input, Audit audit,
      TokenAccumulators counters, CompletableFuture<String> queryId) {}

  /**
   * What is at the output and the checkpoint, checked before anything else.
   *
   * @param target where the micro-batches go
   * @param history the output's history at the start: the checkpoint's check, the first micro-batch's
   *     replay check and (on Connect) the version this run starts from
   * @param checkpoint the query's checkpoint, checked against the input and the output
   */
  private record OutputCheck(TableWriter.Target target, DeltaTables.Transactions history,
      StreamCheckpoint checkpoint) {}

  private static OutputCheck checkOutput(SparkSession spark, SanitizeRequest r, StreamSettings stream) {
    WriteMode mode = WriteMode.parse(r.sink().mode());
    RunPhases.enter(spark, "check the output and the checkpoint");
    refuseUnsupported(r, mode);
    refuseInPlace(spark, r.input(), r.output());
    // An output inside the input (or the reverse) is refused before the query starts.
    RunPaths.checkNesting(spark, r.input(), r.output());
    // What is at the output (a file, a non-Delta directory) is refused as in a batch run; whether an
    // existing table may take this stream's rows is the checkpoint's question.
    TableWriter.Target target = TableWriter.Target.delta(r.output(), mode);
    OutputLocation outputAt = OutputLocation.inspect(spark, r.output());
    outputAt.checkWritable(TableWriter.Target.delta(r.output(), WriteMode.APPEND));
    // One read of the output's history answers the checkpoint's check, the first micro-batch's replay
    // check and (on Connect) the version this run starts from.
    DeltaTables.Transactions history = outputAt.kind == OutputLocation.Kind.DELTA_TABLE
        ? DeltaTables.transactions(spark, r.output()) : DeltaTables.Transactions.NONE;
    StreamCheckpoint checkpoint = StreamCheckpoint.check(spark, stream.checkpoint(), r.input(), r.output());
    checkpoint.checkOutput(r.output(), outputAt, history, mode == WriteMode.ERROR_IF_EXISTS);
    if (r.rejects() != null) {
      RunPaths.checkRejects(spark, r.rejects(), r.input(), r.output(), r.sink().format());
    }
    RunPaths.checkLedger(spark, r.ledger() == null ? null : r.ledger().ledger(), r.input(), r.output(), r.rejects());
    return new OutputCheck(target, history, checkpoint);
  }

  /** A replayed micro-batch must give the rows the interrupted attempt gave: fresh randomness cannot. */
  private static void refuseFresh(IdMode ids) {
    if (ids == IdMode.FRESH) {
      throw JobException.of("STREAM_FRESH_IDS");
    }
  }

  /** Checks the input's columns and builds the model and the sampler once for the whole query. */
  private static void prepare(SparkSession spark, RunSettings settings, InputRead input) {
    try {
      settings.seedRows(); // never fresh: refused above
      settings.builder().validate(input.table().schema(), input.text());
      settings.prepare(spark); // on Connect the server's model and key, before the query starts
    } catch (IllegalArgumentException | dev.dptext.embedding.EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    }
  }

  /** What every micro-batch's commit records of the model and the mechanism, and the summary says. */
  private record Audit(String hash, String layout, Map<String, String> properties) {
    static Audit of(SparkSession spark, RunSettings settings) {
      String hash = settings.modelHash(spark);
      String layout = settings.layout(spark);
      return new Audit(hash, layout, RunSummary.audit(settings.builder().options(), settings.builder().guarantee(),
          hash, Sanitizers.PUBLIC_FREQUENCIES, layout));
    }
  }

  /**
   * The function each micro-batch runs: its rows checked, sanitized and committed once, with the ledger's
   * release when there is a ledger. What it captures is serializable on Spark Connect (the server runs it):
   * the server's sanitizer (settings and the key's source only), the columns, the paths.
   */
  private static StreamBatchWriter writer(SparkSession spark, SanitizeRequest r, Plan plan) {
    RunSettings settings = plan.settings();
    InputRead input = plan.input();
    Audit audit = plan.audit();
    String text = input.text();
    String out = input.out();
    StreamBatchWriter.Sanitize sanitize;
    if (settings.connect()) {
      dev.dptext.runtime.ServerSanitizer server = settings.server();
      sanitize = rows -> server.transform(rows, text, out);
    } else {
      DpText.Builder builder = settings.builder().countTokens(plan.counters());
      sanitize = rows -> builder.transform(rows, text, out); // classic: never serialized
    }
    String inputPath = r.input();
    DataFormat format = input.format();
    Map<String, String> readOptions = input.readOptions();
    int partitions = r.partitions();
    ReleasePlan ledgerPlan = r.ledger() == null || r.ledger().ledger() == null ? null
        : settings.releasePlan(spark, r, SourceSnapshot.of(spark, r.input(), format, readOptions).source(),
            List.of("model=" + audit.hash(), "text=" + text, "output=" + out, "frequencies=embeddings"));
    return new StreamBatchWriter(input.table().rules(), sanitize, text, out, r.output(), r.rejects(),
        (batchId, counts) -> InputTable.batchFailure(batchId, counts, inputPath, format, readOptions), audit.properties(), plan.counters(),
        batch -> Spread.spread(partitions, batch.sparkSession(), batch), plan.queryId(), ledgerPlan,
        plan.output().history());
  }

  /**
   * Starts the query and waits for its end. On Spark Connect the query runs on the server and outlives
   * this program unless stopped: a stopped job (SIGTERM, Ctrl-C, a cancelled task) stops it, so a restart
   * does not meet it on the checkpoint. A SIGKILL cannot be caught: the server stops the query when the
   * session expires.
   */
  private static StreamingQuery runQuery(SparkSession spark, SanitizeRequest r, StreamSettings stream, Plan plan,
      StreamBatchWriter writer) {
    String checkpoint = plan.output().checkpoint().path();
    CompletableFuture<String> queryId = plan.queryId();
    StreamingQuery query;
    try {
      query = plan.input().table().observed(OBSERVED).writeStream()
          .option("checkpointLocation", checkpoint)
          .trigger(stream.sparkTrigger())
          .foreachBatch(writer)
          .start();
    } catch (java.util.concurrent.TimeoutException e) {
      throw JobException.of(e, "STREAM_NOT_STARTED", "reason", JobException.firstLine(e.getMessage()));
    }
    if (queryId != null) {
      queryId.complete(query.id().toString());
    }
    LOG.info("stream: query {} (run {}) started; checkpoint {}, trigger {}", query.id(), query.runId(),
        checkpoint, stream.trigger());
    boolean connect = plan.settings().connect();
    Thread stopOnExit = connect ? new Thread(() -> stopQuietly(query), "dptext-stop-stream") : null;
    if (stopOnExit != null) {
      Runtime.getRuntime().addShutdownHook(stopOnExit);
    }
    try (ProgressReporter progress = ProgressReporter.start(spark, plan.counters(), r.progressInterval())) {
      query.awaitTermination();
    } catch (StreamingQueryException e) {
      throw failure(e, checkpoint);
    } catch (RuntimeException e) {
      // A Connect client's errors are not StreamingQueryExceptions.
      throw connect ? failure(e, checkpoint) : e;
    } finally {
      if (stopOnExit != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
          // The JVM is exiting: the hook runs.
        }
      }
    }
    return query;
  }

  /** The summary of what this run committed, printed and written beside the output. */
  private static int report(SparkSession spark, SanitizeRequest r, Plan plan, StreamingQuery query, Committed done,
      double seconds, double workSeconds) {
    LOG.info("stream: query {} finished: {} micro-batch(es) committed by this run", query.id(), done.batches());
    long version = done.lastVersion() >= 0 ? done.lastVersion() : versionOf(spark, r.output());
    RunSummary summary = new RunSummary(plan.settings().builder().options(), done.rowsIn(), done.rowsOut(),
        done.rowsRejected(), plan.counters(), seconds, workSeconds, plan.audit().hash(),
        Sanitizers.PUBLIC_FREQUENCIES, plan.output().target(), version, null, plan.audit().layout());
    System.out.println(summary.render().replace("dptext sanitize summary",
        "dptext sanitize summary (stream: " + done.batches() + " micro-batch(es) this run)"));
    RunSummary.markSanitized();
    // Not SanitizeRequest#summaryPath: a stream writes its summary beside a table given by name too.
    String summaryPath = r.summaryJson() != null ? r.summaryJson()
        : r.output().replaceAll("/+$", "") + "/" + OutputLocation.SUMMARY_FILE;
    Map<String, Object> json = summary.toMap(r.output(), JobOutcome.SUCCEEDED);
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
    if (!OutputFormat.checkFormat(r.sink().format()).equals("delta")) {
      throw JobException.of("STREAM_NEEDS_DELTA");
    }
    if (mode != WriteMode.ERROR_IF_EXISTS && mode != WriteMode.APPEND) {
      throw JobException.of("STREAM_MODE", "mode", mode.label);
    }
    if (r.ledger() != null && r.ledger().dryRun()) {
      throw JobException.of("STREAM_DRY_RUN");
    }
    if (r.sink().txnAppId() != null || r.sink().txnVersion() != null) {
      throw JobException.of("STREAM_TXN");
    }
    if (!r.sink().inPlace().strip().equalsIgnoreCase("refuse")) {
      throw JobException.of("STREAM_IN_PLACE");
    }
    if (!r.publicFrequencies()) {
      throw JobException.of("STREAM_PRIVATE_FREQUENCIES");
    }
    if (r.show() > 0) {
      throw JobException.of("STREAM_SHOW");
    }
  }

  /** A stream that writes into its own input would read its own rows again: refused. */
  private static void refuseInPlace(SparkSession spark, String input, String output) {
    boolean same = OutputLocation.qualified(spark, input).equals(OutputLocation.qualified(spark, output));
    // The input's id first: an input that is no Delta table (the usual files) needs no look at the output's.
    java.util.Optional<String> inId = same ? java.util.Optional.empty() : OutputLocation.deltaTableId(spark, input);
    if (same || (inId.isPresent() && inId.equals(OutputLocation.deltaTableId(spark, output)))) {
      throw JobException.of("STREAM_OUTPUT_IS_INPUT", "output", output);
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
        return JobException.of("STREAM_CHECKPOINT_IN_USE", "checkpoint", checkpoint);
      }
    }
    return JobException.of(e, "STREAM_FAILED", "reason", JobException.firstLine(
        e.getCause() != null ? e.getCause().getClass().getName() + ": " + e.getCause().getMessage() : e.getMessage()));
  }
}
