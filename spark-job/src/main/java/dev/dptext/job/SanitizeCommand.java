package dev.dptext.job;

import dev.dptext.classic.Classic;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.model.DpTextModel;
import dev.dptext.classic.CorpusFrequencies;
import dev.dptext.spark.DpText;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.IdMode;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.runtime.SessionSecret;
import dev.dptext.settings.Settings;
import dev.dptext.spark.TokenAccumulators;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sanitize}: read a table, rewrite its text column with a DP mechanism, write Delta or Parquet. */
@Command(name = "sanitize", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Sanitize the text column of a table with a differentially private mechanism.")
final class SanitizeCommand implements Callable<Integer>, SettingOptions.Command {
  @Spec CommandSpec spec;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Properties file of option defaults (keys = long option names); command-line options override it.")
  Path config;

  @Option(names = "--input", required = true, paramLabel = "PATH|TABLE",
      description = "Input path (any Hadoop file system) or catalog table name (main.support.tickets; a value "
          + "without / or scheme whose schema exists and that is not a file: docs/writes.md 'Tables by name').")
  String input;

  @Option(names = "--input-format", paramLabel = "FORMAT",
      description = "csv, json, parquet, text or delta. Default: guessed from the extension; delta for a Delta table.")
  String inputFormat;

  @Option(names = "--input-option", paramLabel = "KEY=VALUE",
      description = "A Spark reader option, e.g. header=true for CSV; repeatable.")
  Map<String, String> inputOptions = new LinkedHashMap<>();

  @Option(names = "--input-schema", paramLabel = "DDL",
      description = "CSV/JSON: the input's columns, e.g. \"id BIGINT, review STRING, day DATE\", instead of "
          + "inferring them (which reads the whole input once more). Records that do not fit are malformed "
          + "(see --on-corrupt); fields not declared are not read, so not written.")
  String inputSchema;

  @Option(names = "--output", required = true, paramLabel = "PATH|TABLE",
      description = "Output path, or catalog table name (main.support.tickets_dp), as for --input.")
  String output;

  @Option(names = "--output-format", paramLabel = "FORMAT", defaultValue = "delta",
      description = "delta or parquet. Default: ${DEFAULT-VALUE}.")
  String outputFormat;

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "errorifexists",
      description = "errorifexists, overwrite, append, replace-where (Delta: replace the rows matching --where) "
          + "or merge (Delta: upsert by --merge-key). Default: ${DEFAULT-VALUE}.")
  String mode;

  @Option(names = "--in-place", paramLabel = "POLICY", defaultValue = "refuse",
      description = "When --output is the input (the same path or Delta table): refuse (default; the error names "
          + "the ways out), purge-history (with --mode overwrite: the table is replaced by a new one holding only "
          + "the sanitized rows, and the raw table and its whole history are deleted) or keep-history (UNSAFE: "
          + "earlier versions keep the raw text until you VACUUM).")
  String inPlace;

  @Option(names = "--where", paramLabel = "PREDICATE",
      description = "A SQL predicate selecting the input rows to sanitize, e.g. \"event_date = '2026-11-21'\"; "
          + "with --mode replace-where also the output rows to replace.")
  String where;

  @Option(names = "--merge-key", paramLabel = "COLUMN", split = ",",
      description = "--mode merge: the column(s) matching input rows to output rows. Default: the id column.")
  java.util.List<String> mergeKeys;

  @Option(names = "--txn-app-id", paramLabel = "ID",
      description = "Delta idempotent writes: a stable name of this scheduled job (with --txn-version).")
  String txnAppId;

  @Option(names = "--txn-version", paramLabel = "N",
      description = "Delta idempotent writes: increasing number of this run, e.g. the date as 20261121; a "
          + "re-run with the same number writes nothing, a lower one is refused.")
  Long txnVersion;

  @Option(names = "--on-corrupt", paramLabel = "POLICY", defaultValue = "fail",
      description = "Malformed input records (and rows with text but a null id): fail (default; nothing is "
          + "written) or reject (sanitize the rest; the rejected records go, raw, to --rejects).")
  String onCorrupt;

  @Option(names = "--rejects", paramLabel = "PATH",
      description = "With --on-corrupt reject: where the rejected records go (raw, unsanitized: store them "
          + "like the input), in --output-format, replaced on each run; use a per-run path.")
  String rejects;

  @Option(names = "--text-column", paramLabel = "NAME", defaultValue = "text",
      description = "The string column to sanitize. Default: ${DEFAULT-VALUE} ('value' for text input).")
  String textColumn;

  @Option(names = "--output-column", paramLabel = "NAME",
      description = "Where the sanitized text goes. Default: replace the text column.")
  String outputColumn;

  @Option(names = "--id-column", paramLabel = "NAME",
      description = "A stable, unique row id that keys each row's randomness (recommended; with --id-mode column, "
          + "the default).")
  String idColumn;

  @Option(names = "--frequency-source", paramLabel = "SOURCE", defaultValue = "embeddings",
      description = "SanText+'s word frequencies: embeddings (default; the embedding file's public rank) "
          + "or private-corpus (OPT-IN, outside the guarantee: counts the input text itself).")
  String frequencySource;

  @Option(names = "--summary-json", paramLabel = "PATH",
      description = "Where to write the run's JSON summary. Default: <output>/_dptext_summary.json.")
  String summaryJson;

  @Option(names = "--partitions", paramLabel = "N", defaultValue = "0",
      description = "Partitions to sanitize in (rows are independent, each keyed by its id, so the output "
          + "does not depend on it). 0 = at least 3 per core of the cluster (default parallelism): a small "
          + "input file is read as one partition, which would leave all but one core idle. Default: ${DEFAULT-VALUE}.")
  int partitions;

  @Option(names = "--progress-interval", paramLabel = "SECONDS", defaultValue = "30",
      description = "Log progress (tasks done, tokens, rate) every SECONDS while the run works; 0 = off. "
          + "Default: ${DEFAULT-VALUE}.")
  int progressInterval;

  @Option(names = "--show", paramLabel = "N", defaultValue = "0",
      description = "Print N rows of the output after the run (for demos). Default: ${DEFAULT-VALUE}.")
  int show;

  @picocli.CommandLine.Mixin StreamOptions stream;

  /** SanText+'s word ranks by default: the embedding file's order, public. */
  static final String PUBLIC_FREQUENCIES = "embeddings (public rank of the embedding file)";

  /** Every setting of the table but the key itself (the mechanism, its parameters, the model, the key's source). */
  @Override
  public List<Setting<?>> settings() {
    return Settings.options();
  }

  /** On a Spark Connect session: the server-side sanitizer of this run's settings; null on a classic session. */
  private ServerSanitizer server;

  /** {@link #server}, once {@link #serverSanitizer} made it. */
  ServerSanitizer server() {
    return server;
  }

  @Override
  public Integer call() {
    return run();
  }

  private Integer run() {
    long start = System.nanoTime();
    stream.check();
    SparkSession spark = JobSession.get();
    boolean connect = !Classic.is(spark);
    LOG.debug("phase: session ready{}", connect ? " (Spark Connect)" : "");
    if (connect) {
      // The server resolves a relative path against ITS working directory; the user meant this program's,
      // as a classic driver reads it. A catalog table's name stays a name.
      input = TableName.is(spark, input) ? input : ServerSanitizer.absolute(input);
      output = TableName.is(spark, output) ? output : ServerSanitizer.absolute(output);
      rejects = rejects == null || TableName.is(spark, rejects) ? rejects : ServerSanitizer.absolute(rejects);
    }
    InputTable.OnCorrupt corruptPolicy = InputTable.OnCorrupt.parse(onCorrupt);
    if ((corruptPolicy == InputTable.OnCorrupt.REJECT) != (rejects != null)) {
      throw new JobException(ExitCode.USAGE, rejects == null
          ? "--on-corrupt reject needs --rejects PATH (where the rejected records go)"
          : "--rejects is given but --on-corrupt is fail; add --on-corrupt reject or drop --rejects");
    }
    if (stream.enabled) {
      return SanitizeStream.run(this, spark, start);
    }
    TableWriter.Target target = new TableWriter.Target(output, outputFormat, WriteMode.parse(mode), where,
        mergeKeys != null ? mergeKeys : idColumn != null ? List.of(idColumn) : List.of(), txnAppId, txnVersion);
    // What is at the output is checked first: no model is built and no row is read for a run that
    // must not write there.
    InPlace inPlaceRun = InPlace.check(spark, input, target, InPlacePolicy.parse(inPlace));
    if (inPlaceRun.finished().isPresent()) {
      System.out.println("dptext: " + inPlaceRun.finished().get());
      return 0;
    }
    if (!inPlaceRun.active()) {
      checkNesting(spark); // before anything at either path is read or written
    }
    OutputLocation outputBefore = inPlaceRun.active() ? null : OutputLocation.inspect(spark, output);
    if (outputBefore != null) {
      outputBefore.checkWritable(target);
    }
    if (rejects != null) {
      checkRejectsPath(spark);
    }
    for (String[] v : new String[][] {{"--input", input}, {"--output", output}, {"--rejects", rejects}}) {
      if (v[1] != null && TableName.is(spark, v[1])) {
        System.out.println("dptext: " + v[0] + " " + v[1] + " is a catalog table name (docs/writes.md 'Tables by name'; "
            + "./" + v[1] + " would be a path)");
      }
    }
    LOG.debug("phase: output checked");
    DpTextOptions options = SettingOptions.read(spec, settings());
    IdMode ids = idModeValue(options.idMode());
    DpText.Builder builder = connect ? serverSanitizer(spark, options, ids) // the server resolves the key
        : sanitizer(spark, options); // resolves the key before any reading
    java.util.Optional<String> done = TableWriter.alreadyCommitted(spark, target);
    if (done.isPresent()) {
      System.out.println("dptext: " + done.get());
      return 0;
    }
    LOG.debug("phase: key resolved");
    if (ids == IdMode.COLUMN) {
      builder.idColumn(idColumn);
    } else if (ids == IdMode.CONTENT_HASH) {
      builder.seedByContent();
    } else {
      builder.freshRandomness();
    }
    // Load the model and build the sampler on the driver while Spark reads the input's schema and
    // counts it (a model that depends on the input's own word counts has to wait for the input). A run
    // that fails on its input before this is joined only wastes the work: the error is the input's.
    boolean modelFromOptions = ids != IdMode.FRESH && frequencySource.strip().equalsIgnoreCase("embeddings");
    ServerSanitizer onServer = server;
    CompletableFuture<Void> prepared = !modelFromOptions ? CompletableFuture.completedFuture(null)
        : connect ? CompletableFuture.runAsync(() -> prepareOnServer(spark, onServer), SanitizeCommand::daemon)
        : CompletableFuture.runAsync(() -> builder.prepare(spark), SanitizeCommand::daemon);
    DataFormat format = inPlaceRun.active() ? DataFormat.DELTA : resolvedInputFormat();
    Map<String, String> readOptions = new LinkedHashMap<>(inputOptions);
    readOptions.putAll(inPlaceRun.readOptions());
    String text = textColumn;
    InputTable input = InputTable.read(spark, this.input, format, readOptions, inputSchema, where,
        ids == IdMode.COLUMN ? idColumn : null, text);
    if (format == DataFormat.TEXT && text.equals("text") && !hasColumn(input.all(), "text")) {
      text = "value";
      input = InputTable.read(spark, this.input, format, readOptions, inputSchema, where, null, text);
    }
    LOG.debug("phase: input schema read");
    String out = outputColumn == null ? text : outputColumn;
    try {
      builder.validate(input.schema(), text);
    } catch (IllegalArgumentException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    }
    // The input check (malformed records, null ids) and the rows-in count: a pass of its own before
    // anything is written or, where a rejected record cannot leave anything written, the write's own
    // read of the input (InputGuard), which saves a whole pass over it.
    int spreadTo = spreadTarget(spark, input.accepted());
    // On Spark Connect the count is a pass of its own (an exact aggregate): the guard's count is an
    // accumulator, which a Connect client has not.
    InputGuard guard = !connect && checkRidesTheWrite(spark, corruptPolicy, outputBefore, target, builder.options(),
        spreadTo) ? new InputGuard(spark) : null;
    InputTable.Counts counts = null;
    long rejected = 0;
    Dataset<Row> accepted;
    if (guard != null) {
      accepted = input.acceptedCheckedBy(guard);
      LOG.debug("phase: input to be checked as the write reads it");
    } else {
      counts = input.count();
      LOG.debug("phase: input counted");
      if (counts.rejected() > 0 && corruptPolicy == InputTable.OnCorrupt.FAIL) {
        throw InputTable.failure(counts, this.input, format, readOptions);
      }
      if (counts.rejected() > 0) {
        TableWriter.write(input.rejected(), new TableWriter.Target(rejects, outputFormat, WriteMode.OVERWRITE, null,
            List.of(), null, null), TableWriter.Commit.rawRecords());
        rejected = OutputFormat.read(spark, rejects, outputFormat).count();
        org.slf4j.LoggerFactory.getLogger(SanitizeCommand.class).warn(
            "{} rejected record(s) ({} malformed, {} with a null id) written, unsanitized, to {}",
            rejected, counts.malformed(), counts.nullIds(), rejects);
      }
      accepted = input.accepted();
    }
    Dataset<Row> in = spreadTo > 0 ? accepted.repartition(spreadTo) : accepted;
    DpTextModel model = privateCorpusModel(spark, options, in, text);
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
    String frequencies = model != null ? CorpusFrequencies.LABEL : PUBLIC_FREQUENCIES;
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
    try (ProgressReporter progress = ProgressReporter.start(spark, counters, progressInterval)) {
      written = TableWriter.write(result, inPlaceRun.target(target), inPlaceRun.commit(audit));
    } catch (TableWriter.AlreadyCommitted e) {
      System.out.println("dptext: " + e.getMessage());
      return 0;
    } catch (Exception e) { // Spark's task failures are SparkExceptions, checked, thrown undeclared
      if (guard != null && JobException.taskFailedWith(e, InputGuard.Rejected.class, InputGuard.REJECTED)) {
        throw rejectedByTheWrite(spark, input, format, readOptions, outputBefore, e);
      }
      InputTable.Counts known = counts;
      InputTable read = input;
      java.util.Optional<JobException> tooLarge = outOfMemory(e,
          () -> known != null ? known.longestText() : read.count().longestText());
      if (tooLarge.isPresent()) {
        throw tooLarge.get();
      }
      throw e;
    }
    LOG.info("phase: committed table version {}", written.version());
    long rowsIn = guard != null ? guard.rowsIn() : counts.rows();
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
    // A catalog table has no directory of the user's: its summary is written only where asked.
    String summaryPath = summaryJson != null ? summaryJson : TableName.is(spark, output) ? null
        : output.replaceAll("/+$", "") + "/" + RunSummary.FILE_NAME;
    if (summaryPath != null) {
      OutputFormat.writeText(spark, summaryPath, OutputFormat.toJson(summary.toMap(output)) + "\n");
    }
    if (show > 0) {
      OutputFormat.read(spark, output, outputFormat).select(out).show(show, false);
    }
    if (!intact) {
      throw new JobException(ExitCode.INTEGRITY, "Rows written (" + rowsOut + ") + rejected (" + rejected
          + ") differ from rows in (" + rowsIn + "); do not use " + output
          + (inPlaceRun.active() ? " (in place: the table was left as it was)" : ""));
    }
    return 0;
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SanitizeCommand.class);

  /**
   * The failure for a text too large for one task's memory, when {@code e} was caused by running out
   * of heap: each text is sanitized whole (its tokens and the mechanism's draws are held together),
   * so the fix is more memory per task or shorter texts.
   */
  static java.util.Optional<JobException> outOfMemory(Throwable e, java.util.function.LongSupplier longestText) {
    if (!JobException.taskFailedWith(e, OutOfMemoryError.class, "java.lang.OutOfMemoryError")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new JobException(ExitCode.INPUT, String.format(java.util.Locale.ROOT,
        "Sanitizing ran out of memory; nothing was committed. Each text is sanitized whole in one task, and "
            + "the longest text of this input has %,d characters. Give each executor more memory "
            + "(spark.executor.memory; locally DPTEXT_JAVA_OPTS=-Xmx…; docs/job.md 'Large records' has measured "
            + "sizes), or split the longest texts into several rows", longestText.getAsLong())));
  }

  /**
   * The rejects table holds raw records: it must not be the input or the output, lie inside either
   * (raw records inside the sanitized table's directory, or read again as input) or contain either.
   * Paths are compared resolved (links, {@code file:}, {@code ./}, {@code ..}, slashes).
   */
  void checkRejectsPath(SparkSession spark) {
    String r = OutputLocation.resolved(spark, rejects);
    String out = OutputLocation.resolved(spark, output);
    String fix = "; rejected records are raw, unsanitized text: give them a path of their own, outside the output "
        + "and the input and not around them (e.g. a sibling of the output, stored like the input)";
    if (r.equals(out)) {
      throw new JobException(ExitCode.USAGE, "--rejects " + rejects + " is the output" + fix);
    }
    if (OutputLocation.within(r, out) || OutputLocation.within(out, r)) {
      throw new JobException(ExitCode.USAGE, "--rejects " + rejects + (OutputLocation.within(r, out)
          ? " is inside --output " + output + realPaths(r, out) : " contains --output " + output + realPaths(out, r))
          + fix);
    }
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      if (r.equals(in)) {
        throw new JobException(ExitCode.USAGE, "--rejects " + rejects + " is the input" + fix);
      }
      if (OutputLocation.within(r, in) || OutputLocation.within(in, r)) {
        throw new JobException(ExitCode.USAGE, "--rejects " + rejects + (OutputLocation.within(r, in)
            ? " is inside --input " + input + realPaths(r, in) : " contains --input " + input + realPaths(in, r))
            + fix);
      }
    }
    OutputLocation.inspect(spark, rejects).checkWritable(new TableWriter.Target(rejects, outputFormat,
        WriteMode.OVERWRITE, null, List.of(), null, null));
  }

  /**
   * Refuses an output inside the input or an input inside the output (paths resolved: links,
   * {@code file:}, {@code ./}, {@code ..}, slashes), before anything is read or written: a Parquet
   * overwrite of a directory holding the input deletes the raw input, an output written inside an input
   * directory is read back as input next time (and a VACUUM of an input table deletes it), and an input
   * inside a Delta output is deleted by its VACUUM. Not called for the in-place flow ({@link InPlace}:
   * the output is the input Delta table), which has its own checks.
   */
  void checkNesting(SparkSession spark) {
    String out = OutputLocation.resolved(spark, output);
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      if (in.equals(out)) {
        // Not the in-place flow (InPlace took or refused the same path): a glob of the input matches it.
        throw new JobException(ExitCode.USAGE, "--output " + output + " is read by --input " + input + " (resolved: "
            + out + "): the run would overwrite or append to what it reads. Choose an --output the input does not "
            + "match. Nothing was read or written");
      }
      if (OutputLocation.within(out, in)) {
        throw new JobException(ExitCode.USAGE, "--output " + output + " is inside --input " + input + realPaths(out, in)
            + ": the sanitized table would be written into the raw input (and read back as input by the next run; "
            + "a VACUUM of an input table would delete it). Choose an --output outside the input, e.g. a sibling of "
            + "it. Nothing was read or written");
      }
      if (OutputLocation.within(in, out)) {
        throw new JobException(ExitCode.USAGE, "--input " + input + " is inside --output " + output + realPaths(in, out)
            + ": writing the output there would delete or hide the raw input (a Parquet overwrite deletes the "
            + "directory's files, a Delta VACUUM deletes files the table does not list), and the raw text would sit "
            + "inside the sanitized table's directory. Choose an --output that does not contain the input, or move "
            + "the input out of it first. Nothing was read or written");
      }
    }
  }

  /** " (resolved: A inside B)": the real paths, which may differ from the spellings given. */
  private static String realPaths(String inner, String outer) {
    return " (resolved: " + inner + " inside " + outer + ")";
  }

  /**
   * The rows to sanitize, over enough partitions to keep every core busy: sanitizing is CPU-bound per
   * row, and a single input file smaller than a split is one partition.
   */
  static Dataset<Row> spread(int partitions, SparkSession spark, Dataset<Row> in) {
    int to = spreadTarget(partitions, spark, in);
    return to > 0 ? in.repartition(to) : in;
  }

  /** The partitions {@link #spread} repartitions {@code in} to, or 0 when it keeps the read's own. */
  int spreadTarget(SparkSession spark, Dataset<Row> in) {
    return spreadTarget(partitions, spark, in);
  }

  /** {@link #spreadTarget(SparkSession, Dataset)} for {@code --partitions partitions}. */
  static int spreadTarget(int partitions, SparkSession spark, Dataset<Row> in) {
    if (partitions < 0) {
      throw new JobException(ExitCode.USAGE, "--partitions must be ≥ 0 (0 = automatic), got " + partitions);
    }
    if (partitions > 0) {
      return partitions;
    }
    // Three tasks per core: with one task per core a core that finishes early idles (3 partitions on 2
    // cores take as long as 4); the shuffle costs far less than sanitizing.
    if (!Classic.is(spark)) {
      // A Connect client can ask neither the cores nor the input's partitions (no SparkContext, no RDD):
      // the server's default parallelism is what its range() is split into, and the input is always
      // spread (the output does not depend on it; a classic run skips the shuffle for an input already
      // in enough partitions).
      return 3 * serverParallelism(spark);
    }
    int target = 3 * Classic.defaultParallelism(spark);
    return Classic.partitions(in) < target ? target : 0;
  }

  /**
   * The Connect server's default parallelism: the partitions of a {@code range} without a partition
   * count (one small job; ranges are split into the default parallelism).
   */
  static int serverParallelism(SparkSession spark) {
    Row r = spark.range(0, 1 << 16).select(org.apache.spark.sql.functions.spark_partition_id().as("p"))
        .agg(org.apache.spark.sql.functions.max("p")).first();
    return r.isNullAt(0) ? 1 : r.getInt(0) + 1;
  }

  /**
   * Whether the input check can ride the write ({@link InputGuard}) instead of a pass of its own: only
   * where a rejected record can neither leave anything written nor lose what is there. The input is
   * spread by a shuffle ({@code spreadTo > 0}: the check runs in its map stage, which ends before any
   * task writes); the write is one Delta commit (a failed run commits nothing) or Parquet to a path
   * holding no data (a Parquet overwrite deletes the old files before its job runs, so it keeps the
   * pass); and nothing else needs the counts or reads the input first — rejects to write, corpus
   * frequencies, the partitioned path's rounds, an in-place swap, or MERGE (which reads its source
   * twice).
   */
  private boolean checkRidesTheWrite(SparkSession spark, InputTable.OnCorrupt policy, OutputLocation outputBefore,
      TableWriter.Target target, DpTextOptions options, int spreadTo) {
    if (spreadTo == 0 || policy != InputTable.OnCorrupt.FAIL || outputBefore == null // in place
        || target.mode() == WriteMode.MERGE
        || !frequencySource.strip().equalsIgnoreCase("embeddings")
        || dev.dptext.runtime.ModelLoader.partitioned(spark, options) != null) {
      return false;
    }
    return target.delta() || !outputBefore.holdsData();
  }

  /**
   * The failure for a write the input check stopped: the input is counted now (the pass the check
   * replaced) so that the message says what was rejected, as it would have before any writing; a
   * directory the failed write created at a path that was absent is removed if nothing is in it.
   */
  private JobException rejectedByTheWrite(SparkSession spark, InputTable input, DataFormat format,
      Map<String, String> readOptions, OutputLocation before, Exception e) {
    if (before != null && before.kind == OutputLocation.Kind.ABSENT) {
      OutputLocation.removeEmptyLeftovers(spark, output);
    }
    InputTable.Counts counts = input.count();
    if (counts.rejected() == 0) {
      throw new IllegalStateException("The write stopped on a rejected record, but a count of the input finds none "
          + "(did the input change during the run?)", e);
    }
    return InputTable.failure(counts, this.input, format, readOptions);
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
  private DpTextModel privateCorpusModel(SparkSession spark, DpTextOptions options, Dataset<Row> in, String column) {
    switch (frequencySource.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "embeddings":
        return null;
      case "private-corpus":
        DpTextModel base = ModelOptions.load(spark, options);
        org.slf4j.LoggerFactory.getLogger(SanitizeCommand.class).warn(
            "SanText+ sensitive set from the PRIVATE corpus's word counts: outside the DP guarantee");
        return CorpusFrequencies.rerank(base, CorpusFrequencies.count(in, column, base.embeddings()));
      default:
        throw new JobException(ExitCode.USAGE,
            "Unknown --frequency-source '" + frequencySource + "'; use embeddings or private-corpus");
    }
  }

  /** The id mode, checked against --id-column: column mode needs one, the others must not have one. */
  IdMode idModeValue(IdMode mode) {
    if (mode == IdMode.COLUMN && idColumn == null) {
      throw new JobException(ExitCode.USAGE,
          "No --id-column. Name a stable, unique id column (recommended), or choose explicitly with "
              + "--id-mode content-hash (reproducible; equal texts get equal outputs) or --id-mode fresh "
              + "(not reproducible); see docs/keys-and-randomness.md");
    }
    if (mode != IdMode.COLUMN && idColumn != null) {
      throw new JobException(ExitCode.USAGE,
          "--id-column is given but --id-mode is " + ValueType.label(mode) + "; drop one of them");
    }
    return mode;
  }

  /**
   * On Spark Connect: the options to send to the server, as a builder that holds them (its model and key
   * are never built here); each query carries them as {@code dp_sanitize}'s options ({@link ServerSanitizer}). What the server cannot do from settings alone is refused before
   * anything is read.
   */
  DpText.Builder serverSanitizer(SparkSession spark, DpTextOptions options, IdMode ids) {
    String noClassic = "; on Spark Connect ";
    if (!frequencySource.strip().equalsIgnoreCase("embeddings")) {
      throw new JobException(ExitCode.USAGE, "--frequency-source " + frequencySource + " re-ranks the model in this "
          + "program, which a Spark Connect server cannot take from it" + noClassic + "use --frequency-source "
          + "embeddings (the public rank), or run the job with a classic session");
    }
    try {
      if (dev.dptext.runtime.ModelLoader.partitioned(spark, options) != null) {
        throw new JobException(ExitCode.USAGE, "The partitioned model " + options.get(Settings.MODEL) + " is searched "
            + "shard by shard by this program's own Spark jobs, which need a classic session" + noClassic
            + "use a model that fits each executor (--model-layout broadcast), or run the job with a classic session");
      }
      // Given on the command line, or in --config with another variable than the default's.
      boolean keyEnvGiven = spec.commandLine().getParseResult().hasMatchedOption(Settings.KEY_ENV.cliName())
          || !options.get(Settings.KEY_ENV).equals(Settings.KEY_ENV.defaultValue().orElse(null));
      ServerSanitizer.checkKeySource(options, keyEnvGiven, System.getenv());
      DpText.Builder b = DpText.sanitizer(options);
      if (ids == IdMode.COLUMN) {
        b.idColumn(idColumn);
      }
      server = ServerSanitizer.forSession(spark, b.options(), ids == IdMode.COLUMN ? idColumn : null);
      return b;
    } catch (IllegalArgumentException e) {
      throw new JobException(ExitCode.USAGE, e.getMessage());
    }
  }

  /**
   * Has the Connect server build the sanitizer (model and key): its failure names the server's problem,
   * in one line (the server's own message; never a key, and no row is involved).
   */
  static void prepareOnServer(SparkSession spark, ServerSanitizer server) {
    try {
      server.prepare(spark);
    } catch (RuntimeException e) {
      String message = JobException.firstLine(e.getMessage());
      if (String.valueOf(e.getMessage()).contains("UNRESOLVED_ROUTINE")) {
        throw new JobException(ExitCode.USAGE, "The Spark Connect server has no SQL function " + DpText.SQL_FUNCTION
            + ": start it with spark.sql.extensions=" + dev.dptext.spark.DpTextExtensions.class.getName()
            + " (beside Delta's) and the dptext jar on its classpath (docs/python-and-connect.md, 'Spark Connect')");
      }
      if (String.valueOf(e.getMessage()).contains("No RNG key")) {
        // The server's own message names its environment and its conf; say it from this side.
        throw new JobException(ExitCode.USAGE, "The Spark Connect server has no RNG key for this run: name one with "
            + "--key-file PATH (a key file the server can read, e.g. on /Volumes) or --databricks-secret SCOPE/KEY, "
            + "or start the server with spark.dptext.secretKey in its conf; to run with fresh, non-reproducible "
            + "randomness instead, pass --fresh-randomness");
      }
      throw new JobException(ExitCode.USAGE, "The Spark Connect server could not prepare " + DpText.SQL_FUNCTION
          + " with this run's settings: " + message);
    }
  }

  /** The DataFrame-API sanitizer of these options, with the key resolved now (before any data is read). */
  static DpText.Builder sanitizer(SparkSession spark, DpTextOptions options) {
    try {
      // A key in the application's Spark conf (spark.dptext.secretKey, redacted by Spark) wins.
      java.util.Optional<String> secret = SessionSecret.get(spark);
      DpTextOptions o = secret.isPresent() ? options.with(Settings.SECRET_KEY, secret.get()) : options;
      return DpText.sanitizer(o).key(o.resolveKey()); // read once: the builder keeps it for the run
    } catch (IllegalArgumentException e) {
      throw new JobException(ExitCode.USAGE, e.getMessage());
    }
  }

  DataFormat resolvedInputFormat() {
    if (TableName.is(JobSession.get(), input)) {
      return DataFormat.DELTA; // not used to read: a catalog table is read in its own format
    }
    if (inputFormat != null) {
      return DataFormat.parse(inputFormat);
    }
    DataFormat g = DataFormat.guess(input);
    if (g != null) {
      return g;
    }
    if (OutputFormat.isDeltaTable(JobSession.get(), input)) {
      return DataFormat.DELTA;
    }
    throw new JobException(ExitCode.USAGE,
        "Cannot tell the format of " + input + " from its name; pass --input-format csv|json|parquet|text|delta");
  }

  private static boolean hasColumn(Dataset<Row> df, String name) {
    return Arrays.asList(df.columns()).contains(name);
  }

}
