package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.run.RunSummary;
import dev.dptext.job.sanitize.BatchSanitize;
import dev.dptext.job.sanitize.SanitizeRequest;
import dev.dptext.job.stream.SanitizeStream;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.settings.Settings;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sanitize}: read a table, rewrite its text column with a DP mechanism, write Delta or Parquet.
 * The options, grouped by what they are about; the run itself is {@link BatchSanitize}, or
 * {@link SanitizeStream} with {@code --stream}.
 */
@Command(name = "sanitize", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Sanitize the text column of a table with a differentially private mechanism.")
final class SanitizeCommand implements Callable<Integer>, SettingOptions.Command {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions config;

  @Mixin InputOptions input;

  @Mixin OutputOptions output;

  @Mixin OnCorruptOptions onCorrupt;

  @Mixin ColumnOptions columns;

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

  @Mixin StreamOptions stream;

  @Mixin LedgerOptions ledger;

  /** Every setting of the table but the key itself (the mechanism, its parameters, the model, the key's source). */
  @Override
  public List<Setting<?>> settings() {
    return Settings.options();
  }

  @Override
  public Integer call() {
    long start = System.nanoTime();
    SparkSession spark = JobSession.get();
    try {
      stream.check();
      SanitizeRequest run = request().in(spark);
      try (RunPhases.Scope named = RunPhases.begin(spark, stream.enabled ? "sanitize --stream" : "sanitize",
          run.output())) {
        return stream.enabled ? SanitizeStream.run(run, stream.settings(), spark, start)
            : BatchSanitize.run(run, spark, start);
      }
    } catch (RuntimeException e) {
      summarizeFailure(spark, e);
      throw e;
    } finally {
      dev.dptext.job.inplace.InPlace.release(); // an in-place purge's lock, however the run ended
    }
  }

  /**
   * A failed run's outcome in {@code --summary-json}, where a scheduler that reads the summary looks (the name and
   * parameters of the refusal, docs/errors.md). Only where the user named the file: the default place is inside the
   * output, which a failed run must leave as it found it. Not over the summary the run's report wrote with its
   * counts and the same outcome ({@code ROWS_OUT_DIFFER}, raised after it). A summary that cannot be written is
   * kept as a suppressed exception of the run's failure, which is what the run reports.
   */
  private void summarizeFailure(SparkSession spark, RuntimeException e) {
    JobOutcome outcome = JobOutcome.of(e);
    if (summaryJson == null || RunSummary.REPORTED_FAILURE.equals(outcome.errorClass())) {
      return;
    }
    try {
      OutputFormat.writeText(spark, summaryJson, OutputFormat.toJson(RunSummary.failed(output.output, outcome)) + "\n");
    } catch (RuntimeException notWritten) {
      e.addSuppressed(notWritten);
    }
  }

  /** What the options ask for; the settings are read (and checked) when the run first needs them. */
  SanitizeRequest request() {
    return new SanitizeRequest(
        new SanitizeRequest.Source(input.input, input.inputFormat, input.inputOptions, input.inputSchema),
        new SanitizeRequest.Sink(output.output, output.outputFormat, output.mode, output.inPlace, output.where,
            output.mergeKeys, output.txnAppId, output.txnVersion),
        new SanitizeRequest.Columns(columns.textColumn, columns.outputColumn, columns.idColumn),
        new SanitizeRequest.Corrupt(onCorrupt.onCorrupt, onCorrupt.rejects), frequencySource, summaryJson, partitions,
        progressInterval, show, () -> SettingOptions.read(spec, settings()),
        spec.commandLine().getParseResult().hasMatchedOption(Settings.KEY_ENV.cliName()), ledger.request());
  }
}
