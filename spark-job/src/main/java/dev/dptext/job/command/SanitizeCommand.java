package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.RunPhases;
import dev.dptext.job.sanitize.BatchSanitize;
import dev.dptext.job.sanitize.SanitizeRequest;
import dev.dptext.job.stream.SanitizeStream;
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
    stream.check();
    SparkSession spark = JobSession.get();
    SanitizeRequest run = request().in(spark);
    try (RunPhases.Scope named = RunPhases.begin(spark, stream.enabled ? "sanitize --stream" : "sanitize",
        run.output())) {
      return stream.enabled ? SanitizeStream.run(run, stream.settings(), spark, start)
          : BatchSanitize.run(run, spark, start);
    } finally {
      dev.dptext.job.inplace.InPlace.release(); // an in-place purge's lock, however the run ended
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
