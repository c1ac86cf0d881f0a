package dev.dptext.job.sanitize;

import dev.dptext.classic.Classic;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import dev.dptext.job.ledger.LedgerRequest;
import dev.dptext.job.read.DataFormat;
import dev.dptext.job.read.InputTable;
import dev.dptext.job.write.OutputFormat;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import dev.dptext.runtime.ServerSanitizer;
import dev.dptext.settings.DpTextOptions;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;

/**
 * What a {@code sanitize} run is asked to do: the values of its options as given, grouped as the command
 * groups them. Each is parsed and checked where the run first needs it, so that a run meets its errors in
 * the same order whatever else is wrong: the paths first, then the settings ({@link RunSettings}, the
 * run's plan), then the input. {@code sanitize --stream} takes the same request ({@link dev.dptext.job.stream}).
 *
 * @param source what is read ({@code --input} and how)
 * @param sink where and how the rows are written ({@code --output} and how)
 * @param columns the text, output and id columns
 * @param corrupt what happens to malformed records
 * @param frequencySource {@code --frequency-source}
 * @param summaryJson {@code --summary-json}, or null
 * @param partitions {@code --partitions} (0: spread over the cluster's cores)
 * @param progressInterval {@code --progress-interval}, seconds
 * @param show {@code --show}, rows
 * @param settings the settings table's options (mechanism, model, key source, …), read and checked when
 *     called
 * @param keyEnvOnCommandLine whether {@code --key-env} was given on the command line (not only by a
 *     {@code --config} file or its default)
 * @param ledger the privacy ledger's options ({@code --ledger}, {@code --epsilon-budget}, {@code --dry-run})
 */
public record SanitizeRequest(Source source, Sink sink, Columns columns, Corrupt corrupt, String frequencySource,
    String summaryJson, int partitions, int progressInterval, int show, Supplier<DpTextOptions> settings,
    boolean keyEnvOnCommandLine, LedgerRequest ledger) {

  /**
   * The input: {@code --input} (a path or a catalog table), {@code --input-format} (null: guessed),
   * {@code --input-option}s, {@code --input-schema} (null: inferred).
   */
  public record Source(String path, String format, Map<String, String> options, String schema) {}

  /**
   * The output: {@code --output}, {@code --output-format}, {@code --mode}, {@code --in-place},
   * {@code --where} (also the input's filter), {@code --merge-key} (null: the id column) and the Delta
   * transaction ({@code --txn-app-id}, {@code --txn-version}).
   */
  public record Sink(String path, String format, String mode, String inPlace, String where, List<String> mergeKeys,
      String txnAppId, Long txnVersion) {}

  /** {@code --text-column}, {@code --output-column} (null: the text column) and {@code --id-column} (or null). */
  public record Columns(String text, String output, String id) {}

  /** {@code --on-corrupt} and {@code --rejects} (or null). */
  public record Corrupt(String policy, String rejects) {}

  public String input() {
    return source.path;
  }

  public String output() {
    return sink.path;
  }

  public String rejects() {
    return corrupt.rejects;
  }

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
      String ledgerAt = ledger == null ? null : ledger.ledger();
      r = new SanitizeRequest(
          new Source(absolute(spark, source.path), source.format, source.options, source.schema),
          new Sink(absolute(spark, sink.path), sink.format, sink.mode, sink.inPlace, sink.where, sink.mergeKeys,
              sink.txnAppId, sink.txnVersion),
          columns, new Corrupt(corrupt.policy, absolute(spark, corrupt.rejects)), frequencySource, summaryJson,
          partitions, progressInterval, show, settings, keyEnvOnCommandLine,
          ledgerAt == null ? ledger : new LedgerRequest(absolute(spark, ledgerAt), ledger.budget(), ledger.dryRun()));
    }
    if ((r.corruptPolicy() == InputTable.OnCorrupt.REJECT) != (r.rejects() != null)) {
      throw JobException.of(r.rejects() == null ? "REJECTS_NEED_ON_CORRUPT" : "ON_CORRUPT_NEEDS_REJECT");
    }
    return r;
  }

  /** A path made absolute for a Connect server; a catalog table's name, or null, as it is. */
  private static String absolute(SparkSession spark, String pathOrTable) {
    return pathOrTable == null || TableName.is(spark, pathOrTable) ? pathOrTable
        : ServerSanitizer.absolute(pathOrTable);
  }

  /** What to do with rejected records ({@code --on-corrupt}). */
  public InputTable.OnCorrupt corruptPolicy() {
    return InputTable.OnCorrupt.parse(corrupt.policy);
  }

  /** Where and how a batch run writes: {@code --merge-key} defaults to the id column. */
  TableWriter.Target target() {
    return TableWriter.Target.to(sink.path, sink.format, WriteMode.parse(sink.mode))
        .where(sink.where)
        .mergeKeys(sink.mergeKeys != null ? sink.mergeKeys : columns.id != null ? List.of(columns.id) : List.of())
        .transaction(sink.txnAppId, sink.txnVersion)
        .build();
  }

  /** Whether the word frequencies are the embedding file's public rank (the default), not the input's. */
  public boolean publicFrequencies() {
    return frequencySource.strip().equalsIgnoreCase("embeddings");
  }

  /** Where a run's JSON summary goes: {@code --summary-json}, else beside the output (a path only). */
  public String summaryPath(SparkSession spark) {
    // A catalog table has no directory of the user's: its summary is written only where asked.
    return summaryJson != null ? summaryJson : TableName.is(spark, sink.path) ? null
        : sink.path.replaceAll("/+$", "") + "/" + OutputLocation.SUMMARY_FILE;
  }

  /** The input's format: {@code --input-format}, else guessed from its name, else Delta for a Delta table. */
  public DataFormat resolvedInputFormat(SparkSession spark) {
    if (TableName.is(spark, source.path)) {
      return DataFormat.DELTA; // not used to read: a catalog table is read in its own format
    }
    if (source.format != null) {
      return DataFormat.parse(source.format);
    }
    DataFormat g = DataFormat.guess(source.path);
    if (g != null) {
      return g;
    }
    if (OutputFormat.isDeltaTable(spark, source.path)) {
      return DataFormat.DELTA;
    }
    throw JobException.of("INPUT_FORMAT_UNKNOWN", "path", source.path, "formats",
        "csv|json|parquet|text|delta");
  }
}
