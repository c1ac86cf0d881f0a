package dev.dptext.job.command;

import picocli.CommandLine.Option;

/**
 * {@code sanitize}'s output: where the rows go and how they land there ({@link dev.dptext.job.write}),
 * including a run whose output is its input ({@link dev.dptext.job.inplace}).
 */
final class OutputOptions {
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
}
