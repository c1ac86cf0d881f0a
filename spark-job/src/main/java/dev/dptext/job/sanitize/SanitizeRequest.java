package dev.dptext.job.sanitize;

import dev.dptext.classic.Classic;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.JobSession;
import dev.dptext.job.base.TableName;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.runtime.ServerSanitizer;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;

/**
 * What a {@code sanitize} run is asked to do: the values of its options, as given (each is parsed and
 * checked where the run first needs it, so that a run meets its errors in the same order whatever
 * else is wrong). {@code sanitize --stream} takes the same request ({@link dev.dptext.job.stream}).
 *
 * @param mergeKeys {@code --merge-key}, or null when not given
 * @param settings the settings table's options (mechanism, model, key source, …), read and checked when
 *     called
 * @param keyEnvOnCommandLine whether {@code --key-env} was given on the command line (not only by a
 *     {@code --config} file or its default)
 * @param ledger the privacy ledger's options ({@code --ledger}, {@code --epsilon-budget}, {@code --dry-run})
 */
public record SanitizeRequest(String input, String inputFormat, Map<String, String> inputOptions, String inputSchema,
    String output, String outputFormat, String mode, String inPlace, String where, List<String> mergeKeys,
    String txnAppId, Long txnVersion, String onCorrupt, String rejects, String textColumn, String outputColumn,
    String idColumn, String frequencySource, String summaryJson, int partitions, int progressInterval, int show,
    Supplier<DpTextOptions> settings, boolean keyEnvOnCommandLine, dev.dptext.job.ledger.LedgerRequest ledger) {

  /**
   * This request as it runs in {@code spark}: on Spark Connect its paths made absolute, and its
   * {@code --on-corrupt} policy checked against {@code --rejects}.
   *
   * @throws JobException (usage) for a policy and a rejects path that do not go together
   */
  public SanitizeRequest in(SparkSession spark) {
    boolean connect = !Classic.is(spark);
    BatchSanitize.LOG.debug("phase: session ready{}", connect ? " (Spark Connect)" : "");
    SanitizeRequest r = this;
    if (connect) {
      // The server resolves a relative path against ITS working directory; the user meant this program's,
      // as a classic driver reads it. A catalog table's name stays a name.
      r = new SanitizeRequest(TableName.is(spark, input) ? input : ServerSanitizer.absolute(input), inputFormat,
          inputOptions, inputSchema, TableName.is(spark, output) ? output : ServerSanitizer.absolute(output),
          outputFormat, mode, inPlace, where, mergeKeys, txnAppId, txnVersion, onCorrupt,
          rejects == null || TableName.is(spark, rejects) ? rejects : ServerSanitizer.absolute(rejects), textColumn,
          outputColumn, idColumn, frequencySource, summaryJson, partitions, progressInterval, show, settings,
          keyEnvOnCommandLine, ledger == null || ledger.ledger() == null || TableName.is(spark, ledger.ledger())
          ? ledger : new dev.dptext.job.ledger.LedgerRequest(ServerSanitizer.absolute(ledger.ledger()), ledger.budget(),
          ledger.dryRun()));
    }
    InputTable.OnCorrupt corruptPolicy = r.corruptPolicy();
    if ((corruptPolicy == InputTable.OnCorrupt.REJECT) != (r.rejects != null)) {
      throw new JobException(ExitCode.USAGE, r.rejects == null
          ? "--on-corrupt reject needs --rejects PATH (where the rejected records go)"
          : "--rejects is given but --on-corrupt is fail; add --on-corrupt reject or drop --rejects");
    }
    return r;
  }

  /** What to do with rejected records ({@code --on-corrupt}). */
  public InputTable.OnCorrupt corruptPolicy() {
    return InputTable.OnCorrupt.parse(onCorrupt);
  }

  /** Where and how a batch run writes: {@code --merge-key} defaults to the id column. */
  TableWriter.Target target() {
    return new TableWriter.Target(output, outputFormat, WriteMode.parse(mode), where,
        mergeKeys != null ? mergeKeys : idColumn != null ? List.of(idColumn) : List.of(), txnAppId, txnVersion);
  }

  /** Whether the word frequencies are the embedding file's public rank (the default), not the input's. */
  public boolean publicFrequencies() {
    return frequencySource.strip().equalsIgnoreCase("embeddings");
  }

  /** Where a batch run's JSON summary goes: {@code --summary-json}, else beside the output (a path only). */
  String summaryPath(SparkSession spark) {
    // A catalog table has no directory of the user's: its summary is written only where asked.
    return summaryJson != null ? summaryJson : TableName.is(spark, output) ? null
        : output.replaceAll("/+$", "") + "/" + OutputLocation.SUMMARY_FILE;
  }

  /** The input's format: {@code --input-format}, else guessed from its name, else Delta for a Delta table. */
  public DataFormat resolvedInputFormat() {
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
}
