package dev.dptext.job.command;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code sanitize}'s input: what to read and how ({@link dev.dptext.job.read.InputTable}). */
final class InputOptions {
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
}
