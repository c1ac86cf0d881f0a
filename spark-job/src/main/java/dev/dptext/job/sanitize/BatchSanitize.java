package dev.dptext.job.sanitize;

import dev.dptext.classic.Classic;
import dev.dptext.classic.CorpusFrequencies;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.base.TableName;
import dev.dptext.job.inplace.InPlace;
import dev.dptext.job.inplace.InPlacePolicy;
import dev.dptext.job.ledger.LedgerGate;
import dev.dptext.job.ledger.ReleasePlan;
import dev.dptext.job.ledger.SourceSnapshot;
import dev.dptext.job.model.ModelOptions;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputGuard;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.run.ProgressReporter;
import dev.dptext.job.run.RunSummary;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.model.DpTextModel;
import dev.dptext.spark.DpText;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.spark.TokenAccumulators;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A batch {@code sanitize} run: what is at the output checked first (an in-place run decided, nested
 * paths refused), the key resolved, the input read and checked, its text sanitized and written in one
 * commit with the run's audit, rows in checked against rows out, and the summary printed.
 */
public final class BatchSanitize {
  /**
   * The run's log. Named after the command, as it was when the command ran the batch itself, so that
   * its lines still read {@code SanitizeCommand: phase: …}.
   */
  static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("dev.dptext.job.command.SanitizeCommand");

  private BatchSanitize() {}

  /**
   * Runs {@code r} ({@link SanitizeRequest#in checked for this session}) in {@code spark}; {@code start} is
   * when the run started ({@link System#nanoTime}).
   *
   * @return the exit code: 0, also when there was nothing to do
   * @throws JobException for every failure the job reports with its own exit code
   */
  public static int run(SanitizeRequest r, SparkSession spark, long start) {
    boolean connect = !Classic.is(spark);
    InputTable.OnCorrupt corruptPolicy = r.corruptPolicy();
    TableWriter.Target target = r.target();
    // What is at the output is checked first: no model is built and no row is read for a run that
    // must not write there.
    RunPhases.enter(spark, "check the output");
    InPlace inPlaceRun = InPlace.check(spark, r.input(), target, InPlacePolicy.parse(r.inPlace()));
    if (inPlaceRun.finished().isPresent()) {
      System.out.println("dptext: " + inPlaceRun.finished().get());
      return 0;
    }
    if (!inPlaceRun.active()) {
      RunPaths.checkNesting(spark, r.input(), r.output()); // before anything at either path is read or written
    }
    OutputLocation outputBefore = inPlaceRun.active() ? null : OutputLocation.inspect(spark, r.output());
    if (outputBefore != null) {
      outputBefore.checkWritable(target);
    }
    if (r.rejects() != null) {
      RunPaths.checkRejects(spark, r.rejects(), r.input(), r.output(), r.outputFormat());
    }
    RunPaths.checkLedger(spark, r.ledger().ledger(), r.input(), r.output(), r.rejects());
    for (String[] v : new String[][] {{"--input", r.input()}, {"--output", r.output()}, {"--rejects", r.rejects()}}) {
      if (v[1] != null && TableName.is(spark, v[1])) {
        System.out.println("dptext: " + v[0] + " " + v[1] + " is a catalog table name (docs/writes.md 'Tables by name'; "
            + "./" + v[1] + " would be a path)");
      }
    }
    LOG.debug("phase: output checked");
    DpTextOptions options = r.settings().get();
    IdMode ids = Sanitizers.idMode(options.idMode(), r.idColumn());
    // On Spark Connect the server resolves the key; classic, it is resolved here, before any reading.
    Sanitizers.OnServer onServer = connect ? Sanitizers.onServer(spark, r, options, ids) : null;
    DpText.Builder builder = connect ? onServer.builder() : Sanitizers.classic(spark, options);
    ServerSanitizer server = connect ? onServer.server() : null;
    java.util.Optional<String> done = TableWriter.alreadyCommitted(spark, target);
    if (done.isPresent()) {
      System.out.println("dptext: " + done.get());
      return 0;
    }
    LOG.debug("phase: key resolved");
    if (ids == IdMode.COLUMN) {
      builder.idColumn(r.idColumn());
    } else if (ids == IdMode.CONTENT_HASH) {
      builder.seedByContent();
    } else {
      builder.freshRandomness();
    }
    // Load the model and build the sampler on the driver while Spark reads the input's schema and
    // counts it (a model that depends on the input's own word counts has to wait for the input). A run
    // that fails on its input before this is joined only wastes the work: the error is the input's.
    boolean modelFromOptions = ids != IdMode.FRESH && r.publicFrequencies();
    CompletableFuture<Void> prepared = !modelFromOptions ? CompletableFuture.completedFuture(null)
        : connect ? CompletableFuture.runAsync(() -> Sanitizers.prepareOnServer(spark, server), BatchSanitize::daemon)
        : CompletableFuture.runAsync(() -> builder.prepare(spark), BatchSanitize::daemon);
    DataFormat format = inPlaceRun.active() ? DataFormat.DELTA : r.resolvedInputFormat();
    Map<String, String> readOptions = new LinkedHashMap<>(r.inputOptions());
    readOptions.putAll(inPlaceRun.readOptions());
    // The ledger records the snapshot the run reads: a Delta input is read at the version recorded.
    SourceSnapshot snapshot = r.ledger().active() ? SourceSnapshot.of(spark, r.input(), format, readOptions) : null;
    if (snapshot != null) {
      readOptions.putAll(snapshot.readOptions());
    }
    String text = r.textColumn();
    RunPhases.enter(spark, "read the input");
    InputTable input = InputTable.read(spark, r.input(), format, readOptions, r.inputSchema(), r.where(),
        ids == IdMode.COLUMN ? r.idColumn() : null, text);
    if (format == DataFormat.TEXT && text.equals("text") && !hasColumn(input.all(), "text")) {
      text = "value";
      input = InputTable.read(spark, r.input(), format, readOptions, r.inputSchema(), r.where(), null, text);
    }
    if (snapshot != null) {
      snapshot = snapshot.read(input.all()); // files: the digest of every file the read lists
    }
    LOG.debug("phase: input schema read");
    String out = r.outputColumn() == null ? text : r.outputColumn();
    try {
      builder.validate(input.schema(), text);
    } catch (IllegalArgumentException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    }
    // The input check (malformed records, null ids) and the rows-in count: a pass of its own before
    // anything is written or, where a rejected record cannot leave anything written, the write's own
    // read of the input (InputGuard), which saves a whole pass over it.
    int spreadTo = Spread.target(r.partitions(), spark, input.accepted());
    // On Spark Connect the check is raise_error and the rows are counted by the server's sanitizer, in the
    // write's own observed metrics.
    InputGuard guard = !r.ledger().active() && checkRidesTheWrite(spark, connect, r, corruptPolicy, outputBefore,
        target, builder.options(), spreadTo) ? (connect ? InputGuard.onConnect() : new InputGuard(spark)) : null;
    InputTable.Counts counts = null;
    long rejected = 0;
    Dataset<Row> accepted;
    if (guard != null) {
      accepted = input.acceptedCheckedBy(guard);
      LOG.debug("phase: input to be checked as the write reads it");
    } else {
      RunPhases.enter(spark, "check and count the input");
      counts = input.count();
      LOG.debug("phase: input counted");
      if (counts.rejected() > 0 && corruptPolicy == InputTable.OnCorrupt.FAIL) {
        throw InputTable.failure(counts, r.input(), format, readOptions);
      }
      if (counts.rejected() > 0) {
        TableWriter.write(input.rejected(), new TableWriter.Target(r.rejects(), r.outputFormat(), WriteMode.OVERWRITE,
            null, List.of(), null, null), TableWriter.Commit.rawRecords());
        rejected = OutputFormat.read(spark, r.rejects(), r.outputFormat()).count();
        LOG.warn("{} rejected record(s) ({} malformed, {} with a null id) written, unsanitized, to {}",
            rejected, counts.malformed(), counts.nullIds(), r.rejects());
      }
      accepted = input.accepted();
    }
    LedgerGate.Entry ledgerEntry = null;
    if (snapshot != null) {
      RunPhases.enter(spark, "record the release in the ledger");
      ledgerEntry = LedgerGate.Entry.of(spark, r.ledger(), snapshot, accepted, ids == IdMode.COLUMN ? r.idColumn() : null,
          ReleasePlan.of(r.ledger().ledger(), r.ledger().budget(), snapshot.source(),
              ids == IdMode.COLUMN ? r.idColumn() : null, builder.options(), ids,
              Sanitizers.keyFingerprint(connect, builder), builder.guarantee(),
              List.of("model=" + ModelOptions.hash(spark, options), "text=" + text, "output=" + out,
                  "frequencies=" + r.frequencySource().strip()),
              OutputLocation.qualified(spark, r.output())), s -> System.out.println("dptext: " + s));
      if (ledgerEntry.release() == null) {
        return 0; // a dry run
      }
    }
    Dataset<Row> in = spreadTo > 0 ? accepted.repartition(spreadTo) : accepted;
    DpTextModel model = privateCorpusModel(spark, r.frequencySource(), options, in, text);
    if (model != null) {
      builder.model(model);
    }
    // Token statistics come from accumulators in the sanitizer's tasks; a Connect client has none: there
    // they come from the write's observed metrics (ServerSanitizer.transformCounted). Rows in and out,
    // which the run checks, are exact either way.
    TokenAccumulators counters = connect ? null : new TokenAccumulators(spark);
    if (counters != null) {
      builder.countTokens(counters);
    }
    Dataset<Row> result;
    long workStart;
    try {
      awaitPrepared(prepared);
      LOG.debug("phase: model prepared");
      // Sanitizing starts here: the broadcast path's transform is lazy, but the partitioned path's runs
      // its rounds (and computes on-demand candidate rows) before returning.
      workStart = System.nanoTime();
      // On Connect the rows carry their token counts, summed by the write's observed metrics; not for a
      // MERGE, which reads its source twice (a count of its rows would be a count of both reads).
      result = !connect ? builder.transform(in, text, out)
          : target.mode() == WriteMode.MERGE ? server.transform(in, text, out)
          : server.transformCounted(in, text, out);
    } catch (IllegalArgumentException | dev.dptext.embedding.EmbeddingFormatException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    }
    String frequencies = model != null ? CorpusFrequencies.LABEL : Sanitizers.PUBLIC_FREQUENCIES;
    String hash = model != null ? model.hash() : ModelOptions.hash(spark, options);
    String layout = model != null ? "broadcast (a model built from the input's own word counts)"
        : dev.dptext.runtime.ModelLoader.layout(spark, options);
    Map<String, String> audit = new LinkedHashMap<>(
        RunSummary.audit(builder.options(), builder.guarantee(), hash, frequencies, layout));
    inPlaceRun.note().ifPresent(n -> audit.put(InPlace.PROPERTY, n));
    TableWriter.Result written;
    if (counts != null) {
      LOG.info("phase: writing {} rows", counts.rows() - counts.rejected());
    } else {
      LOG.info("phase: writing (the input is checked and counted as it is read)");
    }
    RunPhases.enter(spark, "sanitize and write");
    try (ProgressReporter progress = ProgressReporter.start(spark, counters, r.progressInterval())) {
      TableWriter.Commit commit = inPlaceRun.commit(audit);
      if (ledgerEntry != null) {
        commit = commit.withCommitOnly(LedgerGate.RELEASE_PROPERTY, ledgerEntry.release().releaseId());
      }
      written = TableWriter.write(result, inPlaceRun.target(target), commit);
    } catch (TableWriter.AlreadyCommitted e) {
      if (ledgerEntry != null) {
        ledgerEntry.withdraw();
      }
      System.out.println("dptext: " + e.getMessage());
      return 0;
    } catch (TableWriter.CommittedThenConflicted e) {
      if (ledgerEntry != null) {
        ledgerEntry.committed(e.version, LOG::warn); // its version stays readable: it counts
      }
      throw e.failure;
    } catch (Exception e) { // Spark's task failures are SparkExceptions, checked, thrown undeclared
      if (ledgerEntry != null && e instanceof JobException je && je.exitCode == ExitCode.CONFLICT) {
        ledgerEntry.withdraw(); // nothing of this run was committed
      }
      if (guard != null && JobException.taskFailedWith(e, InputGuard.Rejected.class, InputGuard.REJECTED)) {
        throw rejectedByTheWrite(spark, r, input, format, readOptions, outputBefore, e);
      }
      InputTable.Counts known = counts;
      InputTable read = input;
      java.util.Optional<JobException> tooLarge = Sanitizers.outOfMemory(e,
          () -> known != null ? known.longestText() : read.count().longestText());
      if (tooLarge.isPresent()) {
        throw tooLarge.get();
      }
      throw e;
    }
    LOG.info("phase: committed table version {}", written.version());
    RunPhases.enter(spark, "finish");
    if (ledgerEntry != null) {
      ledgerEntry.committed(written.version(), LOG::warn);
      ledgerEntry.checkSnapshot(snapshot, LOG::warn);
    }
    long rowsIn;
    if (guard == null) {
      rowsIn = counts.rows();
    } else if (!connect) {
      rowsIn = guard.rowsIn();
    } else {
      // Observed metrics come back with the write's own response: by now they are here, or never will be;
      // then the input is counted after all (the pass the guard saved).
      java.util.OptionalLong sanitized = server.rowsSanitized(java.time.Duration.ofSeconds(5));
      if (sanitized.isEmpty()) {
        LOG.warn("The server sent no count of the rows it sanitized; counting the input in a pass of its own");
      }
      rowsIn = sanitized.isPresent() ? sanitized.getAsLong() : input.count().rows();
    }
    long rowsOut = written.rowsWritten();
    boolean intact = rowsOut + rejected == rowsIn;
    inPlaceRun.finish(intact); // a purge swaps the new table in only when every row is there
    long end = System.nanoTime();
    // Observed metrics come back with the write's own response: by now they are here, or never will be
    // (a few seconds' grace for the client to apply them).
    dev.dptext.sanitizer.TokenTotals tokens = connect ? server.totals(java.time.Duration.ofSeconds(5)).orElse(null)
        : counters;
    RunSummary summary = new RunSummary(builder.options(), rowsIn, rowsOut, rejected, tokens, (end - start) / 1e9,
        (end - workStart) / 1e9, hash, frequencies, target, written.version(), inPlaceRun.note().orElse(null), layout);
    System.out.println(summary.render());
    RunSummary.markSanitized();
    LOG.debug("phase: summary printed");
    String summaryPath = r.summaryPath(spark);
    if (summaryPath != null) {
      OutputFormat.writeText(spark, summaryPath, OutputFormat.toJson(summary.toMap(r.output())) + "\n");
    }
    if (r.show() > 0) {
      OutputFormat.read(spark, r.output(), r.outputFormat()).select(out).show(r.show(), false);
    }
    if (!intact) {
      throw new JobException(ExitCode.INTEGRITY, "Rows written (" + rowsOut + ") + rejected (" + rejected
          + ") differ from rows in (" + rowsIn + "); do not use " + r.output()
          + (inPlaceRun.active() ? " (in place: the table was left as it was)" : ""));
    }
    return 0;
  }

  /**
   * Whether the input check can ride the write ({@link InputGuard}) instead of a pass of its own: only
   * where a rejected record can neither leave anything written nor lose what is there. The input is
   * spread by a shuffle ({@code spreadTo > 0}: the check runs in its map stage, which ends before any
   * task writes); the write is one Delta commit (a failed run commits nothing) or Parquet to a path
   * holding no data (a Parquet overwrite deletes the old files before its job runs, so it keeps the
   * pass); and nothing else needs the counts or reads the input first — rejects to write, corpus
   * frequencies, the partitioned path's rounds, an in-place swap, or MERGE (which reads its source
   * twice). On Spark Connect too ({@link InputGuard#onConnect}), whose spread is always a shuffle.
   */
  private static boolean checkRidesTheWrite(SparkSession spark, boolean connect, SanitizeRequest r,
      InputTable.OnCorrupt policy, OutputLocation outputBefore, TableWriter.Target target, DpTextOptions options,
      int spreadTo) {
    if (spreadTo == 0 || policy != InputTable.OnCorrupt.FAIL || outputBefore == null // in place
        || target.mode() == WriteMode.MERGE
        || !r.publicFrequencies()
        // A Connect client's run is one query on the server (its SQL function), never the partitioned rounds.
        || (!connect && dev.dptext.runtime.ModelLoader.partitioned(spark, options) != null)) {
      return false;
    }
    return target.delta() || !outputBefore.holdsData();
  }

  /**
   * The failure for a write the input check stopped: the input is counted now (the pass the check
   * replaced) so that the message says what was rejected, as it would have before any writing; a
   * directory the failed write created at a path that was absent is removed if nothing is in it.
   */
  private static JobException rejectedByTheWrite(SparkSession spark, SanitizeRequest r, InputTable input,
      DataFormat format, Map<String, String> readOptions, OutputLocation before, Exception e) {
    if (before != null && before.kind == OutputLocation.Kind.ABSENT) {
      OutputLocation.removeEmptyLeftovers(spark, r.output());
    }
    InputTable.Counts counts = input.count();
    if (counts.rejected() == 0) {
      throw new IllegalStateException("The write stopped on a rejected record, but a count of the input finds none "
          + "(did the input change during the run?)", e);
    }
    return InputTable.failure(counts, r.input(), format, readOptions);
  }

  /**
   * Runs the model's preparation on a thread of its own, not in the common pool: the sampler's table
   * build spreads over the common pool, which has one thread fewer than there are cores, and joins in
   * from the calling thread. A daemon, so that an abandoned preparation never keeps the JVM alive.
   */
  private static void daemon(Runnable task) {
    Thread t = new Thread(task, "dptext-prepare-model");
    t.setDaemon(true);
    t.start();
  }

  /** Waits for {@link DpText.Builder#prepare}, rethrowing its own exception, not a wrapper. */
  private static void awaitPrepared(CompletableFuture<Void> prepared) {
    try {
      prepared.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** The model re-ranked by the input's own word counts, when that opt-in is chosen; else null. */
  private static DpTextModel privateCorpusModel(SparkSession spark, String frequencySource, DpTextOptions options,
      Dataset<Row> in, String column) {
    switch (frequencySource.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "embeddings":
        return null;
      case "private-corpus":
        DpTextModel base = ModelOptions.load(spark, options);
        LOG.warn("SanText+ sensitive set from the PRIVATE corpus's word counts: outside the DP guarantee");
        return CorpusFrequencies.rerank(base, CorpusFrequencies.count(in, column, base.embeddings()));
      default:
        throw new JobException(ExitCode.USAGE,
            "Unknown --frequency-source '" + frequencySource + "'; use embeddings or private-corpus");
    }
  }

  private static boolean hasColumn(Dataset<Row> df, String name) {
    return Arrays.asList(df.columns()).contains(name);
  }
}
