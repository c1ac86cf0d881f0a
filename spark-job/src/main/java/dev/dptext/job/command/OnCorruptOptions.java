package dev.dptext.job.command;

import picocli.CommandLine.Option;

/** What {@code sanitize} does with input records it cannot sanitize: fail, or reject them to a table of their own. */
final class OnCorruptOptions {
  @Option(names = "--on-corrupt", paramLabel = "POLICY", defaultValue = "fail",
      description = "Malformed input records (and rows with text but a null id): fail (default; nothing is "
          + "written) or reject (sanitize the rest; the rejected records go, raw, to --rejects).")
  String onCorrupt;

  @Option(names = "--rejects", paramLabel = "PATH",
      description = "With --on-corrupt reject: where the rejected records go (raw, unsanitized: store them "
          + "like the input), in --output-format, replaced on each run; use a per-run path.")
  String rejects;
}
