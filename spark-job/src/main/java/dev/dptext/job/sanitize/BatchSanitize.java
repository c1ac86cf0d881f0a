package dev.dptext.job.sanitize;

import dev.dptext.classic.CorpusFrequencies;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.base.TableName;
import dev.dptext.job.inplace.InPlace;
import dev.dptext.job.inplace.InPlacePolicy;
import dev.dptext.job.ledger.LedgerGate;
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
import dev.dptext.sanitizer.TokenTotals;
import dev.dptext.settings.IdMode;
import dev.dptext.spark.DpText;
import dev.dptext.spark.TokenAccumulators;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A batch {@code sanitize} run, in named phases, each a method taking what the phases before it
 * resolved: {@link #checkOutput} (an in-place run decided, nested paths refused: nothing is built or read
 * for a run that must not write there), the plan ({@link RunSettings}: settings, id mode, key), the
 * model's preparation started, {@link #read}, {@link #checkInput} (malformed records, the rows-in count),
 * {@link #record} (the privacy ledger), {@link #sanitize}, {@link #write} (one commit with the run's
 * audit) and {@link #report} (rows in checked against rows out, the summary).
 */
public final class BatchSanitize {
  /** The run's log: its lines read {@code BatchSanitize: phase: …}. */
  static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BatchSanitize.class);

  private final SparkSession spark;
  private final SanitizeRequest r;

  private BatchSanitize(SparkSession spark, SanitizeRequest r) {
    this.spark = spark;
    this.r = r;
  }

  /**
   * Runs {@code r} ({@link SanitizeRequest#in checked for this session}) in {@code spark}; {@code start} is
   * when the run started ({@link System#nanoTime}).
   *
   * @return the exit code: 0, also when there was nothing to do
   * @throws JobException for every failure the job reports with its own exit code
   */
  public static int run(SanitizeRequest r, SparkSession spark, long start) {
    return new BatchSanitize(spark, r).run(start);
  }

  private int run(long start) {
    OutputCheck output = checkOutput();
    if (output.inPlace().finished().isPresent()) {
      return done(output.inPlace().finished().get());
    }
    RunSettings settings = RunSettings.resolve(spark, r, ids -> {});
    Optional<String> committed = TableWriter.alreadyCommitted(spark, output.target());
    if (committed.isPresent()) {
      return done(committed.get());
    }
    LOG.debug("phase: key resolved");
    settings.seedRows();
    CompletableFuture<Void> prepared = startPreparing(settings);
    Source source = read(settings, output);
    CheckedInput checked = checkInput(settings, output, source, prepared);
    Optional<LedgerGate.Entry> ledger = record(settings, source, checked);
    if (ledger.isPresent() && ledger.get().release() == null) {
      return 0; // a dry run
    }
    Sanitized sanitized = sanitize(settings, output, source, checked, prepared);
    Optional<TableWriter.Result> written = write(settings, output, source, checked, ledger, sanitized);
    if (written.isEmpty()) {
      return 0; // this transaction was committed before
    }
    return report(settings, output, source, checked, ledger, sanitized, written.get(), start);
  }

  /**
   * What is at the output, checked before anything else.
   *
   * @param inPlace the in-place decision (inactive for another output)
   * @param target where and how the run writes
   * @param before what was at the output before the run; null in place
   */
  private record OutputCheck(InPlace inPlace, TableWriter.Target target, OutputLocation before) {}

  private OutputCheck checkOutput() {
    TableWriter.Target target = r.target();
    RunPhases.enter(spark, "check the output");
    InPlace inPlace = InPlace.check(spark, r.input(), target, InPlacePolicy.parse(r.sink().inPlace()));
    if (inPlace.finished().isPresent()) {
      return new OutputCheck(inPlace, target, null);
    }
    if (!inPlace.active()) {
      RunPaths.checkNesting(spark, r.input(), r.output()); // before anything at either path is read or written
    }
    OutputLocation before = inPlace.active() ? null : OutputLocation.inspect(spark, r.output());
    if (before != null) {
      before.checkWritable(target);
    }
    if (r.rejects() != null) {
      RunPaths.checkRejects(spark, r.rejects(), r.input(), r.output(), r.sink().format());
    }
    RunPaths.checkLedger(spark, r.ledger().ledger(), r.input(), r.output(), r.rejects());
    for (String[] v : new String[][] {{"--input", r.input()}, {"--output", r.output()}, {"--rejects", r.rejects()}}) {
      if (v[1] != null && TableName.is(spark, v[1])) {
        System.out.println("dptext: " + v[0] + " " + v[1] + " is a catalog table name (docs/writes.md 'Tables by name'; "
            + "./" + v[1] + " would be a path)");
      }
    }
    LOG.debug("phase: output checked");
    return new OutputCheck(inPlace, target, before);
  }

  /**
   * Loads the model and builds the sampler (on the driver, or on the Connect server) while Spark reads the
   * input's schema and counts it. A model that depends on the input's own word counts has to wait for the
   * input, and fresh randomness shares no prepared sampler. A run that fails on its input before this is
   * joined only wastes the work: the error is the input's.
   */
  private CompletableFuture<Void> startPreparing(RunSettings settings) {
    boolean modelFromOptions = settings.ids() != IdMode.FRESH && r.publicFrequencies();
    return modelFromOptions ? CompletableFuture.runAsync(() -> settings.prepare(spark), BatchSanitize::daemon)
        : CompletableFuture.completedFuture(null);
  }

  /**
   * The input as read.
   *
   * @param snapshot the snapshot the ledger records (a Delta input is read at its version), or null
   */
  private record Source(InputRead input, SourceSnapshot snapshot) {}

  private Source read(RunSettings settings, OutputCheck output) {
    DataFormat format = output.inPlace().active() ? DataFormat.DELTA : r.resolvedInputFormat(spark);
    Map<String, String> readOptions = new LinkedHashMap<>(r.source().options());
    readOptions.putAll(output.inPlace().readOptions());
    // The ledger records the snapshot the run reads: a Delta input is read at the version recorded.
    SourceSnapshot snapshot = r.ledger().active() ? SourceSnapshot.of(spark, r.input(), format, readOptions) : null;
    if (snapshot != null) {
      readOptions.putAll(snapshot.readOptions());
    }
    RunPhases.enter(spark, "read the input");
    InputRead input = InputRead.of(spark, r, settings, format, readOptions, false);
    if (snapshot != null) {
      snapshot = snapshot.read(input.table().all()); // files: the digest of every file the read lists
    }
    LOG.debug("phase: input schema read");
    input.validate(settings);
    return new Source(input, snapshot);
  }

  /**
   * The input checked: malformed records and null ids found, the rows in counted.
   *
   * @param accepted the rows to sanitize (with the guard's check, when it rides the write)
   * @param guard the check that rides the write, or null when the input was checked in a pass of its own
   * @param counts that pass's counts, or null
   * @param rejected the records written to {@code --rejects}
   * @param spreadTo the partitions to spread the rows over (0: as read)
   */
  private record CheckedInput(Dataset<Row> accepted, InputGuard guard, InputTable.Counts counts, long rejected,
      int spreadTo) {}

  /**
   * The input check (malformed records, null ids) and the rows-in count: a pass of its own before anything
   * is written or, where a rejected record cannot leave anything written, the write's own read of the input
   * ({@link InputGuard}), which saves a whole pass over it. On Spark Connect the check is raise_error and the
   * rows are counted by the server's sanitizer, in the write's own observed metrics.
   */
  private CheckedInput checkInput(RunSettings settings, OutputCheck output, Source source,
      CompletableFuture<Void> prepared) {
    InputTable input = source.input().table();
    int spreadTo = Spread.target(r.partitions(), spark, input.accepted());
    InputGuard guard = !r.ledger().active() && checkRidesTheWrite(settings, output, spreadTo)
        ? (settings.connect() ? InputGuard.onConnect() : new InputGuard(spark)) : null;
    if (guard != null) {
      LOG.debug("phase: input to be checked as the write reads it");
      return new CheckedInput(input.acceptedCheckedBy(guard), guard, null, 0, spreadTo);
    }
    RunPhases.enter(spark, "check and count the input");
    // With a ledger, the same pass sums what each accepted row holds (its seed bytes and text): the release's
    // identity is what it sanitized.
    InputTable.Counts counts = input.count(r.ledger().active());
    LOG.debug("phase: input counted");
    if (counts.rejected() > 0 && r.corruptPolicy() == InputTable.OnCorrupt.FAIL) {
      throw source.input().failure(counts, r);
    }
    long rejected = 0;
    if (counts.rejected() > 0) {
      modelReady(settings, prepared); // before the run's first write
      TableWriter.write(input.rejected(), TableWriter.Target.of(r.rejects(), r.sink().format(), WriteMode.OVERWRITE),
          TableWriter.Commit.rawRecords());
      rejected = OutputFormat.read(spark, r.rejects(), r.sink().format()).count();
      LOG.warn("{} rejected record(s) ({} malformed, {} with a null id) written, unsanitized, to {}",
          rejected, counts.malformed(), counts.nullIds(), r.rejects());
    }
    return new CheckedInput(input.accepted(), null, counts, rejected, spreadTo);
  }

  /**
   * The model loaded here and the sampler prepared (here, or on the Connect server), with their failure as the
   * run's own line: what the run needs is checked before it writes anything, the rejected records included, so
   * that a model that cannot be loaded leaves nothing behind. Waits for the preparation that ran beside the count.
   */
  private void modelReady(RunSettings settings, CompletableFuture<Void> prepared) {
    try {
      awaitPrepared(prepared);
      settings.modelHash(spark);
    } catch (IllegalArgumentException | dev.dptext.embedding.EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e); // a catalogued refusal keeps its category (a path: usage)
    }
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
  private boolean checkRidesTheWrite(RunSettings settings, OutputCheck output, int spreadTo) {
    if (spreadTo == 0 || r.corruptPolicy() != InputTable.OnCorrupt.FAIL || output.before() == null // in place
        || output.target().mode() == WriteMode.MERGE
        || !r.publicFrequencies()
        // A Connect client's run is one query on the server (its SQL function), never the partitioned rounds.
        || (!settings.connect() && dev.dptext.runtime.ModelLoader.partitioned(spark, settings.options()) != null)) {
      return false;
    }
    return output.target().delta() || !output.before().holdsData();
  }

  /**
   * Records the release in the privacy ledger, before anything is written (refused over the budget); empty
   * without a ledger, an entry with no release after a dry run.
   */
  private Optional<LedgerGate.Entry> record(RunSettings settings, Source source, CheckedInput checked) {
    if (source.snapshot() == null) {
      return Optional.empty();
    }
    RunPhases.enter(spark, "record the release in the ledger");
    InputRead in = source.input();
    return Optional.of(LedgerGate.Entry.of(spark, r.ledger(), source.snapshot(), checked.accepted(),
        settings.idColumn(), checked.counts().content(), settings.releasePlan(spark, r, source.snapshot().source(),
            List.of("model=" + settings.modelHash(spark), "text=" + in.text(), "output=" + in.out(),
                "frequencies=" + r.frequencySource().strip())), s -> System.out.println("dptext: " + s)));
  }

  /**
   * The sanitized rows, planned (the partitioned path's rounds run here), and what the audit and the
   * summary say of the model.
   *
   * @param result the rows to write
   * @param workStart when sanitizing started ({@link System#nanoTime})
   * @param frequencies where SanText+'s word ranks came from
   * @param hash the model's hash
   * @param layout how the model reached the tasks
   * @param counters the token counters (classic); null on Spark Connect
   */
  private record Sanitized(Dataset<Row> result, long workStart, String frequencies, String hash, String layout,
      TokenAccumulators counters) {}

  private Sanitized sanitize(RunSettings settings, OutputCheck output, Source source, CheckedInput checked,
      CompletableFuture<Void> prepared) {
    DpText.Builder builder = settings.builder();
    String text = source.input().text();
    String out = source.input().out();
    Dataset<Row> in = checked.spreadTo() > 0 ? checked.accepted().repartition(checked.spreadTo()) : checked.accepted();
    DpTextModel model = privateCorpusModel(settings, in, text);
    if (model != null) {
      builder.model(model);
    }
    // Token statistics come from accumulators in the sanitizer's tasks; a Connect client has none: there
    // they come from the write's observed metrics (ServerSanitizer.transformCounted). Rows in and out,
    // which the run checks, are exact either way.
    TokenAccumulators counters = settings.connect() ? null : new TokenAccumulators(spark);
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
      result = !settings.connect() ? builder.transform(in, text, out)
          : output.target().mode() == WriteMode.MERGE ? settings.server().transform(in, text, out)
          : settings.server().transformCounted(in, text, out);
    } catch (IllegalArgumentException | dev.dptext.embedding.EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    }
    return model != null
        ? new Sanitized(result, workStart, CorpusFrequencies.LABEL, model.hash(),
            "broadcast (a model built from the input's own word counts)", counters)
        : new Sanitized(result, workStart, Sanitizers.PUBLIC_FREQUENCIES, settings.modelHash(spark),
            settings.layout(spark), counters);
  }

  /**
   * Writes the rows and the run's audit in one commit; empty when this transaction was committed before
   * ({@code --txn-app-id/--txn-version}). The ledger's release is withdrawn when nothing was committed,
   * and kept (with its version) when the commit happened and a conflict came after it.
   */
  private Optional<TableWriter.Result> write(RunSettings settings, OutputCheck output, Source source,
      CheckedInput checked, Optional<LedgerGate.Entry> ledger, Sanitized sanitized) {
    Map<String, String> audit = new LinkedHashMap<>(RunSummary.audit(settings.builder().options(),
        settings.builder().guarantee(), sanitized.hash(), sanitized.frequencies(), sanitized.layout()));
    output.inPlace().note().ifPresent(n -> audit.put(InPlace.PROPERTY, n));
    if (checked.counts() != null) {
      LOG.info("phase: writing {} rows", checked.counts().rows() - checked.counts().rejected());
    } else {
      LOG.info("phase: writing (the input is checked and counted as it is read)");
    }
    RunPhases.enter(spark, "sanitize and write");
    try (ProgressReporter progress = ProgressReporter.start(spark, sanitized.counters(), r.progressInterval())) {
      TableWriter.Commit commit = output.inPlace().commit(audit);
      if (ledger.isPresent()) {
        commit = commit.withCommitOnly(LedgerGate.RELEASE_PROPERTY, ledger.get().release().releaseId());
      }
      return Optional.of(TableWriter.write(sanitized.result(), output.inPlace().target(output.target()), commit));
    } catch (TableWriter.AlreadyCommitted e) {
      ledger.ifPresent(LedgerGate.Entry::withdraw);
      System.out.println("dptext: " + e.getMessage());
      return Optional.empty();
    } catch (TableWriter.CommittedThenConflicted e) {
      ledger.ifPresent(l -> l.committed(e.version, LOG::warn)); // its version stays readable: it counts
      throw e.failure;
    } catch (Exception e) { // Spark's task failures are SparkExceptions, checked, thrown undeclared
      if (e instanceof JobException je && je.exitCode == ExitCode.CONFLICT) {
        ledger.ifPresent(LedgerGate.Entry::withdraw); // nothing of this run was committed
      }
      if (checked.guard() != null && JobException.taskFailedWith(e, InputGuard.Rejected.class, InputGuard.REJECTED)) {
        throw rejectedByTheWrite(source, output.before(), e);
      }
      Optional<JobException> tooLarge = Sanitizers.outOfMemory(e, () -> checked.counts() != null
          ? checked.counts().longestText() : source.input().table().count().longestText());
      if (tooLarge.isPresent()) {
        throw tooLarge.get();
      }
      throw e;
    }
  }

  /**
   * After the commit: the ledger told the version, an in-place swap finished, rows in checked against rows
   * out (exit {@link ExitCode#INTEGRITY} when they differ), the summary printed and written.
   */
  private int report(RunSettings settings, OutputCheck output, Source source, CheckedInput checked,
      Optional<LedgerGate.Entry> ledger, Sanitized sanitized, TableWriter.Result written, long start) {
    LOG.info("phase: committed table version {}", written.version());
    RunPhases.enter(spark, "finish");
    ledger.ifPresent(l -> {
      l.committed(written.version(), LOG::warn);
      l.checkSnapshot(source.snapshot(), LOG::warn);
    });
    long rowsIn = rowsIn(settings, source, checked);
    long rowsOut = written.rowsWritten();
    boolean intact = rowsOut + checked.rejected() == rowsIn;
    InPlace inPlace = output.inPlace();
    inPlace.finish(intact); // a purge swaps the new table in only when every row is there
    long end = System.nanoTime();
    // Observed metrics come back with the write's own response: by now they are here, or never will be
    // (a few seconds' grace for the client to apply them).
    TokenTotals tokens = settings.connect() ? settings.server().totals(Duration.ofSeconds(5)).orElse(null)
        : sanitized.counters();
    RunSummary summary = new RunSummary(settings.builder().options(), rowsIn, rowsOut, checked.rejected(), tokens,
        (end - start) / 1e9, (end - sanitized.workStart()) / 1e9, sanitized.hash(), sanitized.frequencies(),
        output.target(), written.version(), inPlace.note().orElse(null), sanitized.layout());
    System.out.println(summary.render());
    RunSummary.markSanitized();
    LOG.debug("phase: summary printed");
    JobException differ = intact ? null : JobException.of(RunSummary.REPORTED_FAILURE, "written", rowsOut, "rejected",
        checked.rejected(), "rowsIn", rowsIn, "inPlace", inPlace.active() ? " (in place: the table was left as it was)"
        : "", "output", r.output());
    String summaryPath = r.summaryPath(spark);
    if (summaryPath != null) {
      JobOutcome outcome = intact ? JobOutcome.SUCCEEDED : JobOutcome.of(differ);
      OutputFormat.writeText(spark, summaryPath, OutputFormat.toJson(summary.toMap(r.output(), outcome)) + "\n");
    }
    if (r.show() > 0) {
      OutputFormat.read(spark, r.output(), r.sink().format()).select(source.input().out()).show(r.show(), false);
    }
    if (differ != null) {
      throw differ;
    }
    return 0;
  }

  /** The rows in: the check's own pass counted them, or the write's read did (the guard's count). */
  private long rowsIn(RunSettings settings, Source source, CheckedInput checked) {
    if (checked.guard() == null) {
      return checked.counts().rows();
    }
    if (!settings.connect()) {
      return checked.guard().rowsIn();
    }
    // Observed metrics come back with the write's own response: by now they are here, or never will be;
    // then the input is counted after all (the pass the guard saved).
    OptionalLong sanitized = settings.server().rowsSanitized(Duration.ofSeconds(5));
    if (sanitized.isEmpty()) {
      LOG.warn("The server sent no count of the rows it sanitized; counting the input in a pass of its own");
    }
    return sanitized.isPresent() ? sanitized.getAsLong() : source.input().table().count().rows();
  }

  /**
   * The failure for a write the input check stopped: the input is counted now (the pass the check
   * replaced) so that the message says what was rejected, as it would have before any writing; a
   * directory the failed write created at a path that was absent is removed if nothing is in it.
   */
  private JobException rejectedByTheWrite(Source source, OutputLocation before, Exception e) {
    if (before != null && before.kind == OutputLocation.Kind.ABSENT) {
      OutputLocation.removeEmptyLeftovers(spark, r.output());
    }
    InputTable.Counts counts = source.input().table().count();
    if (counts.rejected() == 0) {
      throw new IllegalStateException("The write stopped on a rejected record, but a count of the input finds none "
          + "(did the input change during the run?)", e);
    }
    return source.input().failure(counts, r);
  }

  /** The model re-ranked by the input's own word counts, when that opt-in is chosen; else null. */
  private DpTextModel privateCorpusModel(RunSettings settings, Dataset<Row> in, String column) {
    switch (r.frequencySource().strip().toLowerCase(Locale.ROOT)) {
      case "embeddings":
        return null;
      case "private-corpus":
        DpTextModel base = ModelOptions.load(spark, settings.options());
        LOG.warn("SanText+ sensitive set from the PRIVATE corpus's word counts: outside the DP guarantee");
        return CorpusFrequencies.rerank(base, CorpusFrequencies.count(in, column, base.embeddings()));
      default:
        throw JobException.of("FREQUENCY_SOURCE_UNKNOWN", "value", r.frequencySource());
    }
  }

  /** Prints what the run found already done; a run with nothing to do succeeds. */
  private static int done(String what) {
    System.out.println("dptext: " + what);
    return 0;
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
}
